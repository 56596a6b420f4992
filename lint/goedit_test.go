package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wholeDelta is Delta of Go with every content parsed whole: the reference
// the pieces must agree with.
func wholeDelta(before, after []byte) Result {
	return delta(func(_ Language, content []byte) []finding { return wholeGo(content) }, LanguageGo, before, after)
}

// assertGoEditMatchesWhole checks that Delta of Go through goEdit, with each
// of [splitters], is Delta with whole-file parses.
func assertGoEditMatchesWhole(t *testing.T, before, after []byte, workers bool) {
	t.Helper()
	want := wholeDelta(before, after)
	for _, s := range splitters(workers) {
		got := deltaSides(LanguageGo, before, after, newGoEdit(s, before, after))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Delta(%q, %q) with %+v (-whole +pieces):\n%s", before, after, s, diff)
		}
	}
}

// goFunctions returns a Go file of n small functions.
func goFunctions(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nimport \"fmt\"\n")
	for i := range n {
		fmt.Fprintf(&b, "\n// F%d prints.\nfunc F%d(a int) int {\n\tx := a * %d\n\tif x > 1 {\n\t\tfmt.Println(x)\n\t}\n\treturn x\n}\n", i, i, i)
	}
	return b.String()
}

func TestGoEditMatchesWholeFileDelta(t *testing.T) {
	t.Parallel()
	base := goFunctions(12)
	broken := strings.Replace(base, "x := a * 3\n", "x := a *\n", 1)
	broken9 := strings.Replace(base, "a * 9\n", "a *\n", 1)
	openComment := strings.Replace(base, "x := a * 7\n", "x := a * 7 /*\n", 1)
	edits := []struct {
		name                    string
		before, after           string
		introduced, preexisting int
	}{
		{"clean edit", base, strings.Replace(base, "a * 5\n", "a - 5\n", 1), 0, 0},
		{"error on the next, unchanged line", base, strings.Replace(base, "a * 5\n", "a *\n", 1), 2, 0},
		{"error on the changed line", base, strings.Replace(base, "x := a * 5\n", "x := a * 5)\n", 1), 1, 0},
		{"pre-existing error elsewhere", broken, strings.Replace(broken, "a * 7\n", "a - 7\n", 1), 0, 2},
		{"pre-existing and a new error", broken, strings.Replace(broken, "a * 7\n", "a *\n", 1), 2, 2},
		{"fix the only error", broken, base, 0, 0},
		{"edit the header", base, strings.Replace(base, "import \"fmt\"", "import \"fmt\"\nimport \"os\"", 1), 0, 0},
		{"break the header", base, strings.Replace(base, "package p", "package", 1), 2, 0},
		{"edit the first function", base, strings.Replace(base, "a * 0\n", "a *\n", 1), 2, 0},
		{"edit the last function", base, strings.Replace(base, "a * 11\n", "a *\n", 1), 2, 0},
		{"append a broken function", base, base + "\nfunc G() {\n", 2, 0},
		{"prepend a comment", base, "// hello\n" + base, 0, 0},
		{"delete a function", base, strings.Replace(base, "\n// F4 prints.\nfunc F4(a int) int {\n\tx := a * 4\n\tif x > 1 {\n\t\tfmt.Println(x)\n\t}\n\treturn x\n}\n", "", 1), 0, 0},
		{"open a raw string across functions", base, strings.Replace(base, "x := a * 5\n", "x := `\n", 1), 3, 0},
		{"close a raw string", strings.Replace(base, "x := a * 5\n", "x := `\n", 1), base, 0, 0},
		{"raw string spanning functions, edited inside", "package p\n\nvar s = `\nfunc f() {}\n`\n\nfunc g() {}\n\nfunc h() {}\n", "package p\n\nvar s = `\nfunc f() {\n`\n\nfunc g() {}\n\nfunc h() {}\n", 0, 0},
		{"edit on a declaration line", base, strings.Replace(base, "func F6(a int)", "func F6(a int,, )", 1), 1, 0},
		{"change a keyword", base, strings.Replace(base, "func F6(", "fun F6(", 1), 1, 0},
		{"identical contents", broken, broken, 0, 2},
		{"empty before", "", base, 0, 0},
		{"empty after", base, "", 3, 0},
		{"crlf", strings.ReplaceAll(base, "\n", "\r\n"), strings.ReplaceAll(strings.Replace(base, "a * 5\n", "a *\n", 1), "\n", "\r\n"), 2, 0},
		{"late import added", base, base + "\nimport \"os\"\n", 1, 0},
		{"old error below the edit", broken9, strings.Replace(broken9, "a * 5\n", "a *\n", 1), 2, 2},
		{"old error above the edit", broken, strings.Replace(broken, "a * 5\n", "a *\n", 1), 2, 2},
		{"edit closes an open brace", strings.Replace(base, "\treturn x\n}\n\n// F6", "\treturn x\n\n// F6", 1), strings.Replace(base, "a * 5\n", "a *\n", 1), 2, 0},
		{"old comment left open", openComment, strings.Replace(openComment, "a * 5\n", "a *\n", 1), 2, 3},
		{"edit opens a comment", base, strings.Replace(base, "x := a * 5\n", "x := a * 5 /*\n", 1), 3, 0},
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assertGoEditMatchesWhole(t, []byte(tc.before), []byte(tc.after), true)
			r := Delta(LanguageGo, []byte(tc.before), []byte(tc.after))
			if len(r.Introduced) != tc.introduced || len(r.Preexisting) != tc.preexisting {
				t.Errorf("Delta = %d introduced, %d preexisting; want %d, %d",
					len(r.Introduced), len(r.Preexisting), tc.introduced, tc.preexisting)
			}
		})
	}
}

// TestGoEditParsesOnce checks that the unchanged code is parsed once where
// it should be: a clean one-line edit is proved clean by pieces, and for an
// edit that breaks a clean file, the whole-file parse of after shows before
// clean by a parse of one function. beforeClean must never call a broken
// before clean.
func TestGoEditParsesOnce(t *testing.T) {
	t.Parallel()
	base := goFunctions(200)
	broken := strings.Replace(base, "a * 20\n", "a *\n", 1)
	s := goSplitter{pieces: 2, workers: 2, editShare: goEditMaxShare}
	for _, tc := range []struct {
		name          string
		before, after string
		wantClean     bool // after is clean
		wantOneFunc   bool // beforeClean parses one function of before
	}{
		{"clean edit", base, strings.Replace(base, "a * 100\n", "a - 100\n", 1), true, false},
		{"breaking edit", base, strings.Replace(base, "a * 100\n", "a *\n", 1), false, true},
		{"breaking edit, error on the changed line", base, strings.Replace(base, "a * 100\n", "a * 100)\n", 1), false, true},
		{"new error next to an old one", broken, strings.Replace(broken, "a * 100\n", "a *\n", 1), false, false},
		{"old error inside the edited function", strings.Replace(base, "a * 100\n", "a *\n", 1),
			strings.Replace(base, "a * 100\n", "a *\n\tx := 1\n", 1), false, false},
		{"unclosed brace swallows the rest", strings.Replace(broken, "a * 20\n", "a * 20\n", 1),
			strings.Replace(broken, "\treturn x\n}\n\n// F101", "\treturn x\n\n// F101", 1), false, false},
		{"raw string opened", broken, strings.Replace(broken, "a * 100\n", "`\n", 1), false, false},
		{"broken header", strings.Replace(base, "package p", "package", 1), strings.Replace(base, "package p", "package q q", 1), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newGoEdit(s, []byte(tc.before), []byte(tc.after))
			fs := g.lintAfter()
			if (len(fs) == 0) != tc.wantClean || g.parsed == tc.wantClean {
				t.Fatalf("lintAfter = %d findings, parsed whole %v; want clean %v", len(fs), g.parsed, tc.wantClean)
			}
			if tc.wantClean {
				return
			}
			beforeClean := len(wholeGo([]byte(tc.before))) == 0
			if got := g.beforeClean(); got && !beforeClean {
				t.Errorf("beforeClean() = true for a broken before")
			}
			if got := len(g.lintBefore()) == 0; got != beforeClean {
				t.Errorf("lintBefore clean = %v, want %v", got, beforeClean)
			}
			if tc.wantOneFunc {
				if lo, hi := g.editedPiece(g.after, g.isAfterDecl); hi-lo > 200 || !g.beforeClean() {
					t.Errorf("edited piece [%d, %d) is %d bytes and beforeClean() = %v; want one function, true", lo, hi, hi-lo, g.beforeClean())
				}
			}
		})
	}
}

func TestCommonPrefixSuffix(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefgh", 100) // 800 bytes, several blocks
	for _, tc := range []struct {
		a, b           string
		prefix, suffix int
	}{
		{"", "", 0, 0},
		{"abc", "abc", 3, 3},
		{"abc", "abd", 2, 0},
		{"xbc", "abc", 0, 2},
		{"ab", "abc", 2, 0},
		{long + "X" + long, long + "Y" + long, 800, 800},
		{long + long, long + "Z" + long, 800, 800},
		{long, long[:500], 500, 0},
	} {
		if got := commonPrefix([]byte(tc.a), []byte(tc.b)); got != tc.prefix {
			t.Errorf("commonPrefix(%d bytes, %d bytes) = %d, want %d", len(tc.a), len(tc.b), got, tc.prefix)
		}
		if got := commonSuffix([]byte(tc.a), []byte(tc.b)); got != tc.suffix && tc.a != tc.b {
			t.Errorf("commonSuffix(%d bytes, %d bytes) = %d, want %d", len(tc.a), len(tc.b), got, tc.suffix)
		}
	}
}

// FuzzDeltaGo checks that Delta of Go through goEdit is Delta with
// whole-file parses, for an edit of base that replaces del bytes at off with
// ins, in both directions. Run it with -fuzzminimizetime=1s: an input takes
// milliseconds, and the default minimization of a minute per new input
// leaves no time to fuzz.
func FuzzDeltaGo(f *testing.F) {
	files := trickyGoFiles(f)
	base := goFunctions(6)
	at := func(s, sub string) uint16 { return uint16(strings.Index(s, sub)) }
	f.Add([]byte(base), at(base, "a * 2\n")+3, uint8(2), []byte("*"))
	f.Add([]byte(base), at(base, "a * 2\n"), uint8(5), []byte("`"))
	f.Add([]byte(base), at(base, "return x\n}\n\n// F3")+9, uint8(1), []byte(""))
	f.Add([]byte(base), at(base, "func F4"), uint8(4), []byte("var"))
	f.Add([]byte(base), at(base, "x := a * 1\n"), uint8(0), []byte("/*"))
	f.Add([]byte(base), uint16(len(base)), uint8(0), []byte("\nimport \"os\"\n"))
	for name, content := range files {
		f.Add(content, uint16(len(name)*7%(len(content)+1)), uint8(3), []byte("}\n"))
	}
	for _, fx := range readFixtures(f) {
		if fx.lang == LanguageGo && fx.before != nil {
			off := commonPrefix(fx.before, fx.after)
			suffix := commonSuffix(fx.before[off:], fx.after[off:])
			f.Add(fx.before, uint16(off), uint8(len(fx.before)-off-suffix), fx.after[off:len(fx.after)-suffix])
		}
	}
	f.Fuzz(func(t *testing.T, base []byte, off uint16, del uint8, ins []byte) {
		o := min(int(off), len(base))
		d := min(int(del), len(base)-o)
		edited := append(append(append([]byte{}, base[:o]...), ins...), base[o+d:]...)
		assertGoEditMatchesWhole(t, base, edited, false)
		assertGoEditMatchesWhole(t, edited, base, false)
	})
}
