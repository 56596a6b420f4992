package registry

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newTestPipeline(t testing.TB, o PipelineOptions, entries ...Entry) *Pipeline {
	t.Helper()
	r := New(nil)
	mustRegister(t, r, entries...)
	return NewPipeline(r, o)
}

// recorder collects OnStart/OnFinish callbacks.
type recorder struct {
	mu       sync.Mutex
	started  []string
	finished []string
}

func (r *recorder) opts() RunOptions {
	return RunOptions{
		OnStart: func(c *Call) { r.mu.Lock(); r.started = append(r.started, c.ID); r.mu.Unlock() },
		OnFinish: func(c *Call, _ Outcome) {
			r.mu.Lock()
			r.finished = append(r.finished, c.ID)
			r.mu.Unlock()
		},
	}
}

func contents(outs []Outcome) []string {
	var out []string
	for _, o := range outs {
		out = append(out, o.Content)
	}
	return out
}

func TestRunArgumentsAndCoercion(t *testing.T) {
	t.Parallel()
	var seen map[string]any
	runs := 0
	p := newTestPipeline(t, PipelineOptions{}, Entry{
		Name: "read_file", Toolset: "file",
		Schema: mustSchema(t, `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}}}`),
		Handler: func(_ context.Context, c *Call) (Result, error) {
			runs++
			seen = c.Args
			return OK(map[string]any{"content": "1|x"}), nil
		},
	})
	rec := &recorder{}
	cs := []*Call{
		{ID: "ok", Name: "read_file", RawArgs: `{"path":"a.go","offset":"5","limit":20}`},
		{ID: "bad", Name: "read_file", RawArgs: `{"path":`},
		{ID: "list", Name: "read_file", RawArgs: `["a.go"]`},
		{ID: "empty", Name: "read_file", RawArgs: ` `},
	}
	outs := p.NewTurn().Run(context.Background(), cs, rec.opts())
	if runs != 2 {
		t.Errorf("handler ran %d times, want 2 (invalid arguments are not executed)", runs)
	}
	if diff := cmp.Diff(map[string]any{}, seen); diff != "" {
		t.Errorf("empty arguments reached the handler as (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"path": "a.go", "offset": 5, "limit": 20}, cs[0].Args); diff != "" {
		t.Errorf("coerced Args (-want +got):\n%s", diff)
	}
	if cs[0].RawArgs != `{"path":"a.go","offset":"5","limit":20}` {
		t.Errorf("RawArgs changed: %q", cs[0].RawArgs)
	}
	for _, i := range []int{1, 2} {
		if outs[i].Content != invalidArgsResult.Encode() || !outs[i].Failed || !outs[i].Result.IsError || cs[i].Args != nil {
			t.Errorf("outcome %s = %+v (args %v), want the invalid-arguments error", cs[i].ID, outs[i], cs[i].Args)
		}
	}
	if diff := cmp.Diff([]string{"ok", "bad", "list", "empty"}, rec.started); diff != "" {
		t.Errorf("OnStart order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rec.started, rec.finished); diff != "" {
		t.Errorf("OnFinish calls differ from OnStart (-start +finish):\n%s", diff)
	}
}

// TestRunSessionBoundTools checks the agent's own tools (todo, memory):
// declared without a handler and bound by the session, they get coerced
// arguments and go through the pipeline like any tool; one the session
// did not bind gives an error result, and a bound handler that panics gives
// the tool-failure result, never a crash.
func TestRunSessionBoundTools(t *testing.T) {
	t.Parallel()
	base := New(nil)
	todo := Entry{Name: "todo", Toolset: "todo", Kind: KindThink, Schema: mustSchema(t, `{"type":"object","properties":{"merge":{"type":"boolean"}}}`)}
	memory := Entry{Name: "memory", Toolset: "memory"}
	if err := base.RegisterAll(todo, memory, Entry{Name: "terminal", Toolset: "terminal", Handler: okHandler(`{"exit_code":0}`)}); err != nil {
		t.Fatal(err)
	}
	session := base.Clone()
	var todoArgs map[string]any
	todo.Handler = func(_ context.Context, c *Call) (Result, error) {
		todoArgs = c.Args
		return OK(map[string]any{"todos": []any{}, "summary": map[string]any{}}), nil
	}
	explode := Entry{Name: "explode", Toolset: "todo", Handler: func(context.Context, *Call) (Result, error) { panic("agent bug") }}
	if err := session.RegisterAll(todo, explode); err != nil {
		t.Fatal(err)
	}
	outs := NewPipeline(session, PipelineOptions{}).NewTurn().Run(context.Background(), []*Call{
		{ID: "1", Name: "todo", RawArgs: `{"merge":"true"}`},
		{ID: "2", Name: "memory", RawArgs: `{}`},
		{ID: "3", Name: "terminal", RawArgs: `{}`},
		{ID: "4", Name: "explode", RawArgs: `{}`},
	}, RunOptions{})
	want := []string{
		`{"summary":{},"todos":[]}`,
		`{"error":"memory is not enabled in this session; nothing was run"}`,
		`{"exit_code":0}`,
		`{"error":"Tool execution failed: Panic: agent bug"}`,
	}
	if diff := cmp.Diff(want, contents(outs)); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	var failed []bool
	for _, o := range outs {
		failed = append(failed, o.Failed)
	}
	if diff := cmp.Diff([]bool{false, true, false, true}, failed); diff != "" {
		t.Errorf("Failed flags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"merge": true}, todoArgs); diff != "" {
		t.Errorf("the bound todo saw uncoerced args (-want +got):\n%s", diff)
	}
}

// TestRunOutcomeResult checks the outcome carries the tool's typed result,
// structured data included, as the post-hooks left it, beside the text the
// model reads.
func TestRunOutcomeResult(t *testing.T) {
	t.Parallel()
	type lint struct{ Status, Output string }
	p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "write_file", Toolset: "file", Kind: KindEdit, PathArg: "path",
		Handler: func(context.Context, *Call) (Result, error) {
			return Result{Value: map[string]any{"bytes_written": 3, "path": "<a&b>.go"}, Data: lint{"error", "x.go:1: syntax"}}, nil
		}})
	var finished Outcome
	out := p.NewTurn().Run(context.Background(), []*Call{{ID: "w", Name: "write_file", RawArgs: `{"path":"<a&b>.go"}`}},
		RunOptions{OnFinish: func(_ *Call, o Outcome) { finished = o }})[0]
	if out.Content != `{"bytes_written":3,"path":"<a&b>.go"}` || out.Failed {
		t.Errorf("outcome = %+v, want the encoded value, not failed", out)
	}
	if diff := cmp.Diff(lint{"error", "x.go:1: syntax"}, out.Result.Data); diff != "" {
		t.Errorf("Result.Data (-want +got):\n%s", diff)
	}
	if finished.Content != out.Content || finished.Result.Data == nil {
		t.Errorf("OnFinish outcome = %+v, want the same result", finished)
	}
}

type testHook struct {
	mu        sync.Mutex
	pre, post []string
	took      []time.Duration
	block     string // tool name to block
	panicPre  bool
	panicPost bool
	transform string // replacement result, if any
}

func (h *testHook) Pre(_ context.Context, c *Call) (bool, string) {
	h.mu.Lock()
	h.pre = append(h.pre, c.Name)
	h.mu.Unlock()
	if h.panicPre {
		panic("pre hook bug")
	}
	if c.Name == h.block {
		return true, "Blocked by policy: " + c.Name
	}
	return false, ""
}

func (h *testHook) Post(_ context.Context, c *Call, result Result, took time.Duration) {
	h.mu.Lock()
	h.post = append(h.post, c.Name+"="+result.Encode())
	h.took = append(h.took, took)
	h.mu.Unlock()
	if h.panicPost {
		panic("post hook bug")
	}
}

type transformHook struct {
	testHook
	replacement Result
	ok          bool
}

func (h *transformHook) Transform(context.Context, *Call, Result) (Result, bool) {
	return h.replacement, h.ok
}

func TestRunHooks(t *testing.T) {
	t.Parallel()
	ran := map[string]int{}
	var mu sync.Mutex
	handler := func(_ context.Context, c *Call) (Result, error) {
		mu.Lock()
		ran[c.Name]++
		mu.Unlock()
		return OK(map[string]string{"tool": c.Name}), nil
	}
	entries := []Entry{{Name: "a", Toolset: "t", Handler: handler}, {Name: "b", Toolset: "t", Handler: handler}}

	t.Run("block and observe", func(t *testing.T) {
		h := &testHook{block: "b"}
		p := newTestPipeline(t, PipelineOptions{Hooks: []Hook{h}}, entries...)
		outs := p.NewTurn().Run(context.Background(), []*Call{{Name: "a"}, {Name: "b"}}, RunOptions{})
		if diff := cmp.Diff([]string{`{"tool":"a"}`, `{"error":"Blocked by policy: b"}`}, contents(outs)); diff != "" {
			t.Errorf("contents (-want +got):\n%s", diff)
		}
		if !outs[1].Blocked || outs[0].Blocked {
			t.Errorf("Blocked flags = %v %v, want false true", outs[0].Blocked, outs[1].Blocked)
		}
		if ran["b"] != 0 {
			t.Errorf("blocked tool ran %d times", ran["b"])
		}
		if diff := cmp.Diff([]string{`a={"tool":"a"}`}, h.post); diff != "" {
			t.Errorf("post hook saw (-want +got):\n%s", diff)
		}
		if len(h.took) != 1 || h.took[0] < 0 {
			t.Errorf("post hook durations = %v", h.took)
		}
	})
	t.Run("panicking hooks never break the call", func(t *testing.T) {
		h := &testHook{panicPre: true, panicPost: true}
		p := newTestPipeline(t, PipelineOptions{Hooks: []Hook{h}}, entries...)
		out := p.NewTurn().Run(context.Background(), []*Call{{Name: "a"}}, RunOptions{})[0]
		if out.Content != `{"tool":"a"}` || out.Blocked {
			t.Errorf("outcome with panicking hooks = %+v", out)
		}
	})
	t.Run("first accepting transformer wins", func(t *testing.T) {
		decline := &transformHook{}
		first := &transformHook{replacement: Failed(map[string]int{"rewritten": 1}), ok: true}
		second := &transformHook{replacement: OK(map[string]int{"rewritten": 2}), ok: true}
		p := newTestPipeline(t, PipelineOptions{Hooks: []Hook{decline, first, second, HookFuncs{}}}, entries...)
		out := p.NewTurn().Run(context.Background(), []*Call{{Name: "a"}}, RunOptions{})[0]
		if out.Content != `{"rewritten":1}` || !out.Failed || !out.Result.IsError {
			t.Errorf("transformed outcome = %+v, want the first replacement, failed as it says", out)
		}
		if len(second.post) != 1 {
			t.Errorf("every hook's Post must run before transforms; second saw %v", second.post)
		}
	})
	t.Run("guardrail block happens before pre-hooks", func(t *testing.T) {
		h := &testHook{}
		fail := Entry{Name: "web_search", Toolset: "web", Handler: errHandler("x")}
		p := newTestPipeline(t, PipelineOptions{Hooks: []Hook{h}, Guardrails: GuardrailConfig{HardStop: true, ExactFailureBlockAfter: 1}}, fail)
		turn := p.NewTurn()
		turn.Run(context.Background(), []*Call{{Name: "web_search"}}, RunOptions{})
		out := turn.Run(context.Background(), []*Call{{Name: "web_search"}}, RunOptions{})[0]
		if !out.Blocked || len(h.pre) != 1 {
			t.Errorf("second call blocked=%v, pre-hook calls=%d; want blocked before the hook", out.Blocked, len(h.pre))
		}
	})
}

func TestRunParallelSegments(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// Each parallel call waits until both have started: run one after the
		// other they would deadlock, which synctest reports.
		var started sync.WaitGroup
		started.Add(2)
		var order []string
		var mu sync.Mutex
		handler := func(_ context.Context, c *Call) (Result, error) {
			if c.Name == "web_search" {
				started.Done()
				started.Wait()
			}
			mu.Lock()
			order = append(order, c.ID)
			mu.Unlock()
			return OK(map[string]string{"id": c.ID}), nil
		}
		p := newTestPipeline(t, PipelineOptions{},
			Entry{Name: "web_search", Toolset: "web", ParallelSafe: true, Handler: handler},
			Entry{Name: "terminal", Toolset: "terminal", Kind: KindExecute, Handler: handler})
		outs := p.NewTurn().Run(context.Background(), []*Call{
			{ID: "s1", Name: "web_search", RawArgs: `{"query":"a"}`},
			{ID: "s2", Name: "web_search", RawArgs: `{"query":"b"}`},
			{ID: "t", Name: "terminal", RawArgs: `{"command":"ls"}`},
		}, RunOptions{})
		if diff := cmp.Diff([]string{`{"id":"s1"}`, `{"id":"s2"}`, `{"id":"t"}`}, contents(outs)); diff != "" {
			t.Errorf("results not in call order (-want +got):\n%s", diff)
		}
		if order[2] != "t" {
			t.Errorf("terminal ran before the parallel segment finished: %v", order)
		}
	})
}

func TestRunMaxWorkers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var running, peak, done atomic.Int32
		handler := func(context.Context, *Call) (Result, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			done.Add(1)
			return OK(struct{}{}), nil
		}
		p := newTestPipeline(t, PipelineOptions{MaxWorkers: 2},
			Entry{Name: "mcp_srv_get", Toolset: "mcp-srv", Handler: handler, ParallelSafe: true})
		var cs []*Call
		for i := range 5 {
			cs = append(cs, &Call{ID: string(rune('a' + i)), Name: "mcp_srv_get", RawArgs: "{}"})
		}
		result := make(chan []Outcome)
		go func() { result <- p.NewTurn().Run(context.Background(), cs, RunOptions{}) }()
		synctest.Wait()
		if got := running.Load(); got != 2 {
			t.Errorf("running handlers = %d, want MaxWorkers = 2", got)
		}
		close(release)
		outs := <-result
		if len(outs) != 5 || done.Load() != 5 || peak.Load() != 2 {
			t.Errorf("outcomes %d, handlers done %d, peak concurrency %d; want 5, 5, 2", len(outs), done.Load(), peak.Load())
		}
	})
}

func TestRunCancellation(t *testing.T) {
	t.Parallel()
	t.Run("cancelled before the batch", func(t *testing.T) {
		t.Parallel()
		runs := 0
		p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "terminal", Toolset: "t", Handler: func(context.Context, *Call) (Result, error) {
			runs++
			return OK(struct{}{}), nil
		}})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := &recorder{}
		outs := p.NewTurn().Run(ctx, []*Call{{ID: "a", Name: "terminal"}, {ID: "b", Name: "terminal"}}, rec.opts())
		for _, o := range outs {
			if !o.Cancelled || !o.Failed || o.Content != `{"error":"Tool execution cancelled by user interrupt","status":"cancelled"}` {
				t.Errorf("outcome = %+v, want cancelled", o)
			}
		}
		if runs != 0 || len(rec.started) != 0 || len(rec.finished) != 0 {
			t.Errorf("runs=%d started=%v finished=%v, want nothing started", runs, rec.started, rec.finished)
		}
	})
	t.Run("cancelled mid batch", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p := newTestPipeline(t, PipelineOptions{},
			Entry{Name: "terminal", Toolset: "t", Handler: func(context.Context, *Call) (Result, error) {
				cancel() // the user presses stop while this command finishes
				return OK(map[string]int{"exit_code": 0}), nil
			}},
			Entry{Name: "wait", Toolset: "t", Handler: func(ctx context.Context, c *Call) (Result, error) {
				<-ctx.Done()
				return Result{}, ctx.Err()
			}})
		rec := &recorder{}
		outs := p.NewTurn().Run(ctx, []*Call{{ID: "a", Name: "terminal"}, {ID: "b", Name: "terminal"}}, rec.opts())
		if outs[0].Cancelled || outs[0].Content != `{"exit_code":0}` {
			t.Errorf("finished call = %+v, want its own result", outs[0])
		}
		if !outs[1].Cancelled {
			t.Errorf("unstarted call = %+v, want cancelled", outs[1])
		}
		if diff := cmp.Diff([]string{"a"}, rec.finished); diff != "" {
			t.Errorf("OnFinish (-want +got):\n%s", diff)
		}
	})
	t.Run("running handlers see the cancellation and are joined", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			var exited atomic.Int32
			wait := func(ctx context.Context, c *Call) (Result, error) {
				defer exited.Add(1)
				<-ctx.Done()
				return Result{}, ctx.Err()
			}
			p := newTestPipeline(t, PipelineOptions{},
				Entry{Name: "mcp_a_wait", Toolset: "mcp-a", Handler: wait, ParallelSafe: true})
			ctx, cancel := context.WithCancel(context.Background())
			rec := &recorder{}
			cs := []*Call{{ID: "1", Name: "mcp_a_wait"}, {ID: "2", Name: "mcp_a_wait"}, {ID: "3", Name: "mcp_a_wait"}}
			for _, c := range cs {
				c.RawArgs = "{}"
			}
			result := make(chan []Outcome)
			go func() { result <- p.NewTurn().Run(ctx, cs, rec.opts()) }()
			synctest.Wait()
			cancel()
			outs := <-result
			if exited.Load() != 3 {
				t.Errorf("%d handlers exited before Run returned, want 3", exited.Load())
			}
			for i, o := range outs {
				if !o.Cancelled || !o.Failed || o.Content != cancelledResult.Encode() {
					t.Errorf("outcome %d = %+v, want cancelled", i, o)
				}
			}
			slices.Sort(rec.finished)
			if diff := cmp.Diff([]string{"1", "2", "3"}, rec.finished); diff != "" {
				t.Errorf("OnFinish (-want +got):\n%s", diff)
			}
		})
	})
}

// readerEntry is the test stand-in for read_file: it reads saved results
// back, and its own results are pinned (never saved) so that reading a saved
// result never saves it again.
func readerEntry(name string, h Handler) Entry {
	return Entry{Name: name, Toolset: "file", Kind: KindRead, ReadOnly: true, Idempotent: true, ParallelSafe: true,
		PathArg: "path", ReadsSavedResults: true, MaxResultChars: Unlimited, Handler: h}
}

func TestRunResultBudget(t *testing.T) {
	t.Parallel()
	big := func(n int) Handler {
		return func(context.Context, *Call) (Result, error) { return Text(strings.Repeat("x", n), false), nil }
	}
	dir := t.TempDir()
	p := newTestPipeline(t, PipelineOptions{ResultsDir: dir},
		readerEntry("read_file", big(150_000)),
		Entry{Name: "terminal", Toolset: "terminal", Handler: big(100_001)},
		Entry{Name: "small_cap", Toolset: "t", Handler: big(3_001), MaxResultChars: 3_000},
		Entry{Name: "huge_cap", Toolset: "t", Handler: big(120_000), MaxResultChars: 500_000},
		Entry{Name: "unlimited", Toolset: "t", Handler: big(120_000), MaxResultChars: Unlimited},
		Entry{Name: "fits", Toolset: "t", Handler: big(100_000)},
		Entry{Name: "mid", Toolset: "t", Handler: big(90_000)},
	)
	run := func(name string) Outcome {
		return p.NewTurn().Run(context.Background(), []*Call{{ID: "id_" + name, Name: name}}, RunOptions{})[0]
	}
	for _, tc := range []struct {
		tool          string
		wantPersisted bool
	}{
		{"read_file", false},
		{"terminal", true},
		{"small_cap", true},
		{"huge_cap", true}, // capped at the 100K default
		{"unlimited", false},
		{"fits", false},
	} {
		out := run(tc.tool)
		if out.Persisted != tc.wantPersisted || strings.HasPrefix(out.Content, persistedOutputTag) != tc.wantPersisted {
			t.Errorf("%s: persisted=%v (content %.40q), want %v", tc.tool, out.Persisted, out.Content, tc.wantPersisted)
		}
		if tc.wantPersisted {
			if m, _ := filepath.Glob(filepath.Join(dir, "id_"+tc.tool+"_*.txt")); len(m) != 1 {
				t.Errorf("%s: result files %v, want one id_%s_<random>.txt", tc.tool, m, tc.tool)
			}
			if !strings.Contains(out.Content, "\nUse the read_file tool with offset and limit") {
				t.Errorf("%s: note %.300q does not name the reader tool", tc.tool, out.Content)
			}
		}
	}

	t.Run("turn budget spills the largest but never read_file", func(t *testing.T) {
		outs := p.NewTurn().Run(context.Background(), []*Call{
			{ID: "m1", Name: "mid"}, {ID: "r1", Name: "read_file"}, {ID: "f1", Name: "fits"},
		}, RunOptions{})
		got := []bool{outs[0].Persisted, outs[1].Persisted, outs[2].Persisted}
		if diff := cmp.Diff([]bool{true, false, true}, got); diff != "" {
			t.Errorf("persisted flags for 90K, 150K read, 100K (-want +got):\n%s", diff)
		}
		total := 0
		for _, o := range outs {
			total += len(o.Content)
		}
		if total > DefaultTurnBudgetChars {
			t.Errorf("batch total %d exceeds the turn budget", total)
		}
	})

	t.Run("turn budget never saves an Unlimited tool's result", func(t *testing.T) {
		outs := p.NewTurn().Run(context.Background(), []*Call{{ID: "u1", Name: "unlimited"}, {ID: "f2", Name: "fits"}}, RunOptions{})
		if outs[0].Persisted || !outs[1].Persisted {
			t.Errorf("persisted flags for 120K unlimited, 100K = %v, %v; want false, true", outs[0].Persisted, outs[1].Persisted)
		}
	})

	t.Run("loop warning stays visible after persistence", func(t *testing.T) {
		p := newTestPipeline(t, PipelineOptions{ResultsDir: t.TempDir(), MaxResultChars: 10},
			readerEntry("read_file", okHandler("")),
			Entry{Name: "web_search", Toolset: "web", Handler: errHandler("quota exceeded, please retry later" + strings.Repeat(".", 3000))})
		turn := p.NewTurn()
		turn.Run(context.Background(), []*Call{{ID: "1", Name: "web_search"}}, RunOptions{})
		out := turn.Run(context.Background(), []*Call{{ID: "2", Name: "web_search"}}, RunOptions{})[0]
		if !out.Persisted || !out.Failed || !strings.HasSuffix(out.Content, "instead of retrying it unchanged.]") {
			t.Errorf("content = %q, want the persisted block followed by the warning", out.Content)
		}
	})
}

// TestRunSavedResultReader checks the budget's note names the tool that
// reads saved results, whatever it is called, and that without such a
// tool nothing is saved: the result is truncated inline, where the model
// reads it, by the per-result and by the per-turn budget.
func TestRunSavedResultReader(t *testing.T) {
	t.Parallel()
	big := func(n int) Handler {
		return func(context.Context, *Call) (Result, error) { return Text(strings.Repeat("line\n", n/5), false), nil }
	}
	ctx := context.Background()
	t.Run("the note names the reader", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		p := newTestPipeline(t, PipelineOptions{ResultsDir: dir},
			readerEntry("open_result", okHandler("")), Entry{Name: "terminal", Toolset: "terminal", Handler: big(150_000)})
		out := p.NewTurn().Run(ctx, []*Call{{ID: "c1", Name: "terminal"}}, RunOptions{})[0]
		if !out.Persisted || !strings.Contains(out.Content, "\nUse the open_result tool with offset and limit to access specific sections of this output.\n") {
			t.Errorf("note = %.400q, want it saved and naming open_result", out.Content)
		}
		if strings.Contains(out.Content, "read_file") {
			t.Errorf("note names read_file, which this session does not have: %.400q", out.Content)
		}
		path := savedPath(out.Content)
		if _, ok := p.SavedResult(path); !ok {
			t.Errorf("SavedResult(%q) = false for the file the note names", path)
		}
	})
	for _, tc := range []struct {
		name  string
		calls []*Call
		turn  int
	}{
		{"no reader: the per-result budget truncates inline", []*Call{{ID: "c1", Name: "terminal"}}, 0},
		{"no reader: the turn budget truncates inline", []*Call{{ID: "c1", Name: "medium"}, {ID: "c2", Name: "medium"}}, 100_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "results")
			p := newTestPipeline(t, PipelineOptions{ResultsDir: dir, TurnBudget: tc.turn},
				Entry{Name: "read_file", Toolset: "file", PathArg: "path", MaxResultChars: Unlimited, Handler: okHandler("")}, // reads files, not saved results
				Entry{Name: "terminal", Toolset: "terminal", Handler: big(150_000)},
				Entry{Name: "medium", Toolset: "t", Handler: big(60_000)})
			outs := p.NewTurn().Run(ctx, tc.calls, RunOptions{})
			truncated := 0
			for i, out := range outs {
				if out.Persisted || strings.Contains(out.Content, persistedOutputTag) {
					t.Errorf("outcome %d saved with no reader: %.300q", i, out.Content)
				}
				if strings.Contains(out.Content, "\n\n[Truncated: tool response was ") && len(out.Content) < 3_000 {
					truncated++
				}
			}
			if truncated != 1 {
				t.Errorf("%d outcomes truncated inline, want 1: %.200q", truncated, contents(outs))
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("results dir exists (%v): nothing should be written without a reader", err)
			}
		})
	}
	t.Run("removing the reader stops saving", func(t *testing.T) {
		t.Parallel()
		r := New(nil)
		mustRegister(t, r, readerEntry("read_file", okHandler("")), Entry{Name: "terminal", Toolset: "terminal", Handler: big(150_000)})
		p := NewPipeline(r, PipelineOptions{ResultsDir: t.TempDir()})
		if out := p.NewTurn().Run(ctx, []*Call{{ID: "c1", Name: "terminal"}}, RunOptions{})[0]; !out.Persisted {
			t.Fatalf("not saved with a reader: %.200q", out.Content)
		}
		r.Deregister("read_file")
		if out := p.NewTurn().Run(ctx, []*Call{{ID: "c2", Name: "terminal"}}, RunOptions{})[0]; out.Persisted || !strings.Contains(out.Content, "[Truncated:") {
			t.Errorf("after the reader went: %.200q (persisted %v), want inline truncation", out.Content, out.Persisted)
		}
	})
}

func TestRunEmptyBatch(t *testing.T) {
	t.Parallel()
	p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "known", Toolset: "t"})
	if outs := p.NewTurn().Run(context.Background(), nil, RunOptions{}); len(outs) != 0 {
		t.Errorf("Run(no calls) = %v, want no outcomes", outs)
	}
	batch := []*Call{nil, {Name: "known"}}
	outs := p.NewTurn().Run(context.Background(), batch, RunOptions{})
	if len(outs) != 2 || !strings.HasPrefix(outs[0].Content, `{"error":"Unknown tool: "`) || outs[1].Content != `{"ok":true}` || batch[0] != nil {
		t.Errorf("Run with a nil call = %+v (batch %v), want an error for it, the other call run, and the slice untouched", outs, batch)
	}
}

func TestRunUnknownTool(t *testing.T) {
	t.Parallel()
	p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "known", Toolset: "t"})
	out := p.NewTurn().Run(context.Background(), []*Call{{Name: "nope", RawArgs: `{"a":"1"}`}}, RunOptions{})[0]
	if out.Content != `{"error":"Unknown tool: nope","available_tools":["known"]}` || !out.Failed {
		t.Errorf("unknown tool outcome = %+v", out)
	}
}
