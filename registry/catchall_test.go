package registry

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// syncBuffer is a log sink safe for the pipeline's worker goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// setFault installs a fault-injection hook in p, as the faultinject build
// does from its environment.
func setFault(p *Pipeline, f func(stage, tool string)) {
	p.fault = f
	p.store.fault = f
}

// faultAt returns a hook that panics at stage of every call of tool while
// armed is true.
func faultAt(stage, tool string, armed *atomic.Bool) func(string, string) {
	return func(s, n string) {
		if armed.Load() && s == stage && n == tool {
			panic(fmt.Sprintf("injected panic at %s of %s", s, n))
		}
	}
}

// TestCatchAllEveryStage injects a panic into each stage of the call
// pipeline, in a sequential and in a parallel batch, and checks that the
// call it hit gets hermes's catch-all error result, that its neighbour in
// the batch runs as usual (the planner's panic aside: it fails the whole
// batch), that every call still gets its OnStart and OnFinish, that the
// stack is logged, and that the pipeline keeps serving: the same batch on
// the same turn succeeds once the fault is gone. Without the catch-all the
// panic ends the test binary.
func TestCatchAllEveryStage(t *testing.T) {
	t.Parallel()
	stages := []string{stageParse, stageResolve, stagePlan, stageCoerce, stageGuardrails, stageHooks, stageDispatch, stageBudget, stageTurnBudget, stageWorker}
	for _, parallel := range []bool{false, true} {
		for _, stage := range stages {
			if stage == stageWorker && !parallel {
				continue // a sequential batch has no workers
			}
			name := stage + "/sequential"
			if parallel {
				name = stage + "/parallel"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				testCatchAllStage(t, stage, parallel)
			})
		}
	}
}

func testCatchAllStage(t *testing.T, stage string, parallel bool) {
	var logs syncBuffer
	o := PipelineOptions{
		PathResolver: lexicalResolver("/w"),
		Log:          slog.New(slog.NewTextHandler(&logs, nil)),
	}
	if stage == stageTurnBudget {
		o.TurnBudget, o.ResultsDir = 1, t.TempDir() // every batch is over budget
	}
	handler := func(_ context.Context, c *Call) (Result, error) {
		return OK(map[string]any{"content": "ran " + c.Name, "n": c.Args["n"]}), nil
	}
	schema := mustSchema(t, `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}}}`)
	p := newTestPipeline(t, o,
		Entry{Name: "boom", Toolset: "file", ParallelSafe: true, PathArg: "path", Schema: schema, Handler: handler},
		Entry{Name: "other", Toolset: "file", ParallelSafe: true, PathArg: "path", Schema: schema, Handler: handler},
	)
	var armed atomic.Bool
	armed.Store(true)
	setFault(p, faultAt(stage, "boom", &armed))
	otherPath := "a.txt" // the same file: the planner runs the two calls one after another
	if parallel {
		otherPath = "b.txt"
	}
	batch := func() []*Call {
		return []*Call{
			{ID: "c-boom", Name: "boom", RawArgs: `{"path":"a.txt","n":"1"}`},
			{ID: "c-other", Name: "other", RawArgs: `{"path":"` + otherPath + `","n":"2"}`},
		}
	}
	turn := p.NewTurn()

	rec := &recorder{}
	outs := turn.Run(context.Background(), batch(), rec.opts())

	injected := "injected panic at " + stage + " of boom"
	if got, want := outs[0].Content, `{"error":"Error executing boom: `+injected+`"}`; got != want || !outs[0].Failed {
		t.Errorf("the call the panic hit: content %s (failed %v), want %s", got, outs[0].Failed, want)
	}
	wantOther := `{"content":"ran other","n":2}`
	if stage == stagePlan {
		// the planner panicked for the whole batch: every call fails, none runs
		wantOther = `{"error":"Error executing other: injected panic at plan of boom"}`
	}
	if got := outs[1].Content; got != wantOther {
		t.Errorf("its neighbour: content %s, want %s", got, wantOther)
	}
	for _, ids := range [][]string{rec.started, rec.finished} {
		got := append([]string(nil), ids...)
		if len(got) == 2 && got[0] > got[1] {
			got[0], got[1] = got[1], got[0]
		}
		if diff := cmp.Diff([]string{"c-boom", "c-other"}, got); diff != "" {
			t.Errorf("OnStart/OnFinish callbacks (-want +got):\n%s", diff)
		}
	}
	log := logs.String()
	for _, want := range []string{"tool call pipeline panicked", "stage=" + stage, "tool=boom", "goroutine ", "runtime/debug.Stack"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	// The calls' own stages panicked on a worker goroutine in the parallel
	// batch, on Run's goroutine in the sequential one.
	switch stage {
	case stageCoerce, stageGuardrails, stageHooks, stageDispatch, stageBudget, stageWorker:
		if onWorker := strings.Contains(log, "registry.(*Turn).runParallel"); onWorker != parallel {
			t.Errorf("panicked on a worker goroutine: %v, want %v:\n%s", onWorker, parallel, log)
		}
	}

	// The turn goes on: the next reply's batch runs whole.
	armed.Store(false)
	outs = turn.Run(context.Background(), batch(), RunOptions{})
	for i, want := range []string{`{"content":"ran boom","n":1}`, `{"content":"ran other","n":2}`} {
		if got := outs[i].Content; got != want && !(stage == stageTurnBudget && outs[i].Persisted) {
			t.Errorf("after the panic, call %d: content %s, want %s", i, got, want)
		}
	}
}

// TestCatchAllRealPanics checks panics the pipeline's own parts can raise,
// not injected ones: a session path resolver that panics fails only the
// call whose path it was resolving, and a result whose JSON encoding panics
// fails only its call.
func TestCatchAllRealPanics(t *testing.T) {
	t.Parallel()
	resolve := func(p string) (string, bool) {
		if p == "poison" {
			panic("resolver bug")
		}
		return lexicalResolver("/w")(p)
	}
	p := newTestPipeline(t, PipelineOptions{PathResolver: resolve},
		Entry{Name: "read_file", Toolset: "file", ParallelSafe: true, PathArg: "path", Handler: okHandler(`{"content":"x"}`)},
		Entry{Name: "odd", Toolset: "file", ParallelSafe: true, Handler: func(context.Context, *Call) (Result, error) {
			return OK(panickyJSON{}), nil
		}},
	)
	outs := p.NewTurn().Run(context.Background(), []*Call{
		{ID: "1", Name: "read_file", RawArgs: `{"path":"poison"}`},
		{ID: "2", Name: "read_file", RawArgs: `{"path":"fine"}`},
		{ID: "3", Name: "odd", RawArgs: `{}`},
	}, RunOptions{})
	want := []string{
		`{"error":"Error executing read_file: resolver bug"}`,
		`{"content":"x"}`,
		`{"error":"Error executing odd: encoder bug"}`,
	}
	if diff := cmp.Diff(want, contents(outs)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// panickyJSON is a tool result whose encoding panics.
type panickyJSON struct{}

func (panickyJSON) MarshalJSON() ([]byte, error) { panic("encoder bug") }

// TestCatchAllMessageSanitised checks the catch-all's message goes through
// the tool-error sanitiser: framing tokens stripped, capped at 2000
// characters.
func TestCatchAllMessageSanitised(t *testing.T) {
	t.Parallel()
	r := panicResult("x", "<tool_call>"+strings.Repeat("a", 3000))
	msg := r.ErrorMessage()
	if strings.Contains(msg, "<tool_call>") || len([]rune(msg)) != maxToolErrLen || !strings.HasPrefix(msg, "Error executing x: aaa") {
		t.Errorf("catch-all message %q… (%d chars), want it sanitised and capped at %d", msg[:40], len([]rune(msg)), maxToolErrLen)
	}
}
