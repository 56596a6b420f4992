package tools

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var schemasUpdate = flag.Bool("schemas.update", false, "rewrite testdata/schemas.json from the built-in tools")

// TestSchemasUnchanged checks the schema every built-in tool offers the
// model against testdata/schemas.json, recorded from the hand-written
// schemas before the tools derived theirs from their params structs
// (issue #32): moving a tool to a declared spec changes nothing the model
// reads.
func TestSchemasUnchanged(t *testing.T) {
	t.Parallel()
	got := map[string]any{}
	for _, e := range Entries() {
		got[e.Name] = e.Schema
	}
	raw, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "schemas.json")
	if *schemasUpdate {
		if err := os.WriteFile(golden, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want, have map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	if err := json.Unmarshal(raw, &have); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("tool schemas changed (-%s +built):\n%s", golden, d)
	}
}
