package registry

import (
	"testing"

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
	got := plan(names, args, func(n string) bool { return n == "mcp_fs_list" })
	if diff := cmp.Diff([]Segment{par(0, 1), seq(2)}, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}
