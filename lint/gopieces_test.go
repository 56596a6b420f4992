package lint

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// trickyGoFiles returns testdata/gopieces.txtar's files and a few that a
// txtar cannot hold (CR line breaks, a byte order mark, a NUL), by name.
func trickyGoFiles(t testing.TB) map[string][]byte {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "gopieces.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"crlf.go":               []byte("package p\r\n\r\nfunc f() {\r\n}\r\n\r\nvar s = `\r\nfunc g() {}\r\n`\r\n\r\nfunc g() {}\r\n"),
		"crlf-broken.go":        []byte("package p\r\n\r\nfunc f() {\r\n\tx :=\r\n}\r\n\r\nfunc g() {}\r\n"),
		"bare-cr.go":            []byte("package p\n\nfunc f() {}\rfunc g() {}\n\nfunc h() {}\n"),
		"bom-at-start.go":       []byte("\ufeffpackage p\n\nfunc f() {}\n\nfunc g() {}\n"),
		"bom-in-a-piece.go":     []byte("package p\n\nfunc f() {}\n\nfunc g() { _ = \"\ufeff\" }\n"),
		"nul-in-a-piece.go":     []byte("package p\n\nfunc f() {}\n\nfunc g() { _ = \"\x00\" }\n"),
		"nul-after-first-kw.go": []byte("package p\nfunc\x00 f() {}\n\nfunc g() {}\n\nfunc h() {\n"),
		"nul-after-a-kw.go":     []byte("package p\n\nfunc f() {}\n\nfunc\x00 (t T) M() {}\n\nfunc g() {}\n"),
		"invalid-utf8.go":       []byte("package p\n\nfunc f() {}\n\nvar s = \"\xff\"\n"),
		"empty.go":              {},
		"only-package.go":       []byte("package p\n"),
		"interpreted-nl.go":     []byte("package p\n\nvar s = \"abc\nfunc f() {}\n\nfunc g() {}\n"),
		"rune-nl.go":            []byte("package p\n\nvar r = '\nfunc f() {}\n"),
		"deep-nesting.go":       []byte("package p\n\nfunc f() {}\n\nvar x = " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + "\n"),
		"many-errors.go":        []byte("package p\n\nfunc f() {\n" + strings.Repeat("\tx :=\n", 30) + "}\n\nfunc g() {}\n"),
		"import-late-crlf.go":   []byte("package p\r\n\r\nfunc f() {}\r\n\r\nimport \"fmt\"\r\n"),
	}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	return files
}

// everyDeclLine returns the start of every column-0 func, type, var or const
// line of content, whether or not it is inside a comment or a string: cuts
// that the lexer of goDeclStarts would not offer.
func everyDeclLine(content []byte) []int {
	var cuts []int
	for i := 1; i < len(content); i++ {
		if content[i-1] == '\n' && isGoDeclLine(content, i) {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// wholeGo lints Go content with a whole-file parse only.
func wholeGo(content []byte) []finding {
	return runParser(LanguageGo, content, parseGo)
}

// checkers returns the checkers the differential tests try, each with a
// fresh cache: pieces of one segment, of 64 bytes and of the default size,
// each on several goroutines when workers is set (the unit tests, run with
// -race), else on the calling goroutine (the fuzz targets, whose coverage
// must not depend on scheduling, or the fuzzer keeps minimizing).
func checkers(workers bool) []goChecker {
	var gs []goChecker
	for _, size := range []int{1, 64, goPieceSize} {
		g := goChecker{cache: newSegCache(0), workers: 1, pieceSize: size}
		if workers {
			g.workers = 3
		}
		gs = append(gs, g)
	}
	return gs
}

// segments returns the segments of content as [lo, hi) pairs.
func segments(content []byte) [][2]int {
	starts := goSegmentStarts(content)
	segs := make([][2]int, len(starts))
	for i, s := range starts {
		e := len(content)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		segs[i] = [2]int{s, e}
	}
	return segs
}

// assertLearnedClean checks that every segment of content that g's cache
// holds parses clean as a piece of its own: what a Linter remembers must be
// true.
func assertLearnedClean(t *testing.T, g goChecker, content []byte) {
	t.Helper()
	for _, seg := range segments(content) {
		hit := []bool{false}
		g.cache.lookup([]segKey{g.cache.key(content[seg[0]:seg[1]], seg[0] == 0)}, hit)
		if !hit[0] {
			continue
		}
		if clean, _ := parseGoPiece(content, seg[0], seg[1]); !clean {
			t.Fatalf("the cache holds segment %q of %q, which does not parse clean", content[seg[0]:seg[1]], content)
		}
	}
}

// assertPiecesMatchWhole checks, for one Go file, the promises of the parse
// in pieces: clean pieces mean a clean file (for cuts at the lexer's lines
// and at every declaration line); the checker's findings are a whole-file
// parse's, with an empty cache and again with the cache the first check
// filled; and what the cache learned is true.
func assertPiecesMatchWhole(t *testing.T, content []byte, workers bool) {
	t.Helper()
	want := wholeGo(content)
	for _, cuts := range [][]int{goDeclStarts(content), everyDeclLine(content)} {
		if piecesClean(content, cuts) && len(want) != 0 {
			t.Fatalf("pieces at %v of %q are all clean, but the whole file has %v", cuts, content, want)
		}
	}
	for _, g := range checkers(workers) {
		for _, pass := range []string{"empty cache", "warm cache"} {
			got := runParser(LanguageGo, content, g.check)
			if reflect.DeepEqual(want, got) {
				continue // cmp.Diff takes long over thousands of findings
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(finding{})); diff != "" {
				t.Fatalf("check(%q) with pieces of %d, %s (-whole +pieces):\n%s", content, g.pieceSize, pass, diff)
			}
		}
		assertLearnedClean(t, g, content)
	}
}

// piecesClean reports whether content, cut at cuts (sorted offsets, each
// after a "\n"), parses clean piece by piece.
func piecesClean(content []byte, cuts []int) bool {
	lo := 0
	for _, c := range append(cuts, len(content)) {
		if clean, _ := parseGoPiece(content, lo, c); !clean {
			return false
		}
		lo = c
	}
	return true
}

func TestGoPiecesMatchWholeFile(t *testing.T) {
	t.Parallel()
	for name, content := range trickyGoFiles(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertPiecesMatchWhole(t, content, true)
		})
	}
}

// TestGoPiecesProveCleanFilesClean checks that the fast path is taken: every
// clean file with several declarations is proved clean by its pieces, with
// no parse for errors, and every one of its segments is learned, so a second
// check parses nothing.
func TestGoPiecesProveCleanFilesClean(t *testing.T) {
	t.Parallel()
	files := trickyGoFiles(t)
	for _, name := range []string{
		"clean-many-decls.go", "raw-string-spans-func.go", "raw-string-whole-file.go",
		"block-comment-spans-func.go", "import-block-then-import.go", "build-constraints.go",
		"quotes-and-backquotes.go", "crlf.go", "bom-at-start.go", "keyword-prefixes.go",
		"no-final-newline.go",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			content := files[name]
			if fs := wholeGo(content); len(fs) != 0 {
				t.Fatalf("%s is not clean: %v", name, fs)
			}
			if starts := goDeclStarts(content); len(starts) == 0 {
				t.Fatalf("goDeclStarts(%s) = %v, want at least one cut", name, starts)
			}
			var parses []goParse
			g := goChecker{cache: newSegCache(0), workers: 1, pieceSize: 1, traced: func(p goParse) { parses = append(parses, p) }}
			if fs := g.check(content); len(fs) != 0 {
				t.Fatalf("check = %v, want clean", fs)
			}
			for _, p := range parses {
				if p.region {
					t.Errorf("parsed [%d, %d) for errors, want only pieces", p.lo, p.hi)
				}
			}
			if got, want := g.cache.len(), len(segments(content)); got != want {
				t.Errorf("the cache holds %d segments, want all %d", got, want)
			}
			parses = nil
			g.check(content)
			if len(parses) != 0 {
				t.Errorf("a second check parsed %v, want nothing", parses)
			}
		})
	}
}

func TestGoDeclStarts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		content string
		want    []string // the first line at each start
	}{
		{"top-level declarations", "package p\n\nimport \"fmt\"\n\nfunc f() {}\ntype T int\nvar v = 1\nconst c = 2\n",
			[]string{"func f() {}", "type T int", "var v = 1", "const c = 2"}},
		{"not imports or the package clause", "package p\nimport \"os\"\n", nil},
		{"not inside braces or parentheses", "package p\nfunc f() {\nvar x = 1\n}\nvar (\nfunc\n)\nconst c = 1\n",
			[]string{"func f() {", "var (", "const c = 1"}},
		{"not inside a raw string", "package p\nvar s = `\nfunc f() {}\n`\nfunc g() {}\n", []string{"var s = `", "func g() {}"}},
		{"not inside a block comment", "package p\n/*\nfunc f() {}\n*/\nfunc g() {}\n", []string{"func g() {}"}},
		{"quotes in strings, runes and line comments", "package p\nvar s = \"`{\"\nvar r = '`'\n// ` {\nfunc g() {}\n",
			[]string{"var s = \"`{\"", "var r = '`'", "func g() {}"}},
		{"escaped quote", "package p\nvar s = \"\\\"`\"\nfunc g() {}\n", []string{"var s = \"\\\"`\"", "func g() {}"}},
		{"broken string ends at the line break", "package p\nvar s = \"abc\nfunc f() {}\n", []string{"var s = \"abc", "func f() {}"}},
		{"keyword prefixes are identifiers", "package p\nfuncs := 1\nvariable()\nfuncé()\nfunc(T) M() {}\n", []string{"func(T) M() {}"}},
		{"keyword at the end", "package p\nfunc", nil},
		{"unterminated raw string", "package p\nfunc f() {}\nvar s = `\nfunc g() {}\n", []string{"func f() {}", "var s = `"}},
		{"extra closing brace does not go negative", "package p\n}\nfunc f() {}\n", []string{"func f() {}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			content := []byte(tc.content)
			var got []string
			for _, off := range goDeclStarts(content) {
				if off == 0 || content[off-1] != '\n' {
					t.Errorf("goDeclStarts(%q) offers %d, which does not follow a line break", tc.content, off)
				}
				got = append(got, strings.SplitN(tc.content[off:], "\n", 2)[0])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("goDeclStarts(%q) (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

func TestParseGoPieceRefusesBadCuts(t *testing.T) {
	t.Parallel()
	content := []byte("package p\n\nvar x = 1\nfunc f() {}\nimport \"fmt\"\n  func g() {}\n")
	for _, tc := range []struct {
		name   string
		lo, hi int
		want   bool
	}{
		{"the header", 0, 21, true},
		{"a declaration line", 21, 33, true},
		{"not after a line break", 22, 33, false},
		{"an import line", 33, 46, false},
		{"an indented line", 46, len(content), false},
	} {
		if got, _ := parseGoPiece(content, tc.lo, tc.hi); got != tc.want {
			t.Errorf("parseGoPiece(%s %q) = %v, want %v", tc.name, content[tc.lo:tc.hi], got, tc.want)
		}
	}
}

// FuzzGoPieces checks the parse in pieces against a whole-file parse on any
// input: clean pieces must mean a clean file, whatever the cuts (mask picks
// among the column-0 declaration lines), and the splitter's findings must be
// go/parser's.
func FuzzGoPieces(f *testing.F) {
	for _, content := range trickyGoFiles(f) {
		f.Add(content, uint64(0))
		f.Add(content, ^uint64(0))
	}
	for _, fx := range readFixtures(f) {
		if fx.lang == LanguageGo {
			f.Add(fx.after, uint64(5))
		}
	}
	f.Fuzz(func(t *testing.T, content []byte, mask uint64) {
		assertPiecesMatchWhole(t, content, false)
		var cuts []int
		for i, c := range everyDeclLine(content) {
			if mask&(1<<(i%64)) != 0 {
				cuts = append(cuts, c)
			}
		}
		if piecesClean(content, cuts) {
			if fs := wholeGo(content); len(fs) != 0 {
				t.Fatalf("pieces at %v of %q are all clean, but the whole file has %v", cuts, content, fs)
			}
		}
	})
}
