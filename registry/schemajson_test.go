package registry

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
)

// TestDefinitionsCarryTheSchemaEncodedOnce: Definitions gives each tool's
// schema as JSON too; a session binding a declared tool shares the
// declaration's encoding (encoded once per process, not per session), and
// a different schema gets its own.
func TestDefinitionsCarryTheSchemaEncodedOnce(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": `a "path" <here>`}}, "required": []any{"path"}}
	base := New(nil)
	if err := base.Register(Entry{Name: "t", Toolset: "s", Schema: schema, Description: "declared"}); err != nil {
		t.Fatal(err)
	}
	declared := base.Definitions(nil)
	if len(declared) != 1 {
		t.Fatalf("Definitions = %v, want one", declared)
	}
	var back map[string]any
	if err := json.Unmarshal(declared[0].ParametersJSON, &back); err != nil {
		t.Fatalf("ParametersJSON %s: %v", declared[0].ParametersJSON, err)
	}
	if !reflect.DeepEqual(back, declared[0].Parameters) {
		t.Fatalf("ParametersJSON decodes to %v, want %v", back, declared[0].Parameters)
	}

	// Sessions bind the same declaration concurrently.
	var wg sync.WaitGroup
	got := make([][]Definition, 4)
	for i := range got {
		wg.Go(func() {
			session := base.Clone()
			if err := session.Register(Entry{Name: "t", Toolset: "s", Schema: schema, Description: "bound", Handler: okHandler("{}")}); err != nil {
				t.Error(err)
				return
			}
			got[i] = session.Definitions(nil)
		})
	}
	wg.Wait()
	for _, defs := range got {
		if len(defs) != 1 || defs[0].Description != "bound" {
			t.Fatalf("session Definitions = %v", defs)
		}
		if &defs[0].ParametersJSON[0] != &declared[0].ParametersJSON[0] {
			t.Errorf("a session encoded the declared schema again")
		}
	}

	other := New(nil)
	equal := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	if err := other.Register(Entry{Name: "t", Toolset: "s", Schema: equal}); err != nil {
		t.Fatal(err)
	}
	if d := other.Definitions(nil); string(d[0].ParametersJSON) != `{"properties":{"n":{"type":"integer"}},"type":"object"}` {
		t.Errorf("ParametersJSON = %s", d[0].ParametersJSON)
	}
	empty := New(nil)
	if err := empty.Register(Entry{Name: "e", Toolset: "s"}); err != nil {
		t.Fatal(err)
	}
	if d := empty.Definitions(nil); string(d[0].ParametersJSON) != `{"properties":{},"type":"object"}` {
		t.Errorf("ParametersJSON of a tool without schema = %s", d[0].ParametersJSON)
	}
}
