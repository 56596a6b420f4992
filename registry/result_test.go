package registry

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResultConstructors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		r       Result
		want    string
		isError bool
		message string // ErrorMessage
	}{
		{"Error", Error("File not found: a.go"), `{"error":"File not found: a.go"}`, true, "File not found: a.go"},
		{"Errorf", Errorf("%s: '%s' must be %s", "patch", "path", "a string"), `{"error":"patch: 'path' must be a string"}`, true, "patch: 'path' must be a string"},
		{"Error keeps <, > and & as they are", Error(`a<b> & "c"`), `{"error":"a<b> & \"c\""}`, true, `a<b> & "c"`},
		{"OK", OK(map[string]any{"bytes_written": 3}), `{"bytes_written":3}`, false, ""},
		{"Failed with the tool's own shape", Failed(map[string]any{"success": false, "error": "no match"}), `{"error":"no match","success":false}`, true, ""},
		{"Text", Text("plain text", false), "plain text", false, ""},
		{"Text failed", Text("permission denied", true), "permission denied", true, ""},
	} {
		if got := tc.r.Encode(); got != tc.want {
			t.Errorf("%s: Encode = %s, want %s", tc.name, got, tc.want)
		}
		if tc.r.IsError != tc.isError {
			t.Errorf("%s: IsError = %v, want %v", tc.name, tc.r.IsError, tc.isError)
		}
		if got := tc.r.ErrorMessage(); got != tc.message {
			t.Errorf("%s: ErrorMessage = %q, want %q", tc.name, got, tc.message)
		}
	}
}

func TestResultEncode(t *testing.T) {
	t.Parallel()
	type match struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Text string `json:"text,omitempty"`
	}
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"a string is sent verbatim", OK("line 1\n<b>\"x\" & y\\"), "line 1\n<b>\"x\" & y\\"},
		{"a string that looks like JSON is not re-encoded", OK(`{"a": 1}`), `{"a": 1}`},
		{"an empty string stays empty", OK(""), ""},
		{"a struct is compact JSON without HTML escaping", OK([]match{{"src/<a&b>.go", 3, "x < y && y > z"}}),
			`[{"path":"src/<a&b>.go","line":3,"text":"x < y && y > z"}]`},
		{"no trailing newline", OK(map[string]int{"b": 2, "a": 1}), `{"a":1,"b":2}`},
		{"non-ASCII is kept", OK(map[string]string{"s": "日本語 é"}), `{"s":"日本語 é"}`},
		{"json.RawMessage is compacted", OK(json.RawMessage("{ \"a\" : [1, 2] }")), `{"a":[1,2]}`},
		{"nil value", OK(nil), "null"},
		{"a hint follows on its own line", Result{Value: map[string]int{"n": 1}, Hint: "[Hint: use offset to read on]"},
			"{\"n\":1}\n\n[Hint: use offset to read on]"},
		{"a hint follows text too", Result{Value: "done", Hint: "[Hint: x]"}, "done\n\n[Hint: x]"},
	} {
		if got := tc.r.Encode(); got != tc.want {
			t.Errorf("%s: Encode = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestResultEncodeUnencodable checks a value JSON cannot represent becomes
// an {"error": …} object naming the problem, never a panic or empty text.
func TestResultEncodeUnencodable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		value any
		want  string // in the error message
	}{
		{"func", func() {}, "unsupported type: func()"},
		{"channel in a map", map[string]any{"c": make(chan int)}, "unsupported type: chan int"},
		{"NaN", math.NaN(), "unsupported value: NaN"},
		{"infinity in a struct", struct{ F float64 }{math.Inf(1)}, "unsupported value: +Inf"},
	} {
		got := OK(tc.value).Encode()
		var m map[string]string
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Errorf("%s: Encode = %q is not JSON: %v", tc.name, got, err)
			continue
		}
		if len(m) != 1 || !strings.HasPrefix(m["error"], "encode result: ") || !strings.Contains(m["error"], tc.want) {
			t.Errorf("%s: Encode = %q, want {\"error\":\"encode result: …%s…\"}", tc.name, got, tc.want)
		}
	}
}

func TestDecodeArgs(t *testing.T) {
	t.Parallel()
	type params struct {
		Path    string   `json:"path"`
		Offset  int      `json:"offset"`
		Big     int64    `json:"big"`
		Ratio   float64  `json:"ratio"`
		Replace bool     `json:"replace_all"`
		Globs   []string `json:"globs"`
		Limit   *int     `json:"limit"`
		Extra   any      `json:"extra"`
		Opts    struct {
			Depth int `json:"depth"`
		} `json:"opts"`
	}
	decode := func(t *testing.T, raw string) (params, error) {
		t.Helper()
		args, err := ParseArgs(raw)
		if err != nil {
			t.Fatalf("ParseArgs(%s): %v", raw, err)
		}
		var p params
		err = DecodeArgs(&Call{Name: "search_files", Args: args}, &p)
		return p, err
	}

	t.Run("every type", func(t *testing.T) {
		t.Parallel()
		p, err := decode(t, `{"path":"src","offset":3,"big":9007199254740993,"ratio":0.5,"replace_all":true,`+
			`"globs":["*.go","*.md"],"limit":0,"opts":{"depth":2},"unknown":"ignored"}`)
		if err != nil {
			t.Fatalf("DecodeArgs = %v", err)
		}
		zero := 0
		want := params{Path: "src", Offset: 3, Big: 9007199254740993, Ratio: 0.5, Replace: true,
			Globs: []string{"*.go", "*.md"}, Limit: &zero}
		want.Opts.Depth = 2
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("params (-want +got):\n%s", diff)
		}
	})
	t.Run("absent and null arguments keep zero values", func(t *testing.T) {
		t.Parallel()
		p, err := decode(t, `{"path":null,"limit":null}`)
		if err != nil || p.Path != "" || p.Limit != nil || p.Globs != nil {
			t.Errorf("DecodeArgs = %+v, %v; want zero values", p, err)
		}
	})
	t.Run("big integers stay exact", func(t *testing.T) {
		t.Parallel()
		p, err := decode(t, `{"big":9223372036854775807,"extra":9007199254740993}`)
		if err != nil {
			t.Fatalf("DecodeArgs = %v", err)
		}
		if p.Big != math.MaxInt64 {
			t.Errorf("int64 field = %d, want %d", p.Big, int64(math.MaxInt64))
		}
		// 2^53+1 is not a float64: a decoder without UseNumber would give 9007199254740992.
		if n, ok := p.Extra.(json.Number); !ok || n.String() != "9007199254740993" {
			t.Errorf("any field = %#v, want json.Number(\"9007199254740993\")", p.Extra)
		}
	})
	t.Run("numbers in any fields are json.Number", func(t *testing.T) {
		t.Parallel()
		p, err := decode(t, `{"extra":{"n":-12,"f":1.25,"list":[1,"a",true,null]}}`)
		if err != nil {
			t.Fatalf("DecodeArgs = %v", err)
		}
		want := map[string]any{"n": json.Number("-12"), "f": json.Number("1.25"), "list": []any{json.Number("1"), "a", true, nil}}
		if diff := cmp.Diff(want, p.Extra); diff != "" {
			t.Errorf("any field (-want +got):\n%s", diff)
		}
	})
	for _, tc := range []struct{ raw, want string }{
		{`{"path":5}`, "search_files: 'path' must be a string, got int."},
		{`{"path":1.5}`, "search_files: 'path' must be a string, got float."},
		{`{"path":true}`, "search_files: 'path' must be a string, got bool."},
		{`{"path":["a"]}`, "search_files: 'path' must be a string, got list."},
		{`{"path":{"a":1}}`, "search_files: 'path' must be a string, got dict."},
		{`{"offset":"x"}`, "search_files: 'offset' must be an integer, got str."},
		{`{"offset":1.5}`, "search_files: 'offset' must be an integer, got float."},
		{`{"limit":"ten"}`, "search_files: 'limit' must be an integer, got str."},
		{`{"ratio":"half"}`, "search_files: 'ratio' must be a number, got str."},
		{`{"replace_all":"yes"}`, "search_files: 'replace_all' must be a boolean, got str."},
		{`{"globs":"*.go"}`, "search_files: 'globs' must be an array, got str."},
		{`{"opts":[1]}`, "search_files: 'opts' must be an object, got list."},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			_, err := decode(t, tc.raw)
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("DecodeArgs(%s) = %v, want an *ArgError", tc.raw, err)
			}
			if err.Error() != tc.want {
				t.Errorf("DecodeArgs(%s) = %q, want %q", tc.raw, err.Error(), tc.want)
			}
			if ae.Tool != "search_files" {
				t.Errorf("ArgError.Tool = %q", ae.Tool)
			}
		})
	}
	t.Run("a bad target is not an argument error", func(t *testing.T) {
		t.Parallel()
		var p params
		err := DecodeArgs(&Call{Name: "search_files", Args: map[string]any{"path": "a"}}, p) // not a pointer
		var ae *ArgError
		if err == nil || errors.As(err, &ae) || !strings.HasPrefix(err.Error(), "search_files: arguments: ") {
			t.Errorf("DecodeArgs(non-pointer) = %v, want a plain error naming the tool", err)
		}
	})
}

func TestArgErrorMessage(t *testing.T) {
	t.Parallel()
	err := error(&ArgError{Tool: "read_file", Arg: "path", Want: "a string", Got: "int"})
	if got, want := err.Error(), "read_file: 'path' must be a string, got int."; got != want {
		t.Errorf("ArgError = %q, want %q", got, want)
	}
}

// TestDecodeArgsAfterCoercion checks a handler decodes the arguments the
// pipeline coerced against the schema: the model's "5" arrives as 5.
func TestDecodeArgsAfterCoercion(t *testing.T) {
	t.Parallel()
	type params struct {
		Path  string `json:"path"`
		Limit int    `json:"limit"`
		All   bool   `json:"all"`
	}
	var got params
	handler := func(_ context.Context, c *Call) (Result, error) {
		if err := DecodeArgs(c, &got); err != nil {
			var ae *ArgError
			if errors.As(err, &ae) {
				return Error(ae.Error()), nil
			}
			return Result{}, err
		}
		return OK(got), nil
	}
	p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "read_file", Toolset: "file", Handler: handler,
		Schema: mustSchema(t, `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"all":{"type":"boolean"}}}`)})
	outs := p.NewTurn().Run(context.Background(), []*Call{
		{ID: "1", Name: "read_file", RawArgs: `{"path":"a.go","limit":"5","all":"true"}`},
		{ID: "2", Name: "read_file", RawArgs: `{"path":"a.go","limit":"many"}`},
	}, RunOptions{})
	if outs[0].Failed || outs[0].Content != `{"path":"a.go","limit":5,"all":true}` {
		t.Errorf("coerced call = %+v, want the typed params", outs[0])
	}
	if !outs[1].Failed || outs[1].Content != `{"error":"read_file: 'limit' must be an integer, got str."}` {
		t.Errorf("uncoercible call = %+v, want the argument error", outs[1])
	}
}
