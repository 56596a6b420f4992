package registry

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// referenceDecode is decodeJSON built on encoding/json, for differential tests.
func referenceDecode(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return refNumbers(v), nil
}

func refNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, strconv.IntSize); err == nil {
				return int(i)
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s
		}
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = refNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = refNumbers(x)
		}
	}
	return v
}

var jsonSeeds = []string{
	`{}`, `[]`, `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, ` {"n": -0.5e+3 } `,
	`"\u00e9\ud83d\ude00\ud800x\u0041"`, `"tab\there"`, "\"raw\ttab\"", `"\q"`, `{"a":1,}`, `[1,]`,
	`01`, `-`, `1.`, `.5`, `1e`, `9223372036854775808`, `-9223372036854775808`, `1e400`, `"\xff\xfe"`,
	`{"a":1}{"b":2}`, `{"a" 1}`, `nul`, `truex`, `{"dup":1,"dup":2}`, "\"caf\xc3\xa9\"", `[[[[[]]]]]`, ``, `   `,
	`"\/\b\f\n\r"`, `{"k":"v"  ,  "k2" : [ 1 , 2 ] }`,
}

func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range jsonSeeds {
		compareDecoders(t, s)
	}
	if _, err := decodeJSON(strings.Repeat("[", maxJSONDepth+2)); err == nil {
		t.Errorf("decodeJSON accepted nesting deeper than %d", maxJSONDepth)
	}
}

func compareDecoders(t *testing.T, s string) {
	t.Helper()
	got, gotErr := decodeJSON(s)
	want, wantErr := referenceDecode(s)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("decodeJSON(%q) error = %v, encoding/json error = %v", s, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decodeJSON(%q) (-encoding/json +got):\n%s", s, diff)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Count(s, "[")+strings.Count(s, "{") > 1000 {
			return // depth limits differ in wording only
		}
		compareDecoders(t, s)
	})
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
