package registry

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustSchema(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad schema %s: %v", s, err)
	}
	return m
}

// schemaWith builds an arguments schema with one property "v".
func schemaWith(t testing.TB, prop string) map[string]any {
	return mustSchema(t, `{"type":"object","properties":{"v":`+prop+`}}`)
}

func TestCoerce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		prop string // schema of property "v"
		in   any
		want any
	}{
		// numbers
		{"string to integer", `{"type":"integer"}`, "42", 42},
		{"negative integer", `{"type":"integer"}`, "-7", -7},
		{"padded integer", `{"type":"integer"}`, " 42 ", 42},
		{"fraction stays string for integer", `{"type":"integer"}`, "42.5", "42.5"},
		{"integral float becomes int for integer", `{"type":"integer"}`, "42.0", 42},
		{"integral float becomes int for number", `{"type":"number"}`, "3.0", 3},
		{"string to number", `{"type":"number"}`, "2.5", 2.5},
		{"exponent number", `{"type":"number"}`, "1e3", 1000},
		{"underscore digits", `{"type":"integer"}`, "1_000", 1000},
		{"double underscore refused", `{"type":"integer"}`, "1__000", "1__000"},
		{"hex refused", `{"type":"integer"}`, "0x10", "0x10"},
		{"inf stays string", `{"type":"number"}`, "inf", "inf"},
		{"infinity stays string", `{"type":"number"}`, "-Infinity", "-Infinity"},
		{"nan stays string", `{"type":"number"}`, "nan", "nan"},
		{"overflow stays string", `{"type":"number"}`, "1e400", "1e400"},
		{"not a number", `{"type":"integer"}`, "abc", "abc"},
		{"empty string stays", `{"type":"integer"}`, "", ""},
		{"native number untouched", `{"type":"integer"}`, 5.0, 5.0},
		// booleans
		{"true", `{"type":"boolean"}`, "true", true},
		{"False mixed case", `{"type":"boolean"}`, "False", false},
		{"padded TRUE", `{"type":"boolean"}`, "  TRUE ", true},
		{"1 is not a bool", `{"type":"boolean"}`, "1", "1"},
		{"0 is not a bool", `{"type":"boolean"}`, "0", "0"},
		{"yes is not a bool", `{"type":"boolean"}`, "yes", "yes"},
		// unions
		{"union integer first", `{"type":["integer","string"]}`, "42", 42},
		{"union falls through to string", `{"type":["integer","string"]}`, "abc", "abc"},
		{"union boolean after integer", `{"type":["integer","boolean"]}`, "true", true},
		// JSON strings
		{"json array", `{"type":"array","items":{"type":"integer"}}`, "[1,2]", []any{1, 2}},
		{"json object", `{"type":"object"}`, `{"a":1}`, map[string]any{"a": 1}},
		{"object wrong shape kept", `{"type":"object"}`, `[1]`, `[1]`},
		{"object invalid json kept", `{"type":"object"}`, `{nope`, `{nope`},
		// array wrapping
		{"bare string wrapped", `{"type":"array","items":{"type":"string"}}`, "https://a.com", []any{"https://a.com"}},
		{"bare number wrapped", `{"type":"array"}`, 3, []any{3}},
		{"bare bool wrapped", `{"type":"array"}`, true, []any{true}},
		{"bare object wrapped", `{"type":"array"}`, map[string]any{"a": 1}, []any{map[string]any{"a": 1}}},
		{"nil kept for array", `{"type":"array"}`, nil, nil},
		{"unparseable array string wrapped", `{"type":"array"}`, "[1,", []any{"[1,"}},
		{"list untouched", `{"type":"array"}`, []any{"a"}, []any{"a"}},
		// null
		{"null where nullable type list", `{"type":["string","null"]}`, "null", nil},
		{"NULL where nullable flag", `{"type":"string","nullable":true}`, " NULL ", nil},
		{"null where anyOf null", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, "null", nil},
		{"null kept where not nullable", `{"type":"string"}`, "null", "null"},
		{"null kept for integer", `{"type":"integer"}`, "null", "null"},
		{"null for nullable array not wrapped", `{"type":"array","nullable":true}`, "null", nil},
		// untyped
		{"no type untouched", `{"description":"x"}`, "42", "42"},
		{"anyOf without type untouched", `{"anyOf":[{"type":"integer"}]}`, "42", "42"},
		// recursive repair
		{"json-encoded array elements", `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}}}}`,
			[]any{`{"id":"1","content":"x"}`}, []any{map[string]any{"id": "1", "content": "x"}}},
		{"json string array with encoded elements", `{"type":"array","items":{"type":"object"}}`,
			`["{\"a\":1}"]`, []any{map[string]any{"a": 1}}},
		{"nested object sub-field", `{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object"}}}}`,
			map[string]any{"tasks": `[{"goal":"g"}]`}, map[string]any{"tasks": []any{map[string]any{"goal": "g"}}}},
		{"anyOf guides nested parse", `{"type":"array","items":{"anyOf":[{"type":"object"},{"type":"string"}]}}`,
			[]any{`{"a":1}`, "plain"}, []any{map[string]any{"a": 1}, "plain"}},
		{"allOf guides nested parse", `{"type":"object","properties":{"o":{"allOf":[{"type":"object"}]}}}`,
			map[string]any{"o": `{"k":true}`}, map[string]any{"o": map[string]any{"k": true}}},
		{"string items stay strings", `{"type":"array","items":{"type":"string"}}`,
			[]any{`{"a":1}`}, []any{`{"a":1}`}},
		{"nested unknown property untouched", `{"type":"object","properties":{}}`,
			map[string]any{"x": `{"a":1}`}, map[string]any{"x": `{"a":1}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := map[string]any{"v": tc.in, "other": "7"}
			got := coerce(args, schemaWith(t, tc.prop), false)
			want := map[string]any{"v": tc.want, "other": "7"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Coerce(%#v) against %s (-want +got):\n%s", tc.in, tc.prop, diff)
			}
			if diff := cmp.Diff(map[string]any{"v": tc.in, "other": "7"}, args); diff != "" {
				t.Errorf("Coerce mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCoerceLeavesUnknownPropertiesAndEmptySchemas(t *testing.T) {
	t.Parallel()
	args := map[string]any{"limit": "5", "extra": "5"}
	schema := mustSchema(t, `{"type":"object","properties":{"limit":{"type":"integer"}}}`)
	if diff := cmp.Diff(map[string]any{"limit": 5, "extra": "5"}, coerce(args, schema, false)); diff != "" {
		t.Errorf("Coerce (-want +got):\n%s", diff)
	}
	for _, s := range []map[string]any{nil, {}, {"type": "object"}} {
		got := coerce(args, s, false)
		if diff := cmp.Diff(args, got); diff != "" {
			t.Errorf("Coerce with schema %v changed args (-want +got):\n%s", s, diff)
		}
	}
	if got := coerce(nil, schema, false); got != nil {
		t.Errorf("Coerce(nil) = %v, want nil", got)
	}
}

func TestCoerceNestedInputNotMutated(t *testing.T) {
	t.Parallel()
	inner := []any{`{"id":"1"}`}
	args := map[string]any{"todos": inner}
	schema := mustSchema(t, `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object"}}}}`)
	got := coerce(args, schema, false)
	if _, ok := got["todos"].([]any)[0].(map[string]any); !ok {
		t.Fatalf("Coerce = %#v, want the element decoded", got)
	}
	if inner[0] != `{"id":"1"}` {
		t.Errorf("Coerce mutated the caller's nested list: %#v", inner)
	}
}

func FuzzCoerce(f *testing.F) {
	schema := mustSchema(f, `{"type":"object","properties":{
		"i":{"type":"integer"},"n":{"type":"number"},"b":{"type":"boolean"},
		"a":{"type":"array","items":{"type":"object","properties":{"x":{"type":"array"}}}},
		"o":{"type":["object","null"]},"u":{"type":["integer","boolean","string"]}}}`)
	for _, s := range []string{"42", "1e9", "true", "null", "[1,2]", `{"x":"[1]"}`, `["{\"x\":\"[]\"}"]`, "inf", "1_0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := map[string]any{"i": s, "n": s, "b": s, "a": s, "o": s, "u": s}
		got := coerce(args, schema, false)
		for k, v := range args {
			if v != s {
				t.Fatalf("Coerce mutated input key %s: %#v", k, v)
			}
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("Coerce(%q) produced a value JSON cannot encode: %v", s, err)
		}
	})
}

// TestParseNumber: the syntax of Python's float(), which hermes coerces
// number strings with, and nothing more (no hexadecimal, no stray
// underscores).
func TestParseNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"42", 42, true}, {" -2.5 ", -2.5, true}, {"+1e3", 1000, true}, {".5", 0.5, true}, {"5.", 5, true},
		{"1_000", 1000, true}, {"1_000.000_5", 1000.0005, true}, {"1e1_0", 1e10, true}, {"1e400", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false}, {"1_.5", 0, false}, {"1._5", 0, false},
		{"0x10", 0, false}, {"0x1p-2", 0, false}, {"", 0, false}, {".", 0, false}, {"e5", 0, false}, {"1e", 0, false},
		{"1 2", 0, false}, {"٣", 0, false},
	} {
		got, ok := parseNumber(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if f, ok := parseNumber("nan"); !ok || !math.IsNaN(f) {
		t.Errorf("parseNumber(nan) = %v, %v; want NaN, true", f, ok)
	}
}
