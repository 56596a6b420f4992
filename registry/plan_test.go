package registry

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func calls(specs ...[2]string) []*Call {
	out := make([]*Call, len(specs))
	for i, s := range specs {
		out[i] = &Call{ID: "c" + string(rune('0'+i)), Name: s[0], RawArgs: s[1]}
	}
	return out
}

// plan is the planner as [Turn.plan] drives it when nothing panics: the
// path arguments resolved, then the batch segmented.
func plan(calls []planned, resolve PathResolver) []Segment {
	for i, c := range calls {
		if p := c.path(); p != "" && resolve != nil {
			if real, ok := resolve(p); ok {
				calls[i].real = real
			}
		}
	}
	return segment(calls)
}

func par(idx ...int) Segment { return Segment{Parallel: true, Calls: idx} }
func seq(idx ...int) Segment { return Segment{Calls: idx} }

// planTools are test entries with the facts of hermes's tools that the
// planner's old name tables held: web_search is parallel-safe, read_file is
// parallel-safe and path-scoped, write_file and patch are path-scoped,
// terminal and clarify are neither (barriers).
var planTools = []Entry{
	{Name: "web_search", Toolset: "web", ParallelSafe: true},
	{Name: "read_file", Toolset: "file", ParallelSafe: true, PathArg: "path"},
	{Name: "write_file", Toolset: "file", PathArg: "path"},
	{Name: "patch", Toolset: "file", PathArg: "path"},
	{Name: "terminal", Toolset: "terminal"},
	{Name: "clarify", Toolset: "clarify"},
}

// plannedOf returns what the pipeline tells the planner about calls: each
// registered tool's facts (an unknown tool has none) and the arguments,
// nil when they are empty or not a JSON object.
func plannedOf(t *testing.T, r *Registry, cs []*Call) []planned {
	t.Helper()
	snap := r.Snapshot()
	out := make([]planned, len(cs))
	for i, c := range cs {
		if e, ok := snap.Lookup(c.Name); ok {
			out[i] = planned{parallelSafe: e.ParallelSafe, pathArg: e.PathArg}
		}
		if args, err := ParseArgs(c.RawArgs); err == nil && strings.TrimSpace(c.RawArgs) != "" {
			out[i].args = args
		}
	}
	return out
}

// lexicalResolver resolves paths lexically against root, as a session
// whose workspace is root and that has no symbolic links would.
func lexicalResolver(root string) PathResolver {
	return func(p string) (string, bool) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		return filepath.Clean(p), true
	}
}

// checkPlan compares a plan with want and checks it covers every call
// once, in emission order.
func checkPlan(t *testing.T, n int, want, got []Segment) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	var order []int
	for _, s := range got {
		order = append(order, s.Calls...)
	}
	for i, idx := range order {
		if i != idx {
			t.Fatalf("plan order = %v, want emission order", order)
		}
	}
	if len(order) != n {
		t.Fatalf("plan covered %d calls, want %d", len(order), n)
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	r := New(nil)
	mustRegister(t, r, planTools...)
	ws := [2]string{"web_search", `{"query":"q"}`}
	term := [2]string{"terminal", `{"command":"ls"}`}
	for _, tc := range []struct {
		name  string
		calls []*Call
		want  []Segment
	}{
		{"safe run then barrier",
			calls(ws, ws, [2]string{"read_file", `{"path":"a.py"}`}, term),
			[]Segment{par(0, 1, 2), seq(3)}},
		{"barrier in the middle",
			calls(ws, ws, term, ws, ws),
			[]Segment{par(0, 1), seq(2), par(3, 4)}},
		{"single safe call after a barrier merges into it",
			calls(term, ws),
			[]Segment{seq(0, 1)}},
		{"single safe call before a barrier merges into it",
			calls(ws, term),
			[]Segment{seq(0, 1)}},
		{"adjacent barriers merge",
			calls(term, term, term),
			[]Segment{seq(0, 1, 2)}},
		{"clarify is a barrier",
			calls(ws, [2]string{"clarify", `{"question":"?"}`}, ws),
			[]Segment{seq(0, 1, 2)}},
		{"malformed json is a barrier",
			calls(ws, ws, [2]string{"web_search", `{"query":`}, ws, ws),
			[]Segment{par(0, 1), seq(2), par(3, 4)}},
		{"non-object args are a barrier",
			calls(ws, ws, [2]string{"web_search", `["q"]`}, ws, ws),
			[]Segment{par(0, 1), seq(2), par(3, 4)}},
		{"empty args are a barrier",
			calls(ws, ws, [2]string{"web_search", ``}, ws, ws),
			[]Segment{par(0, 1), seq(2), par(3, 4)}},
		{"read and write of the same path split into two parallel runs",
			calls([2]string{"read_file", `{"path":"a.py"}`}, [2]string{"read_file", `{"path":"b.py"}`},
				[2]string{"write_file", `{"path":"a.py","content":"x"}`}, [2]string{"read_file", `{"path":"c.py"}`}),
			[]Segment{par(0, 1), par(2, 3)}},
		{"overlap with a parent directory splits",
			calls([2]string{"read_file", `{"path":"/w/src/a.go"}`}, [2]string{"write_file", `{"path":"/w/other"}`},
				[2]string{"patch", `{"path":"/w/src"}`}),
			[]Segment{par(0, 1), seq(2)}},
		{"relative and absolute forms of one path overlap",
			calls([2]string{"read_file", `{"path":"x/../a.py"}`}, [2]string{"write_file", `{"path":"/w/a.py"}`}),
			[]Segment{seq(0, 1)}},
		{"sibling prefixes do not overlap",
			calls([2]string{"read_file", `{"path":"/w/ab"}`}, [2]string{"write_file", `{"path":"/w/abc"}`}),
			[]Segment{par(0, 1)}},
		{"writes to distinct files run in parallel",
			calls([2]string{"write_file", `{"path":"a"}`}, [2]string{"patch", `{"path":"b"}`}),
			[]Segment{par(0, 1)}},
		{"read_file without path is a barrier",
			calls(ws, ws, [2]string{"read_file", `{}`}, ws),
			[]Segment{par(0, 1), seq(2, 3)}},
		{"read_file with a non-string path is a barrier",
			calls(ws, [2]string{"read_file", `{"path":7}`}, ws),
			[]Segment{seq(0, 1, 2)}},
		{"read_file with a blank path is a barrier",
			calls(ws, ws, [2]string{"read_file", `{"path":"  "}`}, ws),
			[]Segment{par(0, 1), seq(2, 3)}},
		{"patch in V4A mode has no path",
			calls([2]string{"patch", `{"mode":"patch","patch":"*** Begin Patch"}`}, ws, ws),
			[]Segment{seq(0), par(1, 2)}},
		{"unknown tools are barriers",
			calls([2]string{"mcp_x_y", `{}`}, [2]string{"mcp_x_y", `{}`}),
			[]Segment{seq(0, 1)}},
		{"single call", calls(ws), []Segment{seq(0)}},
		{"empty batch", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPlan(t, len(tc.calls), tc.want, plan(plannedOf(t, r, tc.calls), lexicalResolver("/w")))
		})
	}
}

// TestPlanFollowsEntryFacts checks the planner reads only the entries'
// facts: a parallel-safe MCP tool joins a parallel run, a path-scoped tool
// whose path argument has another name is planned by that argument, and a
// name that an old table knew means nothing without the fact.
func TestPlanFollowsEntryFacts(t *testing.T) {
	t.Parallel()
	r := New(nil)
	mustRegister(t, r,
		Entry{Name: "mcp_fs_list", Toolset: "mcp-fs", ParallelSafe: true},
		Entry{Name: "mcp_other", Toolset: "mcp-other"},
		Entry{Name: "note_edit", Toolset: "notes", PathArg: "file"},
		Entry{Name: "web_search", Toolset: "web"}, // hermes's table said parallel-safe; this entry does not
	)
	for _, tc := range []struct {
		name  string
		calls []*Call
		want  []Segment
	}{
		{"parallel-safe entries join a run",
			calls([2]string{"mcp_fs_list", `{}`}, [2]string{"mcp_fs_list", `{}`}, [2]string{"mcp_other", `{}`}),
			[]Segment{par(0, 1), seq(2)}},
		{"the entry's path argument is compared",
			calls([2]string{"note_edit", `{"file":"a.md","path":"x"}`}, [2]string{"note_edit", `{"file":"b.md","path":"x"}`},
				[2]string{"note_edit", `{"file":"/w/a.md"}`}),
			[]Segment{par(0, 1), seq(2)}},
		{"a path under another name is no path",
			calls([2]string{"mcp_fs_list", `{}`}, [2]string{"note_edit", `{"path":"a.md"}`}, [2]string{"mcp_fs_list", `{}`}),
			[]Segment{seq(0, 1, 2)}},
		{"a tool is parallel only by its entry",
			calls([2]string{"web_search", `{"query":"a"}`}, [2]string{"web_search", `{"query":"b"}`}),
			[]Segment{seq(0, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPlan(t, len(tc.calls), tc.want, plan(plannedOf(t, r, tc.calls), lexicalResolver("/w")))
		})
	}
}

// TestPlanWithoutResolver checks that without the session's resolver no
// path is ever compared (the process's working directory is not the
// session's): every path-scoped call runs alone, while parallel-safe calls
// without a path still run together.
func TestPlanWithoutResolver(t *testing.T) {
	t.Parallel()
	r := New(nil)
	mustRegister(t, r, planTools...)
	ws := [2]string{"web_search", `{"query":"q"}`}
	for _, tc := range []struct {
		name  string
		calls []*Call
		want  []Segment
	}{
		{"writes of distinct files run one after the other",
			calls([2]string{"write_file", `{"path":"a.txt"}`}, [2]string{"write_file", `{"path":"b.txt"}`}),
			[]Segment{seq(0, 1)}},
		{"relative and absolute spellings of one file run one after the other",
			calls([2]string{"write_file", `{"path":"x.txt"}`}, [2]string{"write_file", `{"path":"/ws/x.txt"}`}),
			[]Segment{seq(0, 1)}},
		{"reads are barriers too, searches still run together",
			calls(ws, ws, [2]string{"read_file", `{"path":"/a"}`}, [2]string{"read_file", `{"path":"/b"}`}, ws, ws),
			[]Segment{par(0, 1), seq(2, 3), par(4, 5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPlan(t, len(tc.calls), tc.want, plan(plannedOf(t, r, tc.calls), nil))
		})
	}
}

// fakeResolver resolves like a session whose workspace is /ws while the
// process runs elsewhere: relative paths are taken against /ws, "link" is a
// symbolic link to x.txt, and anything outside /ws does not resolve.
func fakeResolver(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join("/ws", p)
	}
	p = filepath.Clean(p)
	if p == "/ws/link" {
		p = "/ws/x.txt"
	}
	if p != "/ws" && !strings.HasPrefix(p, "/ws/") {
		return "", false
	}
	return p, true
}

func TestPlanWithResolver(t *testing.T) {
	t.Parallel()
	r := New(nil)
	mustRegister(t, r, planTools...)
	w := func(path string) [2]string { return [2]string{"write_file", `{"path":"` + path + `","content":"c"}`} }
	rd := func(path string) [2]string { return [2]string{"read_file", `{"path":"` + path + `"}`} }
	for _, tc := range []struct {
		name  string
		calls []*Call
		want  []Segment
	}{
		// Against the process's working directory "x.txt" and "/ws/x.txt"
		// look disjoint; the session resolves both to one file.
		{"relative and workspace-absolute spellings of one file serialise",
			calls(w("x.txt"), w("/ws/x.txt")), []Segment{seq(0, 1)}},
		{"a symbolic link and its target serialise",
			calls(w("link"), rd("/ws/x.txt")), []Segment{seq(0, 1)}},
		{"a file and its folder serialise",
			calls(rd("src/a.go"), w("/ws/src")), []Segment{seq(0, 1)}},
		{"distinct files still run in parallel",
			calls(w("a.txt"), w("/ws/b.txt"), rd("c.txt")), []Segment{par(0, 1, 2)}},
		{"a path that does not resolve runs alone",
			calls(rd("a.txt"), rd("b.txt"), rd("/etc/passwd"), rd("c.txt"), rd("d.txt")),
			[]Segment{par(0, 1), seq(2), par(3, 4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPlan(t, len(tc.calls), tc.want, plan(plannedOf(t, r, tc.calls), fakeResolver))
		})
	}
}

// writesOverlap runs two write_file calls with paths a and b in one batch
// of a pipeline with resolver and reports whether they ran concurrently, the
// paths the resolver was asked for, and the order the calls started in. The
// first write waits (in fake time) for the second to start: run together,
// the second starts while the first waits.
func writesOverlap(t *testing.T, resolver PathResolver, a, b string) (overlapped bool, resolved, started []string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		secondStarted := make(chan struct{})
		handler := func(_ context.Context, c *Call) (Result, error) {
			if c.ID == "c1" {
				close(secondStarted)
				return OK(map[string]any{"ok": true}), nil
			}
			select {
			case <-secondStarted:
				overlapped = true
			case <-time.After(time.Second):
			}
			return OK(map[string]any{"ok": true}), nil
		}
		var mu sync.Mutex
		o := PipelineOptions{}
		if resolver != nil {
			o.PathResolver = func(path string) (string, bool) {
				mu.Lock()
				resolved = append(resolved, path)
				mu.Unlock()
				return resolver(path)
			}
		}
		p := newTestPipeline(t, o, Entry{Name: "write_file", Toolset: "file", Kind: KindEdit, PathArg: "path", Handler: handler})
		var rec recorder
		outs := p.NewTurn().Run(context.Background(), calls(
			[2]string{"write_file", `{"path":"` + a + `","content":"a"}`},
			[2]string{"write_file", `{"path":"` + b + `","content":"b"}`},
		), rec.opts())
		for i, out := range outs {
			if out.Failed {
				t.Errorf("write %d failed: %s", i, out.Content)
			}
		}
		started = rec.started
	})
	return overlapped, resolved, started
}

// TestRunUsesPathResolver checks the pipeline plans with the session's
// resolver: two writes of one file, spelled differently, never overlap,
// while writes of two files do; without a resolver no two writes overlap.
func TestRunUsesPathResolver(t *testing.T) {
	t.Parallel()
	t.Run("one file spelled relative and absolute runs serialised", func(t *testing.T) {
		t.Parallel()
		overlapped, resolved, started := writesOverlap(t, fakeResolver, "x.txt", "/ws/x.txt")
		if diff := cmp.Diff([]string{"x.txt", "/ws/x.txt"}, resolved); diff != "" {
			t.Errorf("resolver calls (-want +got):\n%s", diff)
		}
		if overlapped {
			t.Error("the two writes of /ws/x.txt ran concurrently")
		}
		if diff := cmp.Diff([]string{"c0", "c1"}, started); diff != "" {
			t.Errorf("start order (-want +got):\n%s", diff)
		}
	})
	t.Run("two files run concurrently", func(t *testing.T) {
		t.Parallel()
		if overlapped, _, _ := writesOverlap(t, fakeResolver, "a.txt", "/ws/b.txt"); !overlapped {
			t.Error("writes of /ws/a.txt and /ws/b.txt ran one after the other, want them concurrent")
		}
	})
	t.Run("without a resolver writes run one after the other", func(t *testing.T) {
		t.Parallel()
		overlapped, _, started := writesOverlap(t, nil, "a.txt", "b.txt")
		if overlapped {
			t.Error("two writes ran concurrently without the session's resolver")
		}
		if diff := cmp.Diff([]string{"c0", "c1"}, started); diff != "" {
			t.Errorf("start order (-want +got):\n%s", diff)
		}
	})
}
