package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// argsRoundTrip writes JSON arguments as a recording does and reads them
// back as a script does.
func argsRoundTrip(t testing.TB, in string) string {
	t.Helper()
	out, err := yaml.Marshal(scriptToolCall{Name: "x", Arguments: scriptArgs{json: in, set: true}})
	if err != nil {
		t.Fatalf("marshal %q: %v", in, err)
	}
	var back scriptToolCall
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("unmarshal %q (YAML %q): %v", in, out, err)
	}
	return back.Arguments.json
}

func TestArgsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"order kept", `{"z":1,"a":2,"m":{"y":true,"b":null}}`, `{"z":1,"a":2,"m":{"y":true,"b":null}}`},
		{"strings that look like other types", `{"a":"true","b":"123","c":"null","d":"","e":"1e3","f":"- x","g":"#c","h":"a: b"}`, `{"a":"true","b":"123","c":"null","d":"","e":"1e3","f":"- x","g":"#c","h":"a: b"}`},
		{"numbers kept verbatim", `{"a":1.50,"b":-0,"c":1e400,"d":12345678901234567890}`, `{"a":1.50,"b":-0,"c":1e400,"d":12345678901234567890}`},
		{"multi-line and unicode", `{"s":"line 1\nline 2\n","u":"héllo \u2028 <b>&"}`, `{"s":"line 1\nline 2\n","u":"héllo \u2028 <b>&"}`},
		{"trailing spaces in lines", `{"s":"a  \nb\t\n"}`, `{"s":"a  \nb\t\n"}`},
		{"empty containers", `{"a":[],"b":{},"c":[[]]}`, `{"a":[],"b":{},"c":[[]]}`},
		{"top-level array", `[1,"two",{"three":3}]`, `[1,"two",{"three":3}]`},
		{"white space is compacted", "{ \"a\" : [ 1 , 2 ] }", `{"a":[1,2]}`},
		{"invalid JSON kept as a string", `{"a": `, `{"a": `},
		{"a JSON string kept as is", `"just text"`, `"just text"`},
		{"empty", ``, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := argsRoundTrip(t, tc.in); got != tc.want {
				t.Errorf("round trip of %q = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestArgsFromYAML(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, yaml, want string }{
		{"mapping", "{path: a.txt, n: 3, ok: yes}", `{"path":"a.txt","n":3,"ok":"yes"}`},
		{"YAML-only number forms", "{hex: 0x1F, under: 1_000, f: .5}", `{"hex":31,"under":1000,"f":0.5}`},
		{"anchors", "{a: &x {k: v}, b: *x}", `{"a":{"k":"v"},"b":{"k":"v"}}`},
		{"JSON string", `'{"a": 1}'`, `{"a": 1}`},
		{"number", "7", `7`},
		{"date stays a string", "{d: 2024-01-02}", `{"d":"2024-01-02"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a scriptArgs
			if err := yaml.Unmarshal([]byte(tc.yaml), &a); err != nil {
				t.Fatalf("unmarshal %q: %v", tc.yaml, err)
			}
			if a.json != tc.want {
				t.Errorf("arguments %s = %s, want %s", tc.yaml, a.json, tc.want)
			}
		})
	}
	var a scriptArgs
	if err := yaml.Unmarshal([]byte("{x: .inf}"), &a); err == nil || !strings.Contains(err.Error(), "JSON") {
		t.Errorf("arguments {x: .inf} error = %v, want one saying it cannot be JSON", err)
	}
}

// FuzzArgsRoundTrip checks that any JSON object or array survives being
// recorded as YAML and replayed.
func FuzzArgsRoundTrip(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"s":"x\ny"}`, `[true,null,"0x10"]`, `{"k":"a: b # c"}`, `{"":""}`, `{"n":1E+2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		t0 := strings.TrimSpace(in)
		if !json.Valid([]byte(in)) || t0 == "" || (t0[0] != '{' && t0[0] != '[') {
			return
		}
		got := argsRoundTrip(t, in)
		var want, back any
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			return
		}
		dec = json.NewDecoder(strings.NewReader(got))
		dec.UseNumber()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("round trip of %q gave invalid JSON %q: %v", in, got, err)
		}
		if !reflect.DeepEqual(want, back) {
			t.Fatalf("round trip of %q = %q", in, got)
		}
	})
}

func TestNodeJSONDepthLimit(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", maxJSONDepth+5) + strings.Repeat("]", maxJSONDepth+5)
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(deep), &n); err != nil {
		t.Skipf("yaml.v3 refuses the nesting itself: %v", err)
	}
	var buf bytes.Buffer
	if err := nodeJSON(&buf, &n); err == nil {
		t.Errorf("nodeJSON of %d nested lists succeeded, want an error", maxJSONDepth+5)
	}
}
