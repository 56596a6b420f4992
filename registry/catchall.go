package registry

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// The stages of the call pipeline, as the catch-all names them in its log
// (and as the fault-injection build, tag faultinject, selects them).
const (
	stageParse      = "parse"       // the raw arguments decoded (ParseArgs)
	stageResolve    = "resolve"     // a path argument resolved by the session (PathResolver)
	stagePlan       = "plan"        // the batch split into segments
	stageCoerce     = "coerce"      // the arguments repaired against the schema
	stageGuardrails = "guardrails"  // the loop guardrails, before and after
	stageHooks      = "hooks"       // the pre- and post-hooks and transformers
	stageDispatch   = "dispatch"    // the registry's dispatch to the handler
	stageBudget     = "budget"      // the result encoded and the per-result budget
	stageTurnBudget = "turn-budget" // the per-turn budget over the batch
	stageWorker     = "worker"      // a parallel worker goroutine
)

// pipelinePanic is a panic the catch-all recovered, with the stack of the
// goroutine that panicked.
type pipelinePanic struct {
	value any
	stack []byte
}

// catchPanic runs f and returns its panic, if any.
func catchPanic(f func()) (pp *pipelinePanic) {
	defer func() {
		if r := recover(); r != nil {
			pp = &pipelinePanic{value: r, stack: debug.Stack()}
		}
	}()
	f()
	return nil
}

// outcome logs the panic, with its stack, and returns the call's error
// result: hermes's catch-all message of handle_function_call,
// {"error": "Error executing <tool>: <panic>"}, sanitised like every tool
// error. The call failed; the turn goes on with the rest of the batch.
func (pp *pipelinePanic) outcome(stage string, call *Call, log *slog.Logger) Outcome {
	log.Error("tool call pipeline panicked; the call failed and the turn goes on",
		"stage", stage, "tool", call.Name, "id", call.ID, "panic", fmt.Sprint(pp.value), "stack", string(pp.stack))
	return failedOutcome(panicResult(call.Name, pp.value))
}

// panicResult is the error result of a call whose pipeline panicked.
func panicResult(tool string, value any) Result {
	return Error(sanitizeToolError("Error executing " + tool + ": " + fmt.Sprint(value)))
}
