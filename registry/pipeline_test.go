package registry

import (
	"context"
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
		Handler: func(_ context.Context, c *Call) (string, error) {
			runs++
			seen = c.Args
			return `{"content":"1|x"}`, nil
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
		if outs[i].Content != invalidArgsResult || !outs[i].Failed || cs[i].Args != nil {
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

func TestRunInterceptAndAgentLoopTools(t *testing.T) {
	t.Parallel()
	p := newTestPipeline(t, PipelineOptions{},
		Entry{Name: "todo", Toolset: "todo", Schema: mustSchema(t, `{"type":"object","properties":{"merge":{"type":"boolean"}}}`)},
		Entry{Name: "memory", Toolset: "memory"},
		Entry{Name: "terminal", Toolset: "terminal", Handler: okHandler(`{"exit_code":0}`)},
	)
	var interceptedArgs map[string]any
	o := RunOptions{Intercept: func(_ context.Context, c *Call) (string, bool) {
		switch c.Name {
		case "todo":
			interceptedArgs = c.Args
			return `{"todos":[],"summary":{}}`, true
		case "terminal":
			if c.ID == "explode" {
				panic("agent bug")
			}
		}
		return "", false
	}}
	outs := p.NewTurn().Run(context.Background(), []*Call{
		{ID: "1", Name: "todo", RawArgs: `{"merge":"true"}`},
		{ID: "2", Name: "memory", RawArgs: `{}`},
		{ID: "3", Name: "terminal", RawArgs: `{}`},
		{ID: "explode", Name: "terminal", RawArgs: `{}`},
	}, o)
	want := []string{
		`{"todos":[],"summary":{}}`,
		`{"error":"memory must be handled by the agent loop"}`,
		`{"exit_code":0}`,
		`{"error":"Tool execution failed: Panic: agent bug"}`,
	}
	if diff := cmp.Diff(want, contents(outs)); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"merge": true}, interceptedArgs); diff != "" {
		t.Errorf("Intercept saw uncoerced args (-want +got):\n%s", diff)
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

func (h *testHook) Post(_ context.Context, c *Call, result string, took time.Duration) {
	h.mu.Lock()
	h.post = append(h.post, c.Name+"="+result)
	h.took = append(h.took, took)
	h.mu.Unlock()
	if h.panicPost {
		panic("post hook bug")
	}
}

type transformHook struct {
	testHook
	replacement string
	ok          bool
}

func (h *transformHook) Transform(context.Context, *Call, string) (string, bool) {
	return h.replacement, h.ok
}

func TestRunHooks(t *testing.T) {
	t.Parallel()
	ran := map[string]int{}
	var mu sync.Mutex
	handler := func(_ context.Context, c *Call) (string, error) {
		mu.Lock()
		ran[c.Name]++
		mu.Unlock()
		return `{"tool":"` + c.Name + `"}`, nil
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
		first := &transformHook{replacement: `{"rewritten":1}`, ok: true}
		second := &transformHook{replacement: `{"rewritten":2}`, ok: true}
		p := newTestPipeline(t, PipelineOptions{Hooks: []Hook{decline, first, second, HookFuncs{}}}, entries...)
		out := p.NewTurn().Run(context.Background(), []*Call{{Name: "a"}}, RunOptions{})[0]
		if out.Content != `{"rewritten":1}` {
			t.Errorf("transformed content = %q", out.Content)
		}
		if len(second.post) != 1 {
			t.Errorf("every hook's Post must run before transforms; second saw %v", second.post)
		}
	})
	t.Run("guardrail block happens before pre-hooks", func(t *testing.T) {
		h := &testHook{}
		fail := Entry{Name: "web_search", Toolset: "web", Handler: okHandler(`{"error":"x"}`)}
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
		handler := func(_ context.Context, c *Call) (string, error) {
			if c.Name == "web_search" {
				started.Done()
				started.Wait()
			}
			mu.Lock()
			order = append(order, c.ID)
			mu.Unlock()
			return `{"id":"` + c.ID + `"}`, nil
		}
		p := newTestPipeline(t, PipelineOptions{},
			Entry{Name: "web_search", Toolset: "web", Handler: handler},
			Entry{Name: "terminal", Toolset: "terminal", Handler: handler})
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
		handler := func(context.Context, *Call) (string, error) {
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
			return `{}`, nil
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
		p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "terminal", Toolset: "t", Handler: func(context.Context, *Call) (string, error) {
			runs++
			return "{}", nil
		}})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := &recorder{}
		outs := p.NewTurn().Run(ctx, []*Call{{ID: "a", Name: "terminal"}, {ID: "b", Name: "terminal"}}, rec.opts())
		for _, o := range outs {
			if !o.Cancelled || o.Content != `{"error":"Tool execution cancelled by user interrupt","status":"cancelled"}` {
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
			Entry{Name: "terminal", Toolset: "t", Handler: func(context.Context, *Call) (string, error) {
				cancel() // the user presses stop while this command finishes
				return `{"exit_code":0}`, nil
			}},
			Entry{Name: "wait", Toolset: "t", Handler: func(ctx context.Context, c *Call) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
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
			wait := func(ctx context.Context, c *Call) (string, error) {
				defer exited.Add(1)
				<-ctx.Done()
				return "", ctx.Err()
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
				if !o.Cancelled || o.Content != cancelledResult {
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

func TestRunResultBudget(t *testing.T) {
	t.Parallel()
	big := func(n int) Handler {
		return func(context.Context, *Call) (string, error) { return strings.Repeat("x", n), nil }
	}
	dir := t.TempDir()
	p := newTestPipeline(t, PipelineOptions{ResultsDir: dir},
		Entry{Name: "read_file", Toolset: "file", Handler: big(150_000)},
		Entry{Name: "terminal", Toolset: "terminal", Handler: big(100_001)},
		Entry{Name: "small_cap", Toolset: "t", Handler: big(3_001), MaxResultChars: 3_000},
		Entry{Name: "huge_cap", Toolset: "t", Handler: big(120_000), MaxResultChars: 500_000},
		Entry{Name: "unlimited", Toolset: "t", Handler: big(120_000), MaxResultChars: Unlimited},
		Entry{Name: "fits", Toolset: "t", Handler: big(100_000)},
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
		}
	}

	t.Run("turn budget spills the largest but never read_file", func(t *testing.T) {
		outs := p.NewTurn().Run(context.Background(), []*Call{
			{ID: "u1", Name: "unlimited"}, {ID: "r1", Name: "read_file"}, {ID: "f1", Name: "fits"},
		}, RunOptions{})
		got := []bool{outs[0].Persisted, outs[1].Persisted, outs[2].Persisted}
		if diff := cmp.Diff([]bool{true, false, true}, got); diff != "" {
			t.Errorf("persisted flags for 120K, 150K, 100K (-want +got):\n%s", diff)
		}
		total := 0
		for _, o := range outs {
			total += len(o.Content)
		}
		if total > DefaultTurnBudgetChars {
			t.Errorf("batch total %d exceeds the turn budget", total)
		}
	})

	t.Run("loop warning stays visible after persistence", func(t *testing.T) {
		p := newTestPipeline(t, PipelineOptions{ResultsDir: t.TempDir(), MaxResultChars: 10},
			Entry{Name: "web_search", Toolset: "web", Handler: okHandler(`{"error":"quota exceeded, please retry later` + strings.Repeat(".", 3000) + `"}`)})
		turn := p.NewTurn()
		turn.Run(context.Background(), []*Call{{ID: "1", Name: "web_search"}}, RunOptions{})
		out := turn.Run(context.Background(), []*Call{{ID: "2", Name: "web_search"}}, RunOptions{})[0]
		if !out.Persisted || !strings.HasSuffix(out.Content, "instead of retrying it unchanged.]") {
			t.Errorf("content = %q, want the persisted block followed by the warning", out.Content)
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
