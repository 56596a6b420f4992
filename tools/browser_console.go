package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_console returns the page's console messages and uncaught errors
// (since the page opened or the last clear), or evaluates an expression in
// the page.
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_console",
		Toolset:     browserToolset,
		Emoji:       "🖥️",
		Description: browserConsoleDescription,
		Kind:        registry.KindExecute,
		Title: func(args map[string]any) string {
			if e, ok := args["expression"].(string); ok && e != "" {
				return "console: " + firstLine(e, 70)
			}
			return "console"
		},
		Preview: browserPreview,
		Render:  browserRender,
	}, Params: browserConsoleParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserConsoleParams) (registry.Result, error) {
			return browserConsole(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_console.md
var browserConsoleDescription string

type browserConsoleParams struct {
	Clear      bool    `json:"clear" schema:"default=false" desc:"If true, clear the message buffers after reading"`
	Expression *string `json:"expression" desc:"JavaScript expression to evaluate in the page context. Runs in the browser like DevTools console — full access to DOM, window, document. Return values are serialized to JSON. Example: 'document.title' or 'document.querySelectorAll(\"a\").length'"`
}

type consoleMessage struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source string `json:"source"`
}

type consoleError struct {
	Message string `json:"message"`
	Source  string `json:"source"`
}

type browserConsoleResult struct {
	Success         bool             `json:"success"`
	ConsoleMessages []consoleMessage `json:"console_messages"`
	JSErrors        []consoleError   `json:"js_errors"`
	TotalMessages   int              `json:"total_messages"`
	TotalErrors     int              `json:"total_errors"`
	// BlockedRequests are the requests of the page (and of its frames,
	// popups and workers) the URL policy refused: hermes-acp's addition.
	BlockedRequests []browser.Refusal `json:"blocked_requests,omitempty"`
}

type browserEvalResult struct {
	Success    bool   `json:"success"`
	Result     any    `json:"result"`
	ResultType string `json:"result_type"`
}

func browserConsole(ctx context.Context, s browserDeps, _ *registry.Call, p *browserConsoleParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	if p.Expression != nil {
		v, err := b.Evaluate(ctx, *p.Expression)
		if err != nil {
			return browserError(s, err, ""), nil
		}
		return registry.OK(browserEvalResult{Success: true, Result: v, ResultType: jsonType(v)}), nil
	}
	msgs, errs, refused, err := b.Console(ctx, p.Clear)
	if err != nil {
		return browserError(s, err, ""), nil
	}
	out := browserConsoleResult{Success: true, ConsoleMessages: []consoleMessage{}, JSErrors: []consoleError{}}
	for _, m := range msgs {
		out.ConsoleMessages = append(out.ConsoleMessages, consoleMessage{Type: m.Type, Text: m.Text, Source: "console"})
	}
	for _, e := range errs {
		out.JSErrors = append(out.JSErrors, consoleError{Message: e.Message, Source: "exception"})
	}
	out.TotalMessages, out.TotalErrors = len(out.ConsoleMessages), len(out.JSErrors)
	out.BlockedRequests = refused
	return registry.OK(out), nil
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}
