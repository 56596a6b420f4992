package lint

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

var (
	errTypes  = diag(4, 1, protocol.DiagnosticSeverityError, CodeGoTypes, "undefined: missing")
	errTypes2 = diag(1, 8, protocol.DiagnosticSeverityError, CodeGoTypes, `"os" imported and not used`)
	errOther  = diag(2, 9, protocol.DiagnosticSeverityError, CodeGoTypes, "undefined: Old")
)

// goResult is the clean delta lint of a Go edit with the type errors here
// and, in b.go, elsewhere.
func goResult(here []protocol.Diagnostic, elsewhere ...protocol.Diagnostic) Result {
	var other []FileDiagnostics
	if len(elsewhere) > 0 {
		other = []FileDiagnostics{{URI: "file:///w/p/b%20c.go", Diagnostics: elsewhere}}
	}
	return Delta(LanguageGo, []byte("package p\n"), []byte("package p\n")).WithTypes(here, other)
}

// TestTypesSummary: the approval prompt counts type errors apart from
// syntax errors, in the edited file and in the others of its package, and
// says when the type check has not finished.
func TestTypesSummary(t *testing.T) {
	t.Parallel()
	pending := Delta(LanguageGo, nil, []byte("package p\n"))
	pending.TypesPending = true
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"one here", goResult([]protocol.Diagnostic{errTypes}), "this edit introduces 1 type error"},
		{"one elsewhere", goResult(nil, errOther), "this edit introduces 1 type error"},
		{"both", goResult([]protocol.Diagnostic{errTypes, errTypes2}, errOther), "this edit introduces 3 type errors"},
		{"with syntax errors", result(LanguageGo, []protocol.Diagnostic{diag(0, 0, protocol.DiagnosticSeverityError, CodeGoSyntax, "x"), errTypes, warnYAML}, nil),
			"this edit introduces 1 syntax error, 1 type error and 1 warning"},
		{"none", goResult(nil), "no new lint errors"},
		{"pending", pending, "no new lint errors; Go type check still running"},
	} {
		if got := tc.r.Summary(); got != tc.want {
			t.Errorf("%s: Summary() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestTypesModelLint: the model reads type errors as GoTypeError lines,
// those of other files naming the file, and is told when the check is
// still running.
func TestTypesModelLint(t *testing.T) {
	t.Parallel()
	pending := Delta(LanguageGo, nil, []byte("package p\n"))
	pending.TypesPending = true
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"here and elsewhere", goResult([]protocol.Diagnostic{errTypes, errTypes2}, errOther),
			`{"status":"error","output":"GoTypeError: \"os\" imported and not used (line 2, column 9)\nGoTypeError: undefined: missing (line 5, column 2)\nGoTypeError: undefined: Old (in b c.go, line 3, column 10)"}`},
		{"clean", goResult(nil), `{"status":"ok","output":""}`},
		{"pending", pending, `{"status":"ok","output":"","message":"The Go type check of this edit is still running; its findings will be shown in the editor."}`},
	} {
		got, err := json.Marshal(tc.r.ModelLint())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("%s: ModelLint (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestTypesMeta: _meta.hermes.lint counts the errors of other files as
// introduced and lists their file after the edited one.
func TestTypesMeta(t *testing.T) {
	t.Parallel()
	r := goResult([]protocol.Diagnostic{errTypes}, errOther)
	m := r.Meta("file:///w/p/a.go")
	if m.Status != StatusError || m.Introduced != 2 || len(m.Diagnostics) != 2 {
		t.Fatalf("Meta = %+v; want status error, 2 introduced, 2 files", m)
	}
	if m.Diagnostics[1].URI != "file:///w/p/b%20c.go" || m.Diagnostics[1].Diagnostics[0].Data.(map[string]any)["introduced"] != true {
		t.Errorf("Meta's second file = %+v; want b c.go's error marked introduced", m.Diagnostics[1])
	}
	if r.Elsewhere[0].Diagnostics[0].Data != nil {
		t.Errorf("Meta modified the Result's own diagnostics")
	}
	if got := r.Diagnostics(); len(got) != 1 || got[0].Message != errTypes.Message {
		t.Errorf("Diagnostics() = %v; want the edited file's type error only", got)
	}
}
