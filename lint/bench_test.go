package lint

import (
	"bytes"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var fixturesDir = flag.String("fixtures", "", "also write the benchmark fixtures to this folder (for bench/lint/run.sh)")

// benchCase is a generated file and two one-line edits of it: one that keeps
// it valid and one that introduces a syntax error.
type benchCase struct {
	lang                Language
	ext                 string
	before, clean, edit []byte
}

// benchEditedLine is the line of the Go benchmark file that its edits change.
const benchEditedLine = "x := a + b*250\n"

// benchGo returns a 5 000-line Go file of small functions.
func benchGo() benchCase {
	var b strings.Builder
	b.WriteString("package bench\n\nimport \"fmt\"\n")
	for i := 0; strings.Count(b.String(), "\n") < 5000-10; i++ {
		fmt.Fprintf(&b, "\n// F%d adds numbers.\nfunc F%d(a, b int) int {\n\tx := a + b*%d\n\tif x > 100 {\n\t\tfmt.Println(\"big\", x)\n\t}\n\treturn x\n}\n", i, i, i)
	}
	for strings.Count(b.String(), "\n") < 5000 {
		b.WriteString("\n")
	}
	src := b.String()
	return benchCase{
		lang: LanguageGo, ext: ".go", before: []byte(src),
		clean: []byte(strings.Replace(src, benchEditedLine, "x := a - b*250\n", 1)),
		edit:  []byte(strings.Replace(src, benchEditedLine, "x := a + b*\n", 1)),
	}
}

// benchJSON returns a pretty-printed JSON array of about 1 MB.
func benchJSON() benchCase {
	var b strings.Builder
	b.WriteString("[\n")
	for i := 0; b.Len() < 1<<20-200; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"id": %d, "name": "item-%d", "tags": ["alpha", "beta"], "price": %d.5, "active": true}`, i, i, i%100)
	}
	b.WriteString("\n]\n")
	src := b.String()
	return benchCase{
		lang: LanguageJSON, ext: ".json", before: []byte(src),
		clean: []byte(strings.Replace(src, `"name": "item-5000",`, `"name": "item-5000b",`, 1)),
		edit:  []byte(strings.Replace(src, `"name": "item-5000",`, `"name": "item-5000"`, 1)),
	}
}

// benchYAML returns a 5 000-line YAML document.
func benchYAML() benchCase {
	var b strings.Builder
	b.WriteString("items:\n")
	for i := 0; strings.Count(b.String(), "\n") < 5000-5; i++ {
		fmt.Fprintf(&b, "  - id: %d\n    name: item-%d\n    tags: [alpha, beta]\n    enabled: true\n    price: %d.5\n", i, i, i%100)
	}
	for strings.Count(b.String(), "\n") < 5000 {
		b.WriteString("# padding\n")
	}
	src := b.String()
	return benchCase{
		lang: LanguageYAML, ext: ".yaml", before: []byte(src),
		clean: []byte(strings.Replace(src, "    name: item-500\n", "    name: item-500b\n", 1)),
		edit:  []byte(strings.Replace(src, "    name: item-500\n", "     name: item-500\n", 1)),
	}
}

// benchCases generates the benchmark inputs and checks that the edits do
// what they say; with -fixtures it also writes them out.
func benchCases(b *testing.B) map[string]benchCase {
	b.Helper()
	cases := map[string]benchCase{"go": benchGo(), "json": benchJSON(), "yaml": benchYAML()}
	for name, c := range cases {
		if bytes.Equal(c.clean, c.before) || bytes.Equal(c.edit, c.before) {
			b.Fatalf("%s: an edit did not apply", name)
		}
		if ds := Check(c.lang, c.clean); len(ds) != 0 {
			b.Fatalf("%s: the clean edit has diagnostics: %v", name, ds)
		}
		if r := Delta(c.lang, c.before, c.edit); len(r.Introduced) == 0 {
			b.Fatalf("%s: the breaking edit introduces nothing", name)
		}
		if *fixturesDir == "" {
			continue
		}
		// bench: the clean edit; bench_error: the edit adding an error;
		// bench_before: the content both edits start from.
		for suffix, data := range map[string][]byte{"": c.clean, "_error": c.edit, "_before": c.before} {
			path := filepath.Join(*fixturesDir, "bench"+suffix+c.ext)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return cases
}

// BenchmarkCheck measures one Check of each clean file.
func BenchmarkCheck(b *testing.B) {
	cases := benchCases(b)
	for _, name := range []string{"go", "json", "yaml"} {
		c := cases[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(c.clean)))
			for b.Loop() {
				Check(c.lang, c.clean)
			}
		})
	}
}

// BenchmarkDelta measures Delta of a one-line edit in each file: a clean
// edit (the hot path: only the new content is parsed) and an edit that
// introduces an error (both contents are parsed).
//
// For Go it also measures the edit of a file that a [Linter] has learned,
// as the agent's has every file the model read or wrote: the "learned"
// cases. Each run is a new edit of the same line (its number changes), so
// the edited declaration is always new to the Linter and is parsed, as in a
// real edit; building the edited content is counted too.
func BenchmarkDelta(b *testing.B) {
	cases := benchCases(b)
	for _, name := range []string{"go", "json", "yaml"} {
		c := cases[name]
		for _, edit := range []struct {
			name  string
			after []byte
		}{{"clean", c.clean}, {"error", c.edit}} {
			b.Run(name+"/"+edit.name, func(b *testing.B) {
				b.SetBytes(int64(len(edit.after)))
				for b.Loop() {
					Delta(c.lang, c.before, edit.after)
				}
			})
		}
	}
	c := cases["go"]
	for _, edit := range []struct {
		name, line string
		errors     bool
	}{{"clean-learned", "x := a - b*%d\n", false}, {"error-learned", "x := a + b*%d +\n", true}} {
		b.Run("go/"+edit.name, func(b *testing.B) {
			var l Linter
			l.Learn("bench.go", c.before)
			old := []byte(benchEditedLine)
			at := bytes.Index(c.before, old)
			head, tail := c.before[:at], c.before[at+len(old):]
			buf := make([]byte, 0, len(c.before)+32)
			edited := func(i int) []byte {
				buf = append(buf[:0], head...)
				buf = fmt.Appendf(buf, edit.line, 1_000_000+i)
				return append(buf, tail...)
			}
			if r := l.Delta(LanguageGo, c.before, edited(0)); (len(r.Introduced) > 0) != edit.errors || len(r.Preexisting) > 0 {
				b.Fatalf("Delta = %d introduced, %d pre-existing; want errors %v, none pre-existing", len(r.Introduced), len(r.Preexisting), edit.errors)
			}
			b.SetBytes(int64(len(c.before)))
			i := 1
			for b.Loop() {
				l.Delta(LanguageGo, c.before, edited(i))
				i++
			}
		})
	}
}

// BenchmarkDeltaPreexisting measures the slow path: a file that already has
// an error gets another one-line edit, so both contents are parsed and
// line-diffed.
func BenchmarkDeltaPreexisting(b *testing.B) {
	c := benchGo()
	broken := bytes.Replace(c.before, []byte("x := a + b*10\n"), []byte("x := a + b*\n"), 1)
	after := bytes.Replace(broken, []byte("x := a + b*300\n"), []byte("x := a - b*300\n"), 1)
	if r := Delta(c.lang, broken, after); len(r.Preexisting) == 0 || len(r.Introduced) != 0 {
		b.Fatalf("Delta = %d introduced, %d preexisting; want 0, >0", len(r.Introduced), len(r.Preexisting))
	}
	b.SetBytes(int64(len(after)))
	for b.Loop() {
		Delta(c.lang, broken, after)
	}
}

// BenchmarkGoParserWhole measures what any first lint of the Go benchmark
// file costs at least: one go/parser parse of it, whole, on one goroutine.
func BenchmarkGoParserWhole(b *testing.B) {
	c := benchGo()
	b.SetBytes(int64(len(c.clean)))
	for b.Loop() {
		parser.ParseFile(token.NewFileSet(), "", c.clean, parser.AllErrors|parser.SkipObjectResolution)
	}
}
