package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// diag builds a diagnostic at 0-based line and character.
func diag(line, char uint32, sev protocol.DiagnosticSeverity, code, msg string) protocol.Diagnostic {
	p := protocol.Position{Line: line, Character: char}
	return protocol.Diagnostic{Range: protocol.Range{Start: p, End: p}, Severity: sev, Code: code, Source: Source, Message: msg}
}

var (
	errJSON  = diag(2, 0, protocol.DiagnosticSeverityError, CodeJSONSyntax, "invalid character '}'")
	errJSON2 = diag(5, 3, protocol.DiagnosticSeverityError, CodeJSONSyntax, "unexpected end of JSON input")
	warnYAML = diag(1, 0, protocol.DiagnosticSeverityWarning, CodeYAMLDuplicateKey, `mapping key "a" already defined at line 1`)
)

// result builds a Result with non-nil slices.
func result(lang Language, introduced, preexisting []protocol.Diagnostic) Result {
	if introduced == nil {
		introduced = []protocol.Diagnostic{}
	}
	if preexisting == nil {
		preexisting = []protocol.Diagnostic{}
	}
	return Result{Language: lang, Introduced: introduced, Preexisting: preexisting}
}

func TestModelLint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		r    Result
		want string // JSON of ModelLint
	}{
		{"clean", result(LanguageJSON, nil, nil), `{"status":"ok","output":""}`},
		{"skipped", Result{Skipped: true, SkipReason: "No linter for .txt files"},
			`{"status":"skipped","message":"No linter for .txt files"}`},
		{"introduced", result(LanguageJSON, []protocol.Diagnostic{errJSON}, nil),
			`{"status":"error","output":"JSONDecodeError: invalid character '}' (line 3, column 1)"}`},
		{"introduced with pre-existing errors filtered", result(LanguageJSON, []protocol.Diagnostic{errJSON}, []protocol.Diagnostic{errJSON2}),
			`{"status":"error","output":"New lint errors introduced by this edit (pre-existing errors filtered out):\nJSONDecodeError: invalid character '}' (line 3, column 1)"}`},
		{"only pre-existing", result(LanguageJSON, nil, []protocol.Diagnostic{errJSON2, errJSON}),
			`{"status":"error","output":"JSONDecodeError: invalid character '}' (line 3, column 1)\nJSONDecodeError: unexpected end of JSON input (line 6, column 4)","message":"Pre-existing lint errors — this edit didn't introduce new ones but the file is still broken."}`},
		{"only warnings introduced", result(LanguageYAML, []protocol.Diagnostic{warnYAML}, nil),
			`{"status":"ok","output":"","message":"No syntax errors, but this edit introduced warnings:\nYAMLWarning: mapping key \"a\" already defined at line 1 (line 2, column 1)"}`},
		{"pre-existing warning is not an error", result(LanguageYAML, nil, []protocol.Diagnostic{warnYAML}),
			`{"status":"ok","output":""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.r.ModelLint())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("ModelLint() JSON (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelLintKinds(t *testing.T) {
	t.Parallel()
	for code, kind := range map[string]string{
		CodeJSONSyntax: "JSONDecodeError", CodeJSONCSyntax: "JSONDecodeError", CodeYAMLSyntax: "YAMLError",
		CodeTOMLSyntax: "TOMLDecodeError", CodeGoSyntax: "GoSyntaxError", CodeGoModSyntax: "GoModError",
	} {
		r := result(LanguageNone, []protocol.Diagnostic{diag(0, 0, protocol.DiagnosticSeverityError, code, "m")}, nil)
		if got, want := r.ModelLint().Output, kind+": m (line 1, column 1)"; got != want {
			t.Errorf("ModelLint() for code %s = %q, want %q", code, got, want)
		}
	}
}

func TestModelLintCapsOutput(t *testing.T) {
	t.Parallel()
	var ds []protocol.Diagnostic
	for i := range 25 {
		ds = append(ds, diag(uint32(i), 0, protocol.DiagnosticSeverityError, CodeGoSyntax, "bad"))
	}
	out := result(LanguageGo, ds, nil).ModelLint().Output
	lines := strings.Split(out, "\n")
	if len(lines) != maxModelLines+1 || lines[maxModelLines] != "... and 5 more" {
		t.Errorf("ModelLint().Output has %d lines ending %q; want %d lines ending %q",
			len(lines), lines[len(lines)-1], maxModelLines+1, "... and 5 more")
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"clean", result(LanguageJSON, nil, nil), "no new lint errors"},
		{"one", result(LanguageJSON, []protocol.Diagnostic{errJSON}, nil), "this edit introduces 1 syntax error"},
		{"two", result(LanguageJSON, []protocol.Diagnostic{errJSON, errJSON2}, nil), "this edit introduces 2 syntax errors"},
		{"errors and warning", result(LanguageYAML, []protocol.Diagnostic{errJSON, warnYAML}, nil), "this edit introduces 1 syntax error and 1 warning"},
		{"warning", result(LanguageYAML, []protocol.Diagnostic{warnYAML}, nil), "this edit introduces 1 warning"},
		{"pre-existing", result(LanguageJSON, nil, []protocol.Diagnostic{errJSON, errJSON2}), "no new lint errors (2 pre-existing errors)"},
		{"new and pre-existing", result(LanguageJSON, []protocol.Diagnostic{errJSON}, []protocol.Diagnostic{errJSON2}), "this edit introduces 1 syntax error (1 pre-existing error)"},
		{"skipped", DeltaFile("notes.txt", nil, []byte("x")), "lint skipped: No linter for .txt files"},
	} {
		if got := tc.r.Summary(); got != tc.want {
			t.Errorf("%s: Summary() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDiagnosticsForEditor(t *testing.T) {
	t.Parallel()
	r := result(LanguageJSON, []protocol.Diagnostic{errJSON2}, []protocol.Diagnostic{errJSON})
	got := r.Diagnostics()
	if len(got) != 2 || got[0].Message != errJSON.Message || got[1].Message != errJSON2.Message {
		t.Fatalf("Diagnostics() = %v, want the pre-existing one (line 2) then the introduced one (line 5)", got)
	}
	if got[0].Data.(map[string]any)["introduced"] != false || got[1].Data.(map[string]any)["introduced"] != true {
		t.Errorf("Diagnostics() Data = %v, %v; want introduced false, true", got[0].Data, got[1].Data)
	}
	if r.Introduced[0].Data != nil {
		t.Errorf("Diagnostics() modified the Result's own diagnostics")
	}
	data, err := json.Marshal(got[1])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"range":{"start":{"line":5,"character":3},"end":{"line":5,"character":3}},"severity":1,"code":"json-syntax","source":"hermes-lint","message":"unexpected end of JSON input","data":{"introduced":true}}`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("diagnostic JSON (-want +got):\n%s", diff)
	}

	empty, err := json.Marshal(Delta(LanguageJSON, nil, []byte("{}")).Diagnostics())
	if err != nil || string(empty) != "[]" {
		t.Errorf("json.Marshal(clean Diagnostics()) = %s, %v; want []", empty, err)
	}
}

func TestMeta(t *testing.T) {
	t.Parallel()
	r := Delta(LanguageJSON, nil, []byte("{\"a\": 1,}\n"))
	data, err := json.Marshal(r.Meta("file:///w/config.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"error","introduced":1,"preexisting":0,"diagnostics":[{"uri":"file:///w/config.json","diagnostics":[` +
		`{"range":{"start":{"line":0,"character":8},"end":{"line":0,"character":9}},"severity":1,"code":"json-syntax","source":"hermes-lint",` +
		`"message":"invalid character '}' looking for beginning of object key string","data":{"introduced":true}}]}]}`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("Meta JSON (-want +got):\n%s", diff)
	}
	clean, err := json.Marshal(Delta(LanguageJSON, nil, []byte("{}")).Meta("file:///w/a.json"))
	if err != nil || !strings.Contains(string(clean), `"diagnostics":[]`) {
		t.Errorf("clean Meta JSON = %s, %v; want an empty diagnostics list", clean, err)
	}
}

func TestGate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		file          string
		newFile       bool
		before, after string
		wantErr       string // "" for no error
	}{
		{"invalid json", "a.json", false, "", "{\"a\": 1,}\n",
			"JSONDecodeError: invalid character '}' looking for beginning of object key string (line 1, column 9)"},
		{"invalid json, new file", "a.json", true, "", "[1 2]\n",
			"JSONDecodeError: invalid character '2' after array element (line 1, column 4)"},
		{"invalid yaml", "a.yaml", false, "a: 1\n", "a: 1\n b: 2\n",
			"YAMLError: mapping values are not allowed in this context (line 2, column 2)"},
		{"invalid yml", "a.yml", false, "", "a: [1\n", "YAMLError: did not find expected ',' or ']' (line 1, column 1)"},
		{"invalid toml", "a.toml", false, "", "a = \n", "TOMLDecodeError: expected value but found '\\n' instead (line 1, column 5)"},
		{"invalid jsonc", "tsconfig.json", false, "", "{ /* x\n", "JSONDecodeError: unterminated block comment (line 1, column 3)"},
		{"valid json", "a.json", false, "", "{\"a\": 1}\n", ""},
		{"multi-document yaml", "a.yaml", false, "", "a: 1\n---\nb: 2\n", ""},
		{"yaml custom tags", "a.yaml", false, "", "x: !Sub '${A}'\ny: !Ref B\n", ""},
		{"yaml duplicate key is only a warning", "a.yaml", false, "", "a: 1\na: 2\n", ""},
		{"pre-existing error is not refused", "a.json", false, "{\n  \"a\": 1,\n}\n", "{\n  \"b\": 0,\n  \"a\": 1,\n}\n", ""},
		{"go is never refused", "main.go", false, "", "package main\nfunc {", ""},
		{"go.mod is never refused", "go.mod", false, "", "bogus\n", ""},
		{"notes.txt garbage is written", "notes.txt", false, "", "{{{", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := []byte(tc.before)
			if tc.newFile {
				before = nil
			}
			err := Gate(LanguageFor(tc.file), before, []byte(tc.after))
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("Gate(%s, %q) = %v, want nil", tc.file, tc.after, err)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) || err.Error() != tc.wantErr {
				t.Errorf("Gate(%s, %q) = %v, want *SyntaxError %q", tc.file, tc.after, err, tc.wantErr)
			}
		})
	}
}

func TestRefusalMessage(t *testing.T) {
	t.Parallel()
	err := Gate(LanguageJSON, nil, []byte("{\"a\": 1,}"))
	got := RefusalMessage("/w/config.json", err)
	want := "Refusing to write '/w/config.json': candidate content fails .json syntax validation " +
		"(JSONDecodeError: invalid character '}' looking for beginning of object key string (line 1, column 9)). " +
		"The file was NOT created or modified."
	if got != want {
		t.Errorf("RefusalMessage() = %q, want %q", got, want)
	}
	if got := RefusalMessage("a.YML", fmt.Errorf("x")); !strings.Contains(got, "fails .yml syntax validation (x)") {
		t.Errorf("RefusalMessage(a.YML) = %q, want the lower-cased extension", got)
	}
}

// Gate runs the syntax gate (a test helper: the product gates the result
// of Linter.DeltaFileContext) on an edit from before (nil for a new file) to
// after; see [Result.Gate]. Go and go.mod files are never refused, and are
// not even parsed here.
func Gate(lang Language, before, after []byte) error {
	if !gated(lang) {
		return nil
	}
	return Delta(lang, before, after).Gate()
}
