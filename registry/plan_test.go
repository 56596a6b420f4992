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

func par(idx ...int) Segment { return Segment{Parallel: true, Calls: idx} }
func seq(idx ...int) Segment { return Segment{Calls: idx} }

func TestPlan(t *testing.T) {
	t.Parallel()
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
			calls([2]string{"read_file", `{"path":"x/../a.py"}`}, [2]string{"write_file", `{"path":"a.py"}`}),
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
			got := Plan(tc.calls)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
			var order []int
			for _, s := range got {
				order = append(order, s.Calls...)
			}
			for i, idx := range order {
				if i != idx {
					t.Fatalf("Plan order = %v, want emission order", order)
				}
			}
			if len(order) != len(tc.calls) {
				t.Fatalf("Plan covered %d calls, want %d", len(order), len(tc.calls))
			}
		})
	}
}

func TestPlanHonoursParallelSafeEntries(t *testing.T) {
	t.Parallel()
	names := []string{"mcp_fs_list", "mcp_fs_list", "mcp_other"}
	args := []map[string]any{{}, {}, {}}
	got := plan(names, args, func(n string) bool { return n == "mcp_fs_list" }, nil)
	if diff := cmp.Diff([]Segment{par(0, 1), seq(2)}, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
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
	w := func(path string) [2]string { return [2]string{"write_file", `{"path":"` + path + `","content":"c"}`} }
	r := func(path string) [2]string { return [2]string{"read_file", `{"path":"` + path + `"}`} }
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
			calls(w("link"), r("/ws/x.txt")), []Segment{seq(0, 1)}},
		{"a file and its folder serialise",
			calls(r("src/a.go"), w("/ws/src")), []Segment{seq(0, 1)}},
		{"distinct files still run in parallel",
			calls(w("a.txt"), w("/ws/b.txt"), r("c.txt")), []Segment{par(0, 1, 2)}},
		{"a path that does not resolve runs alone",
			calls(r("a.txt"), r("b.txt"), r("/etc/passwd"), r("c.txt"), r("d.txt")),
			[]Segment{par(0, 1), seq(2), par(3, 4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			names := make([]string, len(tc.calls))
			args := make([]map[string]any, len(tc.calls))
			for i, c := range tc.calls {
				names[i], args[i] = c.Name, planArgs(c.RawArgs)
			}
			got := plan(names, args, func(string) bool { return false }, fakeResolver)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunUsesPathResolver checks the pipeline plans with the session's
// resolver: two writes of one file, spelled differently, never overlap.
func TestRunUsesPathResolver(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The first write waits (in fake time) for the second to start: run
		// together, the second starts while the first waits.
		secondStarted := make(chan struct{})
		overlapped := false
		handler := func(_ context.Context, c *Call) (string, error) {
			if c.ID == "c1" {
				close(secondStarted)
				return `{"ok":true}`, nil
			}
			select {
			case <-secondStarted:
				overlapped = true
			case <-time.After(time.Second):
			}
			return `{"ok":true}`, nil
		}
		var mu sync.Mutex
		var resolved []string
		p := newTestPipeline(t, PipelineOptions{PathResolver: func(path string) (string, bool) {
			mu.Lock()
			resolved = append(resolved, path)
			mu.Unlock()
			return fakeResolver(path)
		}}, Entry{Name: "write_file", Toolset: "file", Handler: handler})
		var rec recorder
		p.NewTurn().Run(context.Background(), calls(
			[2]string{"write_file", `{"path":"x.txt","content":"a"}`},
			[2]string{"write_file", `{"path":"/ws/x.txt","content":"b"}`},
		), rec.opts())
		if diff := cmp.Diff([]string{"x.txt", "/ws/x.txt"}, resolved); diff != "" {
			t.Errorf("resolver calls (-want +got):\n%s", diff)
		}
		if overlapped {
			t.Error("the two writes of /ws/x.txt ran concurrently")
		}
		if diff := cmp.Diff([]string{"c0", "c1"}, rec.started); diff != "" {
			t.Errorf("start order (-want +got):\n%s", diff)
		}
	})
}
