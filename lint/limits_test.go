package lint

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
)

func TestCheckLimits(t *testing.T) {
	t.Parallel()
	deepYAMLBlock := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(" ", i) + "a:\n")
		}
		return b.String()
	}
	tests := []struct {
		name    string
		lang    Language
		content string
		// want is the finding's code and a substring of its message; ""
		// means clean.
		wantCode, wantMsg string
		wantLine          uint32
	}{
		{"toml table header of 24 000 parts", LanguageTOML, "[" + strings.Repeat("a.", 24000) + "b]\nx = 1\n", CodeLintLimit, "nesting deeper than 64 levels", 0},
		{"toml dotted key of 6 000 parts", LanguageTOML, "x = 1\n" + strings.Repeat("a.", 6000) + "b = 1\n", CodeLintLimit, "not checked further", 1},
		{"toml inline tables 2 000 deep", LanguageTOML, "a = " + strings.Repeat("{b=", 2000) + "1" + strings.Repeat("}", 2000) + "\n", CodeLintLimit, "nesting deeper than 64", 0},
		{"toml arrays 100 deep", LanguageTOML, "a = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", CodeLintLimit, "nesting deeper than 64", 0},
		{"toml 60 parts is checked", LanguageTOML, "[" + strings.Repeat("a.", 59) + "b]\nx = 1\n", "", "", 0},
		{"toml 60 parts is checked and its errors found", LanguageTOML, "[" + strings.Repeat("a.", 59) + "b]\nx = \n", CodeTOMLSyntax, "", 1},
		{"toml brackets and dots in strings do not count", LanguageTOML, "a = \"" + strings.Repeat("[{.", 100) + "\"\nb = '" + strings.Repeat(".", 100) + "'\nc = \"\"\"\n" + strings.Repeat("[", 100) + "\"\"\"\n# " + strings.Repeat("[", 100) + "\n", "", "", 0},
		{"toml a long array of floats is checked", LanguageTOML, "a = [" + strings.Repeat("1.5, ", 1000) + "2.5]\n", "", "", 0},
		{"go parentheses 20 000 deep", LanguageGo, "package p\n\nvar x = " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000) + "\n", CodeLintLimit, "deeper than 1000 levels", 2},
		{"go 900 deep is checked", LanguageGo, "package p\n\nvar x = " + strings.Repeat("(", 900) + "1" + strings.Repeat(")", 900) + "\n", "", "", 0},
		{"go brackets in strings and comments do not count", LanguageGo, "package p\n\nvar x = \"" + strings.Repeat("(", 2000) + "\" + `" + strings.Repeat("{", 2000) + "` // " + strings.Repeat("[", 2000) + "\n/* " + strings.Repeat("(", 2000) + " */\n", "", "", 0},
		{"json 100 000 deep", LanguageJSON, strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000), CodeJSONSyntax, "exceeded max depth", 0},
		{"yaml flow 100 000 deep", LanguageYAML, strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n", CodeYAMLSyntax, "exceeded max depth", 0},
		{"yaml block 300 deep is checked", LanguageYAML, deepYAMLBlock(300), "", "", 0},
		{"yaml over 2 MiB", LanguageYAML, strings.Repeat("a: 1\n", 1<<20), CodeLintLimit, "file is 5.0 MiB; yaml files are checked up to 2 MiB; not checked", 0},
		{"toml over 1 MiB", LanguageTOML, strings.Repeat("# x\n", 1<<18+1), CodeLintLimit, "toml files are checked up to 1 MiB", 0},
		{"go over 4 MiB", LanguageGo, "package p\n" + strings.Repeat("// x\n", 1<<20), CodeLintLimit, "go files are checked up to 4 MiB", 0},
		{"json over 16 MiB", LanguageJSON, "[" + strings.Repeat("1,", 8<<20) + "1]", CodeLintLimit, "json files are checked up to 16 MiB", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := Check(tt.lang, []byte(tt.content))
			if tt.wantCode == "" {
				if len(ds) != 0 {
					t.Fatalf("Check(%s) = %+v, want clean", tt.name, ds)
				}
				return
			}
			if len(ds) == 0 || ds[0].Code != tt.wantCode || !strings.Contains(ds[0].Message, tt.wantMsg) || ds[0].Range.Start.Line != tt.wantLine {
				t.Fatalf("Check(%s) = %+v, want code %s on line %d with %q", tt.name, ds, tt.wantCode, tt.wantLine, tt.wantMsg)
			}
			if tt.wantCode == CodeLintLimit && (len(ds) != 1 || ds[0].Severity != protocol.DiagnosticSeverityWarning) {
				t.Errorf("Check(%s) = %+v, want one warning", tt.name, ds)
			}
		})
	}
}

// TestDeltaLimitModelLint checks what the model reads about a file over a
// limit: the edit is not refused and the warning names the limit.
func TestDeltaLimitModelLint(t *testing.T) {
	t.Parallel()
	deep := []byte("[" + strings.Repeat("a.", 24000) + "b]\n")
	r := Delta(LanguageTOML, []byte("x = 1\n"), deep)
	if err := r.Gate(); err != nil {
		t.Errorf("Gate() = %v; a file over a limit must not be refused as a syntax error", err)
	}
	m := r.ModelLint()
	if m.Status != StatusOK || !strings.Contains(m.Message, "nesting deeper than 64 levels") {
		t.Errorf("ModelLint() = %+v, want ok with the limit in the message", m)
	}
	// The same warning before and after the edit is pre-existing.
	r = Delta(LanguageTOML, append([]byte("y = 2\n"), deep...), append([]byte("y = 3\n"), deep...))
	if len(r.Introduced) != 0 || len(r.Preexisting) != 1 {
		t.Errorf("Delta(edit above a deep header) = %d introduced, %d pre-existing; want 0, 1", len(r.Introduced), len(r.Preexisting))
	}
}

// tripCtx is a context that reports Canceled from its trip-th call to Err
// on: a cancel that arrives between two steps of a lint, at a point that
// does not depend on timing.
type tripCtx struct {
	context.Context
	calls atomic.Int64
	trip  int64
}

func (c *tripCtx) Err() error {
	if c.calls.Add(1) >= c.trip {
		return context.Canceled
	}
	return nil
}

func TestDeltaContextCancel(t *testing.T) {
	t.Parallel()
	langs := []struct {
		name          string
		before, after string
	}{
		{"a.toml", "a = 1\nb = [\n", "a = 2\nb = [\n"},
		{"a.json", "{\"a\": 1,}", "{\"a\": 2,}"},
		{"a.yaml", "a: [\nb: 1\n", "a: [\nb: 2\n"},
		{"a.go", "package p\nfunc f() {\n", "package p\nfunc g() {\n"},
	}
	for _, tt := range langs {
		for _, trip := range []int64{1, 2} {
			t.Run(fmt.Sprintf("%s cancelled at look %d", tt.name, trip), func(t *testing.T) {
				t.Parallel()
				var l Linter
				ctx := &tripCtx{Context: context.Background(), trip: trip}
				r, err := l.DeltaFileContext(ctx, tt.name, []byte(tt.before), []byte(tt.after))
				if !errors.Is(err, context.Canceled) || r.Introduced != nil || r.Preexisting != nil {
					t.Fatalf("DeltaFileContext = %+v, %v; want no Result and context.Canceled", r, err)
				}
			})
		}
		t.Run(tt.name+" not cancelled", func(t *testing.T) {
			t.Parallel()
			var l Linter
			r, err := l.DeltaFileContext(context.Background(), tt.name, []byte(tt.before), []byte(tt.after))
			want := l.DeltaFile(tt.name, []byte(tt.before), []byte(tt.after))
			if err != nil || len(r.Introduced)+len(r.Preexisting) == 0 || len(r.Introduced) != len(want.Introduced) {
				t.Fatalf("DeltaFileContext = %+v, %v; want DeltaFile's %+v", r, err, want)
			}
		})
	}
}
