package registry

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxWorkers bounds the goroutines of one parallel segment (hermes
// _MAX_TOOL_WORKERS).
const DefaultMaxWorkers = 8

// PipelineOptions configures a [Pipeline]. The zero value gives hermes's
// defaults.
type PipelineOptions struct {
	Hooks      []Hook
	Guardrails GuardrailConfig // zero value = hermes defaults (warnings on, hard stop off)
	// ResultsDir is where oversized results are persisted
	// ($HERMES_HOME/results); "" truncates them inline instead (hermes's
	// no-sandbox fallback).
	ResultsDir string
	// SessionID names the session whose results the pipeline saves; it is
	// part of every saved file's name, so sessions never share one.
	SessionID string
	// MaxSavedFileBytes and MaxSavedSessionBytes bound one saved result
	// (longer ones are saved cut) and all of the session's (the oldest go
	// first); 0: DefaultMaxSavedFileBytes, DefaultMaxSavedSessionBytes.
	MaxSavedFileBytes, MaxSavedSessionBytes int64
	// TurnBudget is the character budget of one batch of results; 0 means
	// DefaultTurnBudgetChars.
	TurnBudget int
	// MaxResultChars is the default per-result threshold and the cap on every
	// tool's own value; 0 means DefaultMaxResultChars. See
	// [BudgetForContextWindow].
	MaxResultChars int
	// MaxWorkers bounds the goroutines of a parallel segment; 0 means
	// DefaultMaxWorkers.
	MaxWorkers int
	// PathResolver resolves the path arguments of path-scoped calls for the
	// batch planner, as the session's tools will (see [PathResolver]); nil
	// takes them lexically against the process's working directory, which
	// is only right when that is the session's cwd.
	PathResolver PathResolver
	Log          *slog.Logger
}

// Pipeline runs tool calls through coercion, agent-loop interception,
// guardrails, hooks, dispatch and the result budget. It is safe for
// concurrent use; per-turn state lives in the [Turn] values it creates.
type Pipeline struct {
	reg        *Registry
	hooks      []Hook
	guardCfg   GuardrailConfig
	store      resultStore
	turnBudget int
	maxResult  int
	maxWorkers int
	resolve    PathResolver
	log        *slog.Logger
	// fault, when set, panics at a stage of a call on purpose: the tests
	// of the catch-all set it, and so does the faultinject build.
	fault func(stage, tool string)
}

// NewPipeline returns a pipeline dispatching to r.
func NewPipeline(r *Registry, o PipelineOptions) *Pipeline {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := o.ResultsDir
	if dir != "" {
		// The <persisted-output> note names the file by this path: make it
		// absolute, so read_file finds it whatever the session's cwd.
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	p := &Pipeline{
		reg:      r,
		hooks:    append([]Hook(nil), o.Hooks...),
		guardCfg: o.Guardrails,
		store: resultStore{dir: dir, session: o.SessionID, preview: DefaultPreviewChars, log: log,
			maxFile: o.MaxSavedFileBytes, maxSession: o.MaxSavedSessionBytes},
		turnBudget: o.TurnBudget,
		maxResult:  o.MaxResultChars,
		maxWorkers: o.MaxWorkers,
		resolve:    o.PathResolver,
		log:        log,
	}
	if p.turnBudget <= 0 {
		p.turnBudget = DefaultTurnBudgetChars
	}
	if p.maxResult <= 0 {
		p.maxResult = DefaultMaxResultChars
	}
	if p.maxWorkers <= 0 {
		p.maxWorkers = DefaultMaxWorkers
	}
	p.fault = faultFromEnv()
	p.store.fault = p.fault
	return p
}

// inject runs the fault hook, if any, at stage of a call of tool.
func (p *Pipeline) inject(stage, tool string) {
	if p.fault != nil {
		p.fault(stage, tool)
	}
}

// NewTurn starts the per-turn state of one user prompt: guardrail counters
// that persist across the model replies (batches) of the turn.
func (p *Pipeline) NewTurn() *Turn {
	return &Turn{p: p, guard: newGuardrails(p.guardCfg)}
}

// Turn holds one prompt turn's guardrail state. Run it from one goroutine at
// a time; the calls of a batch may run concurrently inside [Turn.Run].
type Turn struct {
	p     *Pipeline
	guard *guardrails
}

// RunOptions are the agent's callbacks for one batch.
type RunOptions struct {
	// OnStart is called as each call starts executing, possibly concurrently
	// from worker goroutines. Calls never started (cancelled) get no OnStart.
	OnStart func(call *Call)
	// OnFinish is called as each started call ends, before Run returns. Its
	// Outcome reflects the per-result budget; the per-turn budget is applied
	// after the whole batch, so the slice Run returns is what the model sees.
	OnFinish func(call *Call, out Outcome)
}

// Outcome is the result of one call.
type Outcome struct {
	Result    Result // what the tool returned (after the post-hooks)
	Content   string // the text the model reads: Result encoded, then budgeted
	Failed    bool   // Result.IsError, or the call did not run
	Cancelled bool   // the turn was cancelled before or while the call ran
	Blocked   bool   // a guardrail or a pre-hook refused the call; it did not run
	Persisted bool   // the full result was saved to a file and replaced by a preview
}

// failedOutcome is the outcome of a call that did not run (or stopped).
func failedOutcome(r Result) Outcome {
	return Outcome{Result: r, Content: r.Encode(), Failed: true}
}

// Halted returns the guardrail decision that should end the turn: a block,
// or a halt after one tool kept failing. Only a hard stop produces one.
func (t *Turn) Halted() (GuardrailDecision, bool) { return t.guard.haltDecision() }

// prepared is one call's parsed arguments, or the outcome of a stage before
// the call's own (parsing, path resolution, planning) that panicked.
type prepared struct {
	args   map[string]any
	valid  bool
	failed *Outcome
}

// Run executes one model reply's batch. The calls are planned into segments
// from their entries' facts (see plan); parallel segments run on at most
// MaxWorkers goroutines. Results come back in call order, one per call.
// After the batch the per-turn budget persists the largest results until
// the batch fits (never a pinned tool's, and only where the note is shorter
// than the result: see enforceTurnBudget). When ctx is cancelled, calls not
// yet started are not started and report Cancelled; running handlers see
// ctx cancelled. Every goroutine has ended when Run returns.
//
// A panic anywhere in the pipeline — parsing, path resolution, planning,
// coercion, guardrails, hooks, dispatch, either budget, a parallel worker —
// fails only the call it happened in: it gets hermes's catch-all error
// result ({"error": "Error executing <tool>: <panic>"}), the stack is
// logged, and the rest of the batch and the turn go on. (A panicking
// handler is the registry's own error result, "Tool execution failed:
// Panic: …", and a panicking hook is ignored, as in hermes.)
func (t *Turn) Run(ctx context.Context, calls []*Call, o RunOptions) []Outcome {
	snap := t.p.reg.Snapshot()
	outs := make([]Outcome, len(calls))
	preps := make([]prepared, len(calls))
	facts := make([]planned, len(calls))
	pinned := make([]bool, len(calls))
	for i, c := range calls {
		if c == nil { // a caller bug; answer it like an empty call rather than panic
			calls = slices.Clone(calls)
			c = &Call{}
			calls[i] = c
		}
		if e := snap.entries[c.Name]; e != nil {
			facts[i] = planned{parallelSafe: e.ParallelSafe, pathArg: e.PathArg}
			pinned[i] = e.MaxResultChars < 0
		}
		t.prepare(c, &preps[i], &facts[i])
	}
	var segments []Segment
	switch len(calls) {
	case 0:
	case 1: // the planner's answer for one call, without its setup cost
		segments = []Segment{{Calls: []int{0}}}
	default:
		segments = t.plan(calls, preps, facts)
	}
	for _, seg := range segments {
		if seg.Parallel {
			t.runParallel(ctx, snap, calls, preps, seg.Calls, outs, o)
			continue
		}
		for _, i := range seg.Calls {
			outs[i] = t.runOne(ctx, snap, calls[i], preps[i], o)
		}
	}
	t.p.store.enforceTurnBudget(snap.reader, calls, pinned, outs, t.p.turnBudget)
	return outs
}

// prepare parses a call's arguments into prep and fact; a panic fails the
// call.
func (t *Turn) prepare(c *Call, prep *prepared, fact *planned) {
	defer func() {
		if r := recover(); r != nil {
			out := (&pipelinePanic{value: r, stack: debug.Stack()}).outcome(stageParse, c, t.p.log)
			*prep, fact.args = prepared{failed: &out}, nil
		}
	}()
	t.p.inject(stageParse, c.Name)
	args, err := ParseArgs(c.RawArgs)
	*prep = prepared{args: args, valid: err == nil}
	if err == nil && strings.TrimSpace(c.RawArgs) != "" {
		fact.args = args // the planner treats empty arguments as unparseable, like hermes
	}
}

// plan resolves the path arguments of the path-scoped calls and splits the
// batch into segments. A resolver that panics fails its call (a barrier in
// the plan); a planner that panics fails every call of the batch, which
// then runs none of them, one after another.
func (t *Turn) plan(calls []*Call, preps []prepared, facts []planned) []Segment {
	if resolve := t.p.resolve; resolve != nil {
		for i := range facts {
			p := facts[i].path()
			if p == "" || preps[i].failed != nil {
				continue
			}
			if pp := catchPanic(func() {
				t.p.inject(stageResolve, calls[i].Name)
				if real, ok := resolve(p); ok {
					facts[i].real = real
				}
			}); pp != nil {
				out := pp.outcome(stageResolve, calls[i], t.p.log)
				preps[i].failed, facts[i].args = &out, nil
			}
		}
	}
	var segments []Segment
	pp := catchPanic(func() {
		t.p.inject(stagePlan, calls[0].Name)
		segments = segment(facts)
	})
	if pp == nil {
		return segments
	}
	all := Segment{Calls: make([]int, len(calls))}
	for i := range calls {
		all.Calls[i] = i
		if preps[i].failed == nil {
			out := pp.outcome(stagePlan, calls[i], t.p.log)
			preps[i].failed = &out
		}
	}
	return []Segment{all}
}

// runParallel runs the calls idx concurrently on a bounded set of workers.
func (t *Turn) runParallel(ctx context.Context, snap *Snapshot, calls []*Call, preps []prepared, idx []int, outs []Outcome, o RunOptions) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(t.p.maxWorkers, len(idx)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(idx) {
					return
				}
				i := idx[k]
				outs[i] = t.runWorker(ctx, snap, calls[i], preps[i], o)
			}
		})
	}
	wg.Wait()
}

// runWorker is runOne on a worker goroutine: a panic outside the call's own
// stages fails the call instead of ending the process, and the worker goes
// on with the next call.
func (t *Turn) runWorker(ctx context.Context, snap *Snapshot, call *Call, prep prepared, o RunOptions) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = (&pipelinePanic{value: r, stack: debug.Stack()}).outcome(stageWorker, call, t.p.log)
			t.started(call, o) // runOne did not run: the call never started
			t.finished(call, out, o)
		}
	}()
	t.p.inject(stageWorker, call.Name)
	return t.runOne(ctx, snap, call, prep, o)
}

// runOne runs a single call through the pipeline. Whatever stage of it
// panics, the call ends with the catch-all's error result, after OnStart
// and OnFinish like every call that started.
func (t *Turn) runOne(ctx context.Context, snap *Snapshot, call *Call, prep prepared, o RunOptions) (out Outcome) {
	if ctx.Err() != nil {
		out := failedOutcome(cancelledResult)
		out.Cancelled = true
		return out
	}
	stage, started, finished := stageCoerce, false, false
	defer func() {
		if r := recover(); r != nil {
			out = (&pipelinePanic{value: r, stack: debug.Stack()}).outcome(stage, call, t.p.log)
			if !started {
				t.started(call, o)
			}
			if !finished {
				t.finished(call, out, o)
			}
		}
	}()
	entry := snap.entries[call.Name]
	call.Args = nil
	if prep.valid {
		call.Args = prep.args
		if entry != nil && prep.failed == nil {
			t.p.inject(stageCoerce, call.Name)
			call.Args = coerce(prep.args, entry.Schema, true) // freshly parsed: ours to change
		}
	}
	t.started(call, o)
	started = true
	switch {
	case prep.failed != nil:
		out = *prep.failed
	case prep.valid:
		out = t.execute(ctx, snap, entry, call, &stage)
	default:
		out = failedOutcome(invalidArgsResult)
	}
	finished = true
	t.finished(call, out, o)
	return out
}

// started and finished run the agent's callbacks for call.
func (t *Turn) started(call *Call, o RunOptions) {
	t.callback("OnStart", call, func() {
		if o.OnStart != nil {
			o.OnStart(call)
		}
	})
}

func (t *Turn) finished(call *Call, out Outcome, o RunOptions) {
	t.callback("OnFinish", call, func() {
		if o.OnFinish != nil {
			o.OnFinish(call, out)
		}
	})
}

// execute runs a call with valid arguments: guardrails, pre-hooks,
// dispatch, post-hooks, result budget. It keeps *stage at the stage it is
// in, for the catch-all's log.
func (t *Turn) execute(ctx context.Context, snap *Snapshot, entry *Entry, call *Call, stage *string) Outcome {
	var facts Entry
	if entry != nil {
		facts = *entry
	}
	*stage = stageGuardrails
	t.p.inject(stageGuardrails, call.Name)
	sig := signatureOf(call.Name, call.Args)
	if d := t.guard.before(sig, facts.Idempotent); d.Action == ActionBlock {
		t.p.log.Warn("tool call blocked by guardrail", "tool", call.Name, "code", d.Code, "count", d.Count)
		out := failedOutcome(blockedResult(d))
		out.Blocked = true
		return out
	}
	*stage = stageHooks
	t.p.inject(stageHooks, call.Name)
	if block, msg := runPre(ctx, t.p.hooks, call, t.p.log); block {
		out := failedOutcome(Error(msg))
		out.Blocked = true
		return out
	}
	*stage = stageDispatch
	t.p.inject(stageDispatch, call.Name)
	start := time.Now()
	result, handlerErr := dispatchIn(ctx, snap, call, t.p.log)
	took := time.Since(start)
	cancelled := handlerErr != nil && ctx.Err() != nil
	if cancelled {
		result = cancelledResult
	}
	*stage = stageHooks
	result = runPost(ctx, t.p.hooks, call, result, took, t.p.log)
	if cancelled {
		out := failedOutcome(result)
		out.Cancelled = true
		return out
	}
	*stage = stageBudget
	t.p.inject(stageBudget, call.Name)
	encoded, ok := result.encode()
	if !ok {
		result = Text(encoded, true) // the error JSON encode made: the call failed
		encoded = result.Encode()
	}
	*stage = stageGuardrails
	d := t.guard.after(sig, encoded, result.IsError, facts.Idempotent, facts.Kind)
	*stage = stageBudget
	content, persisted := t.p.store.persist(snap.reader, call.Name, call.ID, encoded, t.threshold(entry))
	return Outcome{Result: result, Content: appendGuidance(content, d), Failed: result.IsError, Persisted: persisted}
}

// threshold resolves a tool's per-result threshold: the entry's value
// (Unlimited pins it), capped at the pipeline default.
func (t *Turn) threshold(entry *Entry) int {
	if entry == nil || entry.MaxResultChars == 0 {
		return t.p.maxResult
	}
	if entry.MaxResultChars < 0 {
		return Unlimited
	}
	return min(entry.MaxResultChars, t.p.maxResult)
}

// callback runs an agent callback, logging instead of crashing on a panic.
func (t *Turn) callback(which string, call *Call, f func()) {
	defer func() {
		if p := recover(); p != nil {
			t.p.log.Error("run callback panicked", "callback", which, "tool", call.Name, "panic", fmt.Sprint(p))
		}
	}()
	f()
}
