package registry

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Hook observes every call the pipeline dispatches and may block it before
// it runs (hermes pre_tool_call / post_tool_call plugins; the agent's edit
// approval is one). Hooks run on the goroutine that runs the call, possibly
// several at once, so implementations must be safe for concurrent use. A
// panicking hook is logged and ignored; it never breaks the call.
type Hook interface {
	// Pre runs after the guardrails and before dispatch. Returning block
	// true stops the call: the model gets {"error": message}.
	Pre(ctx context.Context, call *Call) (block bool, message string)
	// Post runs after dispatch with the handler's result and how long the
	// dispatch took.
	Post(ctx context.Context, call *Call, result Result, took time.Duration)
}

// Transformer is an optional interface a [Hook] may implement to rewrite a
// result after Post (hermes transform_tool_result). The first hook that
// returns ok wins; later ones are not asked.
type Transformer interface {
	Transform(ctx context.Context, call *Call, result Result) (replacement Result, ok bool)
}

// HookFuncs adapts plain functions to [Hook]; nil fields do nothing.
type HookFuncs struct {
	PreFunc  func(ctx context.Context, call *Call) (block bool, message string)
	PostFunc func(ctx context.Context, call *Call, result Result, took time.Duration)
}

var _ Hook = HookFuncs{}

// Pre calls PreFunc when set.
func (h HookFuncs) Pre(ctx context.Context, call *Call) (bool, string) {
	if h.PreFunc == nil {
		return false, ""
	}
	return h.PreFunc(ctx, call)
}

// Post calls PostFunc when set.
func (h HookFuncs) Post(ctx context.Context, call *Call, result Result, took time.Duration) {
	if h.PostFunc != nil {
		h.PostFunc(ctx, call, result, took)
	}
}

// runPre runs the pre-hooks in order until one blocks.
func runPre(ctx context.Context, hooks []Hook, call *Call, log *slog.Logger) (bool, string) {
	for i, h := range hooks {
		if block, msg := safePre(ctx, h, call, log, i); block {
			return true, msg
		}
	}
	return false, ""
}

func safePre(ctx context.Context, h Hook, call *Call, log *slog.Logger, i int) (block bool, msg string) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("pre hook panicked; ignoring it", "hook", i, "tool", call.Name, "panic", fmt.Sprint(p))
			block, msg = false, ""
		}
	}()
	return h.Pre(ctx, call)
}

// runPost runs every post-hook, then the first transformer that accepts.
func runPost(ctx context.Context, hooks []Hook, call *Call, result Result, took time.Duration, log *slog.Logger) Result {
	for i, h := range hooks {
		func() {
			defer func() {
				if p := recover(); p != nil {
					log.Error("post hook panicked; ignoring it", "hook", i, "tool", call.Name, "panic", fmt.Sprint(p))
				}
			}()
			h.Post(ctx, call, result, took)
		}()
	}
	for i, h := range hooks {
		t, ok := h.(Transformer)
		if !ok {
			continue
		}
		if out, ok := safeTransform(ctx, t, call, result, log, i); ok {
			return out
		}
	}
	return result
}

func safeTransform(ctx context.Context, t Transformer, call *Call, result Result, log *slog.Logger, i int) (out Result, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("result transformer panicked; ignoring it", "hook", i, "tool", call.Name, "panic", fmt.Sprint(p))
			out, ok = Result{}, false
		}
	}()
	return t.Transform(ctx, call, result)
}
