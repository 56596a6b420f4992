package toolsets

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/registry"
)

// TestWriteReport: each tool's row says whether it is offered and why it is
// unavailable; names the toolsets offer that are not built are listed; a
// toolset lists only its built tools.
func TestWriteReport(t *testing.T) {
	t.Parallel()
	r := registry.New(nil)
	if err := r.RegisterAll(
		registry.Entry{Name: "read_file", Toolset: "file"},
		registry.Entry{Name: "web_search", Toolset: "web", Check: registry.Unavailable("no search backend")},
	); err != nil {
		t.Fatal(err)
	}
	offered, _ := Select([]string{"file", "web"}, nil, r.Snapshot())
	var out bytes.Buffer
	if err := WriteReport(&out, r, append(offered, "not_built")); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = strings.Join(f, " ")
		}
	}
	for name, want := range map[string]string{
		"read_file":  "read_file file yes available",
		"web_search": "web_search web no unavailable: no search backend",
		"file":       "file read_file",
	} {
		if rows[name] != want {
			t.Errorf("row %s = %q, want %q\n%s", name, rows[name], want, out.String())
		}
	}
	if !strings.Contains(out.String(), "not built into hermes-acp (not offered): ") || !strings.Contains(out.String(), ", not_built\n") {
		t.Errorf("the unbuilt name is not listed:\n%s", out.String())
	}
}
