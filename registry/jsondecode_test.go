package registry

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeJSON: values come out in the shapes coercion and the handlers
// expect, numbers as Python's json module gives them, strings unescaped
// (invalid UTF-8 and lone surrogates as U+FFFD), and anything that is not
// exactly one JSON value is an error.
func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want any // nil with wantErr
		err  bool
	}{
		{in: `{}`, want: map[string]any{}},
		{in: `[]`, want: []any{}},
		{in: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, want: map[string]any{"a": 1, "b": []any{true, false, nil}, "c": map[string]any{"d": "e"}}},
		{in: ` {"n": -0.5e+3 } `, want: map[string]any{"n": -500.0}},
		{in: `5`, want: 5},
		{in: `5.0`, want: 5.0},
		{in: `-0`, want: 0},
		{in: `1e2`, want: 100.0},
		{in: `9223372036854775807`, want: math.MaxInt64},
		{in: `-9223372036854775808`, want: math.MinInt64},
		{in: `9223372036854775808`, want: 9.223372036854775808e18},
		{in: `1e400`, want: "1e400"},
		{in: `-1e400`, want: "-1e400"},
		{in: `1e-400`, want: 0.0},
		{in: `[[[[[]]]]]`, want: []any{[]any{[]any{[]any{[]any{}}}}}},
		{in: `{"dup":1,"dup":2}`, want: map[string]any{"dup": 2}},
		{in: `"\u00e9\ud83d\ude00\ud800x\u0041"`, want: "é😀\ufffdxA"},
		{in: `"\/\b\f\n\r"`, want: "/\b\f\n\r"},
		{in: "\"caf\xc3\xa9\"", want: "café"},
		{in: "\"\xff\xfe\"", want: "\ufffd\ufffd"},
		{in: `{"k":"v"  ,  "k2" : [ 1 , 2 ] }`, want: map[string]any{"k": "v", "k2": []any{1, 2}}},
		{in: `"tab\there"`, want: "tab\there"},
		{in: "\"raw\ttab\"", err: true},
		{in: `"\q"`, err: true},
		{in: `{"a":1,}`, err: true},
		{in: `[1,]`, err: true},
		{in: `01`, err: true},
		{in: `-`, err: true},
		{in: `1.`, err: true},
		{in: `.5`, err: true},
		{in: `1e`, err: true},
		{in: `{"a":1}{"b":2}`, err: true},
		{in: `{"a" 1}`, err: true},
		{in: `nul`, err: true},
		{in: `truex`, err: true},
		{in: ``, err: true},
		{in: `   `, err: true},
		{in: strings.Repeat("[", 10002), err: true},
	} {
		got, err := decodeJSON(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("decodeJSON(%.40q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("decodeJSON(%.40q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// FuzzDecodeJSON: decodeJSON accepts exactly the valid JSON texts, and
// what it gives holds only the decoded shapes: no json.Number, no
// infinity or NaN.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, ` {"n": -0.5e+3 } `, `1e400`,
		`"\u00e9\ud83d\ude00\ud800x"`, `9223372036854775808`, `[[1,2.5],{"x":"y"}]`, `{"a":1,}`, `{"a":1} {}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := decodeJSON(s)
		if valid := json.Valid([]byte(s)); (err == nil) != valid {
			t.Fatalf("decodeJSON(%q) error = %v, but json.Valid = %v", s, err, valid)
		}
		if bad := badShape(v); bad != "" {
			t.Errorf("decodeJSON(%q) = %#v, which holds %s", s, v, bad)
		}
	})
}

// badShape names the first value in v that decodeJSON must not give.
func badShape(v any) string {
	switch t := v.(type) {
	case nil, string, bool, int:
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return fmt.Sprint(t)
		}
	case map[string]any:
		for _, x := range t {
			if b := badShape(x); b != "" {
				return b
			}
		}
	case []any:
		for _, x := range t {
			if b := badShape(x); b != "" {
				return b
			}
		}
	default:
		return fmt.Sprintf("a %T", v)
	}
	return ""
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw     string
		want    map[string]any
		wantErr bool
	}{
		{"", map[string]any{}, false},
		{" \n\t", map[string]any{}, false},
		{`{"a":5,"b":5.0,"c":"x"}`, map[string]any{"a": 5, "b": 5.0, "c": "x"}, false},
		{`{"big":12345678901234567890}`, map[string]any{"big": 1.2345678901234567e19}, false},
		{`[1]`, nil, true},
		{`"s"`, nil, true},
		{`null`, nil, true},
		{`{"a":`, nil, true},
	} {
		got, err := ParseArgs(tc.raw)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseArgs(%q) error = %v, want error %v", tc.raw, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseArgs(%q) (-want +got):\n%s", tc.raw, diff)
		}
	}
}

func TestCallAccessors(t *testing.T) {
	t.Parallel()
	c := &Call{Args: map[string]any{"s": "x", "i": 3, "f": 4.0, "g": 4.5, "b": true, "l": []any{"a", "b"}, "m": []any{"a", 1}}}
	if v, ok := c.String("s"); !ok || v != "x" {
		t.Errorf("String(s) = %q %v", v, ok)
	}
	if v, ok := c.Int("i"); !ok || v != 3 {
		t.Errorf("Int(i) = %d %v", v, ok)
	}
	if v, ok := c.Int("f"); !ok || v != 4 {
		t.Errorf("Int(f) = %d %v, want 4 from an integral float", v, ok)
	}
	if _, ok := c.Int("g"); ok {
		t.Errorf("Int(g) accepted 4.5")
	}
	if v, ok := c.Float("i"); !ok || v != 3 {
		t.Errorf("Float(i) = %v %v", v, ok)
	}
	if v, ok := c.Bool("b"); !ok || !v {
		t.Errorf("Bool(b) = %v %v", v, ok)
	}
	if v, ok := c.Strings("l"); !ok || len(v) != 2 {
		t.Errorf("Strings(l) = %v %v", v, ok)
	}
	if _, ok := c.Strings("m"); ok {
		t.Errorf("Strings(m) accepted a non-string element")
	}
	if _, ok := c.String("missing"); ok {
		t.Errorf("String(missing) reported ok")
	}
}
