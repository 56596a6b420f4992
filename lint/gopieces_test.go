package lint

import (
	"path/filepath"
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
		"crlf.go":             []byte("package p\r\n\r\nfunc f() {\r\n}\r\n\r\nvar s = `\r\nfunc g() {}\r\n`\r\n\r\nfunc g() {}\r\n"),
		"crlf-broken.go":      []byte("package p\r\n\r\nfunc f() {\r\n\tx :=\r\n}\r\n\r\nfunc g() {}\r\n"),
		"bare-cr.go":          []byte("package p\n\nfunc f() {}\rfunc g() {}\n\nfunc h() {}\n"),
		"bom-at-start.go":     []byte("\ufeffpackage p\n\nfunc f() {}\n\nfunc g() {}\n"),
		"bom-in-a-piece.go":   []byte("package p\n\nfunc f() {}\n\nfunc g() { _ = \"\ufeff\" }\n"),
		"nul-in-a-piece.go":   []byte("package p\n\nfunc f() {}\n\nfunc g() { _ = \"\x00\" }\n"),
		"invalid-utf8.go":     []byte("package p\n\nfunc f() {}\n\nvar s = \"\xff\"\n"),
		"empty.go":            {},
		"only-package.go":     []byte("package p\n"),
		"interpreted-nl.go":   []byte("package p\n\nvar s = \"abc\nfunc f() {}\n\nfunc g() {}\n"),
		"rune-nl.go":          []byte("package p\n\nvar r = '\nfunc f() {}\n"),
		"deep-nesting.go":     []byte("package p\n\nfunc f() {}\n\nvar x = " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + "\n"),
		"many-errors.go":      []byte("package p\n\nfunc f() {\n" + strings.Repeat("\tx :=\n", 30) + "}\n\nfunc g() {}\n"),
		"import-late-crlf.go": []byte("package p\r\n\r\nfunc f() {}\r\n\r\nimport \"fmt\"\r\n"),
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

// splitters returns the splitters the differential tests try: 2, 3 and 8
// pieces, and one piece per 64 bytes, each on as many goroutines when
// workers is set (the unit tests, run with -race), else on the calling
// goroutine (the fuzz targets, whose coverage must not depend on
// scheduling, or the fuzzer keeps minimizing).
func splitters(workers bool) []goSplitter {
	var ss []goSplitter
	for _, s := range []goSplitter{{pieces: 2}, {pieces: 3}, {pieces: 8}, {pieces: 2, pieceSize: 64}} {
		s.workers, s.editShare = 1, 1
		if workers {
			s.workers = s.pieces
		}
		ss = append(ss, s)
	}
	return ss
}

// assertPiecesMatchWhole checks, for one Go file, the two promises of the
// parse in pieces: clean pieces mean a clean file (for cuts at the lexer's
// lines and at every declaration line), and the splitter's findings are a
// whole-file parse's, for each of [splitters].
func assertPiecesMatchWhole(t *testing.T, content []byte, workers bool) {
	t.Helper()
	want := wholeGo(content)
	for _, cuts := range [][]int{goDeclStarts(content, 0, len(content)), everyDeclLine(content)} {
		pieces := goGroups(cuts, 0, len(content), len(cuts)+1)
		if len(pieces) > 0 && goPiecesClean(content, pieces, 1) && len(want) != 0 {
			t.Fatalf("pieces %v of %q are all clean, but the whole file has %v", pieces, content, want)
		}
	}
	for _, s := range splitters(workers) {
		got := runParser(LanguageGo, content, s.check)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(finding{})); diff != "" {
			t.Fatalf("check(%q) with %+v (-whole +pieces):\n%s", content, s, diff)
		}
	}
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
// clean file with several declarations is proved clean by its pieces, so no
// whole-file parse is needed.
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
			starts := goDeclStarts(content, 0, len(content))
			pieces := goGroups(starts, 0, len(content), len(starts)+1)
			if len(pieces) < 2 {
				t.Fatalf("goDeclStarts(%s) = %v, want at least one cut", name, starts)
			}
			if !goPiecesClean(content, pieces, 2) {
				t.Errorf("pieces %v of %s are not all clean, want all clean", pieces, name)
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
			for _, off := range goDeclStarts(content, 0, len(content)) {
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

func TestGoDeclStartsRangeAndCut(t *testing.T) {
	t.Parallel()
	content := []byte("package p\nfunc a() {}\nfunc b() {}\nfunc c() {}\nfunc d() {}\n")
	// Lines start at 10, 22, 34 and 46.
	for _, tc := range []struct {
		from, until int
		want        []int
	}{
		{0, len(content), []int{10, 22, 34, 46}},
		{0, 20, []int{10, 22}},
		{0, 22, []int{10, 22}},
		{22, 30, []int{34}},
		{46, 100, nil},
	} {
		if got := goDeclStarts(content, tc.from, tc.until); !cmp.Equal(tc.want, got) {
			t.Errorf("goDeclStarts(%d, %d) = %v, want %v", tc.from, tc.until, got, tc.want)
		}
	}
	for _, tc := range []struct {
		from, to, n int
		want        []goPiece
	}{
		{0, len(content), 2, []goPiece{{0, 34}, {34, len(content)}}},
		{0, len(content), 1, []goPiece{{0, len(content)}}},
		{22, len(content), 2, []goPiece{{22, 46}, {46, len(content)}}},
		{10, 10, 2, nil},
	} {
		if got := goCut(content, tc.from, tc.to, tc.n); !cmp.Equal(tc.want, got, cmp.AllowUnexported(goPiece{})) {
			t.Errorf("goCut(%d, %d, %d) = %v, want %v", tc.from, tc.to, tc.n, got, tc.want)
		}
	}
}

func TestGoGroups(t *testing.T) {
	t.Parallel()
	starts := []int{10, 20, 30, 40, 50, 60, 70, 80, 90}
	for _, tc := range []struct {
		from, to, n int
		want        []goPiece
	}{
		{0, 100, 1, []goPiece{{0, 100}}},
		{0, 100, 2, []goPiece{{0, 50}, {50, 100}}},
		{0, 100, 3, []goPiece{{0, 40}, {40, 70}, {70, 100}}},
		{0, 100, 20, []goPiece{{0, 10}, {10, 20}, {20, 30}, {30, 40}, {40, 50}, {50, 60}, {60, 70}, {70, 80}, {80, 90}, {90, 100}}},
		{0, 15, 4, []goPiece{{0, 10}, {10, 15}}},
		{55, 100, 2, []goPiece{{55, 80}, {80, 100}}},
		{0, 100, 0, []goPiece{{0, 100}}},
		{40, 40, 2, nil},
	} {
		if got := goGroups(starts, tc.from, tc.to, tc.n); !cmp.Equal(tc.want, got, cmp.AllowUnexported(goPiece{})) {
			t.Errorf("goGroups(%d, %d, %d) = %v, want %v", tc.from, tc.to, tc.n, got, tc.want)
		}
	}
}

func TestParseGoPieceRefusesBadCuts(t *testing.T) {
	t.Parallel()
	content := []byte("package p\n\nvar x = 1\nfunc f() {}\nimport \"fmt\"\n  func g() {}\n")
	for _, tc := range []struct {
		name  string
		piece goPiece
		want  bool
	}{
		{"the header", goPiece{0, 21}, true},
		{"a declaration line", goPiece{21, 33}, true},
		{"not after a line break", goPiece{22, 33}, false},
		{"an import line", goPiece{33, 46}, false},
		{"an indented line", goPiece{46, len(content)}, false},
	} {
		if got := parseGoPiece(content, tc.piece); got != tc.want {
			t.Errorf("parseGoPiece(%s %q) = %v, want %v", tc.name, content[tc.piece.start:tc.piece.end], got, tc.want)
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
		pieces := goGroups(cuts, 0, len(content), len(cuts)+1)
		if len(pieces) > 0 && goPiecesClean(content, pieces, 1) {
			if fs := wholeGo(content); len(fs) != 0 {
				t.Fatalf("pieces %v of %q are all clean, but the whole file has %v", pieces, content, fs)
			}
		}
	})
}

func TestGoSplitterCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    goSplitter
		n    int
		want int
	}{
		{goSplitter{pieces: 4}, 1 << 20, 4},
		{goSplitter{pieces: 4, pieceSize: goPieceSize}, 8 << 10, 4},
		{goSplitter{pieces: 4, pieceSize: goPieceSize}, 64 << 10, 16},
		{goSplitter{pieces: 4, pieceSize: goPieceSize}, 10 << 20, goMaxPieces},
	} {
		if got := tc.s.count(tc.n); got != tc.want {
			t.Errorf("%+v.count(%d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}
