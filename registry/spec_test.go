package registry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type schemaItem struct {
	ID     string `json:"id" desc:"Stable item id"`
	Status string `json:"status" schema:"required" enum:"pending,done"`
}

type schemaParams struct {
	Path     string       `json:"path" schema:"required" desc:"The file to read"`
	Offset   *int         `json:"offset" schema:"default=1,minimum=1" desc:"Line to start at"`
	Ratio    float64      `json:"ratio"`
	Force    bool         `json:"force,omitempty"`
	Mode     string       `json:"mode" enum:"a,b" schema:"default=a"`
	Tags     []string     `json:"tags" schema:"maxItems=5"`
	Items    []schemaItem `json:"items"`
	Extra    any          `json:"extra" schema:"type=string"`
	URLs     []any        `json:"urls" schema:"items=string"`
	Skipped  string       `json:"-"`
	Unlisted string       `json:"unlisted" schema:"-"`
	Opaque   any          `json:"opaque" schema:"type=object,additionalProperties=true,properties={}"`
	internal string
}

// TestSchemaOf: the schema derived from a params struct has every
// property's type, description, keywords and enum, the required fields,
// and nested objects for structs in lists.
func TestSchemaOf(t *testing.T) {
	t.Parallel()
	got, err := SchemaOf(schemaParams{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":   map[string]any{"type": "string", "description": "The file to read"},
			"offset": map[string]any{"type": "integer", "description": "Line to start at", "default": 1, "minimum": 1},
			"ratio":  map[string]any{"type": "number"},
			"force":  map[string]any{"type": "boolean"},
			"mode":   map[string]any{"type": "string", "enum": []any{"a", "b"}, "default": "a"},
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 5},
			"items": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"id":     map[string]any{"type": "string", "description": "Stable item id"},
					"status": map[string]any{"type": "string", "enum": []any{"pending", "done"}},
				},
				"required": []any{"status"},
			}},
			"extra":  map[string]any{"type": "string"},
			"urls":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"opaque": map[string]any{"type": "object", "additionalProperties": true, "properties": map[string]any{}},
		},
		"required": []any{"path"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SchemaOf(schemaParams{}) mismatch (-want +got):\n%s", d)
	}
	// The registry accepts it as is (decoded-JSON shapes, no round trip).
	if _, ok := copyJSONShaped(got); !ok {
		t.Errorf("SchemaOf's schema is not in decoded-JSON shapes: %#v", got)
	}

	empty, err := SchemaOf(&struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{}}, empty); d != "" {
		t.Errorf("SchemaOf(&struct{}{}) mismatch (-want +got):\n%s", d)
	}
}

// TestSchemaOfRefusesWhatItCannotSay: a non-struct, a channel field, an
// unknown schema option and a keyword that is not JSON are errors naming
// the problem.
func TestSchemaOfRefusesWhatItCannotSay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		params any
		want   string
	}{
		{"not a struct", 3, "must be a struct"},
		{"nil", nil, "must be a struct"},
		{"channel", struct {
			C chan int `json:"c"`
		}{}, "has no JSON Schema"},
		{"unknown option", struct {
			A string `json:"a" schema:"requird"`
		}{}, `unknown schema option "requird"`},
		{"bad keyword", struct {
			A int `json:"a" schema:"minimum=one"`
		}{}, "minimum=one"},
	} {
		if _, err := SchemaOf(c.params); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: SchemaOf error = %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// greeter is a tool's dependencies, declared by the tool.
type greeter interface{ Greeting() string }

type hello struct{ word string }

func (h hello) Greeting() string { return h.word }

type greetParams struct {
	Name string `json:"name" schema:"required"`
}

func greetTool(avail func(greeter) error) Declared {
	return Declare(Tool[greeter]{
		Spec: Spec{Entry: Entry{Name: "greet", Toolset: "t", Description: "Greets."}, Params: greetParams{}},
		New: func(d greeter) Handler {
			return Typed(func(_ context.Context, _ *Call, p *greetParams) (Result, error) {
				return OK(d.Greeting() + ", " + p.Name), nil
			})
		},
		Available: avail,
	})
}

// TestDeclareBindsToServices: a declared tool's entry has its derived
// schema and no handler; bound to services that provide its dependencies
// it runs with them (its arguments decoded once into its params); services
// that do not are refused naming the tool; and its Available rule is the
// bound entry's check.
func TestDeclareBindsToServices(t *testing.T) {
	t.Parallel()
	d := greetTool(nil)
	decl := d.Declaration()
	if decl.Handler != nil || decl.Schema["required"].([]any)[0] != "name" {
		t.Errorf("declaration = handler %v, schema %v; want no handler and the derived schema", decl.Handler != nil, decl.Schema)
	}
	e, err := d.Bind(hello{"hi"})
	if err != nil {
		t.Fatal(err)
	}
	r := New(nil)
	if err := r.RegisterAll(e); err != nil {
		t.Fatal(err)
	}
	if res := r.Dispatch(t.Context(), &Call{ID: "1", Name: "greet", Args: map[string]any{"name": "Ada"}}); res.Encode() != `hi, Ada` {
		t.Errorf("greet = %s, want hi, Ada", res.Encode())
	}
	res := r.Dispatch(t.Context(), &Call{ID: "2", Name: "greet", Args: map[string]any{"name": []any{"Ada"}}})
	if want := `{"error":"greet: 'name' must be a string, got list."}`; res.Encode() != want || !res.IsError {
		t.Errorf("greet with a list = %s (IsError %v), want %s", res.Encode(), res.IsError, want)
	}
	if e.Check.Err() != nil {
		t.Errorf("a tool without Available is unavailable: %v", e.Check.Err())
	}

	if _, err := d.Bind(struct{}{}); err == nil || !strings.Contains(err.Error(), "bind greet") {
		t.Errorf("Bind(struct{}{}) error = %v, want one naming greet", err)
	}
	if err := d.Unavailable(struct{}{}); err == nil {
		t.Error("Unavailable(struct{}{}) = nil, want the missing dependencies")
	}

	off := greetTool(func(g greeter) error {
		if g.Greeting() == "" {
			return errors.New("nothing to say")
		}
		return nil
	})
	e, err = off.Bind(hello{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check.Err(); err == nil || err.Error() != "nothing to say" {
		t.Errorf("bound check = %v, want nothing to say", err)
	}
	if err := off.Unavailable(hello{}); err == nil || err.Error() != "nothing to say" {
		t.Errorf("Unavailable = %v, want nothing to say", err)
	}
	if err := off.Unavailable(hello{"hi"}); err != nil {
		t.Errorf("Unavailable(hi) = %v, want nil", err)
	}
	r2 := New(nil)
	if err := r2.RegisterAll(e); err != nil {
		t.Fatal(err)
	}
	if defs := r2.Definitions(nil); len(defs) != 0 {
		t.Errorf("an unavailable declared tool is offered: %v", defs)
	}
}

// TestDeclarePanicsOnMistakes: a tool without New, with a Handler, or
// with params that have no schema is a programming error found when it is
// declared.
func TestDeclarePanicsOnMistakes(t *testing.T) {
	t.Parallel()
	for name, tool := range map[string]Tool[greeter]{
		"no New":       {Spec: Spec{Entry: Entry{Name: "x", Toolset: "t"}}},
		"with Handler": {Spec: Spec{Entry: Entry{Name: "x", Toolset: "t", Handler: func(context.Context, *Call) (Result, error) { return Result{}, nil }}}, New: func(greeter) Handler { return nil }},
		"bad params":   {Spec: Spec{Entry: Entry{Name: "x", Toolset: "t"}, Params: 3}, New: func(greeter) Handler { return nil }},
		"two rules": {Spec: Spec{Entry: Entry{Name: "x", Toolset: "t"}}, New: func(greeter) Handler { return nil },
			Available: func(greeter) error { return nil }, SharedCheck: func(greeter) *Check { return nil }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Declare did not panic", name)
				}
			}()
			Declare(tool)
		}()
	}
}

// shared is the services of a session whose tools share one check.
type shared struct {
	hello
	check *Check
}

func (s shared) Shared() *Check { return s.check }

// TestSharedCheckRunsOncePerPass: tools whose rule is a SharedCheck get
// the session's one check, so a pass over the registry runs it once for
// all of them, and they are offered or not together.
func TestSharedCheckRunsOncePerPass(t *testing.T) {
	t.Parallel()
	type sharer interface {
		greeter
		Shared() *Check
	}
	tool := func(name string) Declared {
		return Declare(Tool[sharer]{
			Spec: Spec{Entry: Entry{Name: name, Toolset: "t", Description: "Greets."}, Params: greetParams{}},
			New: func(d sharer) Handler {
				return Typed(func(_ context.Context, _ *Call, p *greetParams) (Result, error) { return OK(d.Greeting()), nil })
			},
			SharedCheck: func(d sharer) *Check { return d.Shared() },
		})
	}
	runs := 0
	var err error
	services := shared{hello{"hi"}, NewCheck(func() error { runs++; return err })}
	r := New(nil)
	for _, name := range []string{"a", "b", "c"} {
		d := tool(name)
		if d.Check(services) != services.check {
			t.Errorf("%s: Check is not the session's shared check", name)
		}
		e, bindErr := d.Bind(services)
		if bindErr != nil {
			t.Fatal(bindErr)
		}
		if err := r.RegisterAll(e); err != nil {
			t.Fatal(err)
		}
	}
	if defs := r.Definitions(nil); len(defs) != 3 || runs != 1 {
		t.Errorf("one pass: %d tools offered, the check ran %d times; want 3 offered and one run", len(defs), runs)
	}
	err = errors.New("no browser")
	if defs := r.Definitions(nil); len(defs) != 0 || runs != 2 {
		t.Errorf("check failing: %d tools offered, the check ran %d times in all; want none offered and 2 runs", len(defs), runs)
	}
	if got := tool("d").Unavailable(services); got == nil || got.Error() != "no browser" {
		t.Errorf("Unavailable = %v, want no browser", got)
	}
}
