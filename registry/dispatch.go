package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Messages the model reads, verbatim from hermes-agent.
const (
	msgCancelled   = "Tool execution cancelled by user interrupt"
	maxToolErrLen  = 2000 // hermes _TOOL_ERROR_MAX_LEN
	invalidArgsMsg = "Tool arguments must be a valid JSON object; tool was not executed."
)

// invalidArgsResult is hermes's result for arguments that are not a JSON
// object; the tool is not executed.
var invalidArgsResult = Failed(struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}{"Invalid tool arguments", invalidArgsMsg})

// cancelledResult is hermes's result for a call the user's interrupt stopped.
var cancelledResult = Failed(struct {
	Error  string `json:"error"`
	Status string `json:"status"`
}{msgCancelled, "cancelled"})

// Dispatch runs one call through the registry alone (no coercion, guardrails,
// hooks or budget; see [Pipeline] for those). When call.Args is nil it is
// parsed from call.RawArgs. Every failure is an error result, never a panic:
// an unknown tool gives {"error":"Unknown tool: X","available_tools":[…]},
// a tool declared but not bound (not enabled in the session) gives
// {"error":"<name> is not enabled in this session; nothing was run"}, and
// a handler error or panic gives
// {"error":"Tool execution failed: <Type>: <message>"}.
func (r *Registry) Dispatch(ctx context.Context, call *Call) Result {
	if call.Args == nil {
		args, err := ParseArgs(call.RawArgs)
		if err != nil {
			return invalidArgsResult
		}
		call.Args = args
	}
	result, _ := dispatchIn(ctx, r.Snapshot(), call, r.log)
	return result
}

// dispatchIn runs call against the entries of s. handlerErr is the error
// the handler returned (or its panic), already rendered into result.
func dispatchIn(ctx context.Context, s *Snapshot, call *Call, log *slog.Logger) (result Result, handlerErr error) {
	e, ok := s.entries[call.Name]
	if !ok {
		return Failed(struct {
			Error     string   `json:"error"`
			Available []string `json:"available_tools"`
		}{"Unknown tool: " + call.Name, s.names}), nil
	}
	if e.Handler == nil {
		return Error(call.Name + " is not enabled in this session; nothing was run"), nil
	}
	result, err := runHandler(ctx, e.Handler, call)
	if err != nil {
		log.Error("tool dispatch error", "tool", call.Name, "id", call.ID, "err", err)
		return handlerErrorResult(err), err
	}
	return result, nil
}

// handlerErrorResult renders a handler error for the model.
func handlerErrorResult(err error) Result {
	return Error(sanitizeToolError("Tool execution failed: " + errorTypeName(err) + ": " + err.Error()))
}

// panicError carries a recovered handler panic.
type panicError struct{ value any }

// Error returns the panic value as text.
func (p panicError) Error() string { return fmt.Sprint(p.value) }

// runHandler calls h, turning a panic into an error.
func runHandler(ctx context.Context, h Handler, call *Call) (result Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = Result{}, panicError{p}
		}
	}()
	return h(ctx, call)
}

// errorTypeName is the Go counterpart of Python's type(e).__name__: the
// first exported type name along the error's wrap chain ("PathError",
// "SyntaxError"), "Panic" for a handler panic, "Canceled" or
// "DeadlineExceeded" for context errors, and "Error" when the chain has
// only anonymous errors (errors.New, fmt.Errorf).
func errorTypeName(err error) string {
	var p panicError
	switch {
	case errors.As(err, &p):
		return "Panic"
	case errors.Is(err, context.Canceled):
		return "Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "DeadlineExceeded"
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		t := reflect.TypeOf(e)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if r, _ := utf8.DecodeRuneInString(t.Name()); unicode.IsUpper(r) {
			return t.Name()
		}
	}
	return "Error"
}

var (
	toolErrRoleTag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)</?(?:tool_call|function_call|result|response|output|input|system|assistant|user)>`)
	})
	toolErrFenceOpen  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?m)^\\s*```(?:json|xml|html|markdown)?\\s*") })
	toolErrFenceClose = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?m)\\s*```\\s*$") })
	toolErrCDATA      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!\[CDATA\[.*?\]\]>`) })
)

// sanitizeToolError strips structural framing tokens (role tags, markdown
// fences, CDATA) from error text and caps it at 2000 characters, as hermes
// _sanitize_tool_error does.
func sanitizeToolError(msg string) string {
	if strings.ContainsAny(msg, "<`") {
		msg = toolErrRoleTag().ReplaceAllString(msg, "")
		msg = toolErrFenceOpen().ReplaceAllString(msg, "")
		msg = toolErrFenceClose().ReplaceAllString(msg, "")
		msg = toolErrCDATA().ReplaceAllString(msg, "")
	}
	if utf8.RuneCountInString(msg) > maxToolErrLen {
		msg = truncateRunes(msg, maxToolErrLen-3) + "..."
	}
	return msg
}

// truncateRunes returns the first n characters of s.
func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
