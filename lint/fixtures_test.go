package lint

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want and model sections of testdata/*/*.txtar")

// fixtureLanguages maps each testdata folder to the language of its cases.
var fixtureLanguages = map[string]Language{
	"json":  LanguageJSON,
	"jsonc": LanguageJSONC,
	"yaml":  LanguageYAML,
	"toml":  LanguageTOML,
	"go":    LanguageGo,
	"gomod": LanguageGoMod,
}

// fixture is one lint case read from testdata/<lang>/<name>.txtar: a comment
// saying what it shows, an optional "before" file (absent: a new file), an
// "after" file, and the golden "want" diagnostics and "model" output.
type fixture struct {
	path      string
	lang      Language
	archive   *txtar.Archive
	before    []byte // nil when the archive has no before section
	after     []byte
	want      string
	wantModel string
}

// readFixtures loads every fixture under testdata.
func readFixtures(t testing.TB) []fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no fixtures under testdata")
	}
	var fixtures []fixture
	for _, path := range paths {
		lang, ok := fixtureLanguages[filepath.Base(filepath.Dir(path))]
		if !ok {
			t.Fatalf("%s: folder names no language", path)
		}
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fx := fixture{path: path, lang: lang, archive: ar}
		var haveAfter bool
		for _, f := range ar.Files {
			switch f.Name {
			case "before":
				fx.before = f.Data
				if fx.before == nil {
					fx.before = []byte{}
				}
			case "after":
				fx.after, haveAfter = f.Data, true
			case "want":
				fx.want = string(f.Data)
			case "model":
				fx.wantModel = string(f.Data)
			default:
				t.Fatalf("%s: unknown section %q", path, f.Name)
			}
		}
		if !haveAfter {
			t.Fatalf("%s: no after section", path)
		}
		if len(bytes.TrimSpace(ar.Comment)) == 0 {
			t.Fatalf("%s: no comment saying what the case shows", path)
		}
		fixtures = append(fixtures, fx)
	}
	return fixtures
}

// TestFixtures runs Delta on every fixture and compares its diagnostics and
// its model output with the goldens; -update rewrites the goldens.
func TestFixtures(t *testing.T) {
	for _, fx := range readFixtures(t) {
		t.Run(strings.TrimSuffix(filepath.ToSlash(fx.path), ".txtar"), func(t *testing.T) {
			r := Delta(fx.lang, fx.before, fx.after)
			got := formatResult(r)
			gotModel := formatModel(t, r.ModelLint())
			if *update {
				writeGoldens(t, fx, got, gotModel)
				return
			}
			if diff := cmp.Diff(fx.want, got); diff != "" {
				t.Errorf("Delta(%s) diagnostics mismatch (-want +got):\n%s", fx.lang, diff)
			}
			if diff := cmp.Diff(fx.wantModel, gotModel); diff != "" {
				t.Errorf("Delta(%s).ModelLint() mismatch (-want +got):\n%s", fx.lang, diff)
			}
			checkRanges(t, fx.after, r.Introduced)
			checkRanges(t, fx.after, r.Preexisting)
		})
	}
}

// writeGoldens replaces the want and model sections of a fixture.
func writeGoldens(t *testing.T, fx fixture, want, model string) {
	t.Helper()
	ar := &txtar.Archive{Comment: fx.archive.Comment}
	for _, f := range fx.archive.Files {
		if f.Name != "want" && f.Name != "model" {
			ar.Files = append(ar.Files, f)
		}
	}
	ar.Files = append(ar.Files,
		txtar.File{Name: "want", Data: []byte(want)},
		txtar.File{Name: "model", Data: []byte(model)})
	if err := os.WriteFile(fx.path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// formatResult renders a Result one diagnostic per line:
// "<introduced|preexisting> L:C-L:C <severity> <code> <message>".
func formatResult(r Result) string {
	var b strings.Builder
	for _, d := range r.Diagnostics() {
		status := "preexisting"
		if d.Data.(map[string]any)["introduced"] == true {
			status = "introduced"
		}
		fmt.Fprintf(&b, "%s %s\n", status, formatDiagnostic(d))
	}
	return b.String()
}

// formatDiagnostic renders "L:C-L:C <severity> <code> <message>".
func formatDiagnostic(d protocol.Diagnostic) string {
	sev := map[protocol.DiagnosticSeverity]string{
		protocol.DiagnosticSeverityError:   "error",
		protocol.DiagnosticSeverityWarning: "warning",
	}[d.Severity]
	return fmt.Sprintf("%d:%d-%d:%d %s %s %s",
		d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character,
		sev, d.Code, d.Message)
}

// formatModel renders the model's lint object as indented JSON.
func formatModel(t *testing.T, m ModelLint) string {
	t.Helper()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

// checkRanges fails when a diagnostic's range is reversed or leaves content,
// or when it is empty although a token is there to cover.
func checkRanges(t testing.TB, content []byte, ds []protocol.Diagnostic) {
	t.Helper()
	m := NewMapper(content)
	for _, d := range ds {
		start, err := m.Offset(d.Range.Start)
		if err != nil {
			t.Fatalf("diagnostic %q starts outside the content: %v", d.Message, err)
		}
		end, err := m.Offset(d.Range.End)
		if err != nil {
			t.Fatalf("diagnostic %q ends outside the content: %v", d.Message, err)
		}
		if start > end {
			t.Fatalf("diagnostic %q has a reversed range %v", d.Message, d.Range)
		}
		if start == end && start < len(content) && len(bytes.TrimSpace(content[start:])) > 0 &&
			!bytes.ContainsAny(content[start:start+1], " \t") {
			t.Errorf("diagnostic %q has an empty range at %v although a token is there", d.Message, d.Range.Start)
		}
		if d.Source != Source {
			t.Errorf("diagnostic %q has source %q, want %q", d.Message, d.Source, Source)
		}
	}
}
