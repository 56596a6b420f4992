package lint

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// wholeDelta is Delta of Go with every content parsed whole: the reference
// the pieces must agree with.
func wholeDelta(before, after []byte) Result {
	return delta(func(_ Language, content []byte) []finding { return wholeGo(content) }, LanguageGo, before, after)
}

// assertDeltaMatchesWhole checks that Delta of Go with each of [checkers]
// is Delta with whole-file parses: with an empty cache, with before learned
// (a file the agent read) and with both learned. What the cache learned must
// be true.
func assertDeltaMatchesWhole(t *testing.T, before, after []byte, workers bool) {
	t.Helper()
	want := wholeDelta(before, after)
	for _, g := range checkers(workers) {
		for pass, name := range []string{"empty cache", "before learned", "both learned"} {
			if pass == 1 {
				runParser(LanguageGo, before, g.check)
			}
			got := g.delta(before, after)
			if reflect.DeepEqual(want, got) {
				continue // cmp.Diff takes long over thousands of diagnostics
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Delta(%q, %q) with pieces of %d, %s (-whole +pieces):\n%s", before, after, g.pieceSize, name, diff)
			}
		}
		assertLearnedClean(t, g, before)
		assertLearnedClean(t, g, after)
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

func TestGoDeltaMatchesWholeFileDelta(t *testing.T) {
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
			assertDeltaMatchesWhole(t, []byte(tc.before), []byte(tc.after), true)
			r := Delta(LanguageGo, []byte(tc.before), []byte(tc.after))
			if len(r.Introduced) != tc.introduced || len(r.Preexisting) != tc.preexisting {
				t.Errorf("Delta = %d introduced, %d preexisting; want %d, %d",
					len(r.Introduced), len(r.Preexisting), tc.introduced, tc.preexisting)
			}
		})
	}
}

// parseLog records the parses of a goChecker.
type parseLog struct {
	mu     sync.Mutex
	parses []goParse
}

func (l *parseLog) add(p goParse) {
	l.mu.Lock()
	l.parses = append(l.parses, p)
	l.mu.Unlock()
}

// take returns the parses so far and forgets them.
func (l *parseLog) take() []goParse {
	l.mu.Lock()
	defer l.mu.Unlock()
	ps := l.parses
	l.parses = nil
	return ps
}

// TestLinterParsesOnlyTheEdit checks what an edit of a file the checker has
// seen costs: a clean edit parses the edited function alone; an edit that
// breaks it parses the edited function, then for the errors from it to the
// end of the next one, then the old version of the edited function; an
// unclosed brace, which swallows the rest of the file, is parsed to the end.
func TestLinterParsesOnlyTheEdit(t *testing.T) {
	t.Parallel()
	base := goFunctions(200)
	fn := func(i int) string {
		return fmt.Sprintf("func F%d(a int) int {\n\tx := a * %d\n\tif x > 1 {\n\t\tfmt.Println(x)\n\t}\n\treturn x\n}\n\n// F%d prints.\n", i, i, i+1)
	}
	seg := len(fn(100)) // the segment of F100 runs to F101's doc comment
	broken := strings.Replace(base, "a * 20\n", "a *\n", 1)
	for _, tc := range []struct {
		name          string
		before, after string
		// most bytes parsed in all, and whether some parse must run to the end
		maxParsed int
		toEnd     bool
	}{
		{"clean edit", base, strings.Replace(base, "a * 100\n", "a - 100\n", 1), seg, false},
		{"error on the next, unchanged line", base, strings.Replace(base, "a * 100\n", "a *\n", 1), 4*seg + len(goPiecePrefix), false},
		{"error on the changed line", base, strings.Replace(base, "a * 100\n", "a * 100)\n", 1), 3*seg + len(goPiecePrefix), false},
		// The old error's function is never learned, so each content parses it
		// again: after, two pieces and two regions of two functions; before,
		// one piece and one region.
		{"new error next to an old one", broken, strings.Replace(broken, "a * 100\n", "a *\n", 1), 9 * seg, false},
		{"unclosed brace swallows the rest", base, strings.Replace(base, "\treturn x\n}\n\n// F101", "\treturn x\n\n// F101", 1), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log parseLog
			g := goChecker{cache: newSegCache(0), workers: 2, pieceSize: goPieceSize, traced: log.add}
			runParser(LanguageGo, []byte(tc.before), g.check) // the agent read the file
			log.take()
			got := g.delta([]byte(tc.before), []byte(tc.after))
			if diff := cmp.Diff(wholeDelta([]byte(tc.before), []byte(tc.after)), got); diff != "" {
				t.Fatalf("Delta (-whole +got):\n%s", diff)
			}
			parsed, toEnd := 0, false
			ps := log.take()
			for _, p := range ps {
				parsed += p.hi - p.lo
				toEnd = toEnd || p.region && p.hi == len(tc.after) && p.lo < len(tc.after)/2
			}
			if toEnd != tc.toEnd {
				t.Errorf("parses %v: a parse to the end = %v, want %v", ps, toEnd, tc.toEnd)
			}
			if !tc.toEnd && parsed > tc.maxParsed {
				t.Errorf("parses %v: %d bytes in all, want at most %d (a function is %d)", ps, parsed, tc.maxParsed, seg)
			}
		})
	}
}

// FuzzDeltaGo checks that Delta of Go with the checker, its cache empty or
// warm, is Delta with whole-file parses, for an edit of base that replaces del bytes at off with
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
			off := diff.CommonPrefix(fx.before, fx.after)
			suffix := diff.CommonSuffix(fx.before[off:], fx.after[off:])
			f.Add(fx.before, uint16(off), uint8(len(fx.before)-off-suffix), fx.after[off:len(fx.after)-suffix])
		}
	}
	f.Fuzz(func(t *testing.T, base []byte, off uint16, del uint8, ins []byte) {
		o := min(int(off), len(base))
		d := min(int(del), len(base)-o)
		edited := append(append(append([]byte{}, base[:o]...), ins...), base[o+d:]...)
		assertDeltaMatchesWhole(t, base, edited, false)
		assertDeltaMatchesWhole(t, edited, base, false)
	})
}

// TestLinterMatchesPackageFunctions checks that a Linter, learning as it
// goes, returns what the package functions return, over a sequence of edits
// of one file (as an agent makes them), and that a nil Linter does too.
func TestLinterMatchesPackageFunctions(t *testing.T) {
	t.Parallel()
	base := goFunctions(150)
	steps := []string{
		base,
		strings.Replace(base, "a * 7\n", "a - 7\n", 1),
		strings.Replace(base, "a * 7\n", "a *\n", 1),
		strings.Replace(strings.Replace(base, "a * 7\n", "a *\n", 1), "a * 90\n", "a * (\n", 1),
		strings.Replace(base, "a * 90\n", "a * 91\n", 1),
		strings.Replace(base, "\treturn x\n}\n\n// F100", "\treturn x\n\n// F100", 1),
		base,
	}
	for _, l := range []*Linter{new(Linter), nil} {
		l.Learn("p.go", []byte(steps[0]))
		for i := 1; i < len(steps); i++ {
			before, after := []byte(steps[i-1]), []byte(steps[i])
			if diff := cmp.Diff(wholeDelta(before, after), l.DeltaFile("p.go", before, after)); diff != "" {
				t.Fatalf("step %d: Delta (-whole +linter):\n%s", i, diff)
			}
			if diff := cmp.Diff(Check(LanguageGo, after), l.Check(LanguageGo, after)); diff != "" {
				t.Fatalf("step %d: Check (-package +linter):\n%s", i, diff)
			}
		}
		json := []byte(`{"a": 1,}`)
		if diff := cmp.Diff(DeltaFile("x.json", nil, json), l.DeltaFile("x.json", nil, json)); diff != "" {
			t.Errorf("DeltaFile of JSON (-package +linter):\n%s", diff)
		}
	}
}

func TestLinterLearn(t *testing.T) {
	t.Parallel()
	base := []byte(goFunctions(150))
	var l Linter
	l.Learn("notes.json", []byte(`{"a": 1}`))
	l.Learn("p.go.txt", base)
	if n := l.Remembered(); n != 0 {
		t.Fatalf("after learning files that are not Go, Remembered() = %d, want 0", n)
	}
	l.Learn("p.go", base)
	if got, want := l.Remembered(), len(segments(base)); got != want {
		t.Errorf("after learning p.go, Remembered() = %d, want its %d segments", got, want)
	}
	l.Learn("p.go", base)
	if got, want := l.Remembered(), len(segments(base)); got != want {
		t.Errorf("after learning p.go twice, Remembered() = %d, want %d", got, want)
	}
	var nilLinter *Linter
	nilLinter.Learn("p.go", base)
	if n := nilLinter.Remembered(); n != 0 {
		t.Errorf("a nil Linter remembers %d, want 0", n)
	}
}

// TestLinterConcurrentUse runs edits of several files through one Linter at
// once (run with -race): every result must be a whole-file parse's.
func TestLinterConcurrentUse(t *testing.T) {
	t.Parallel()
	var l Linter
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			base := strings.ReplaceAll(goFunctions(120), "prints.", fmt.Sprintf("prints (file %d).", w))
			before := []byte(base)
			for i := range 6 {
				after := []byte(strings.Replace(base, fmt.Sprintf("a * %d\n", 10*i+w), "a *\n", 1))
				if i%2 == 1 {
					after = []byte(strings.Replace(base, fmt.Sprintf("a * %d\n", 10*i+w), "a + 1\n", 1))
				}
				if diff := cmp.Diff(wholeDelta(before, after), l.Delta(LanguageGo, before, after)); diff != "" {
					t.Errorf("file %d, edit %d: Delta (-whole +linter):\n%s", w, i, diff)
					return
				}
				before = after
			}
		})
	}
	wg.Wait()
}

// TestSegCacheBounded checks that the cache keeps at most two generations of
// limit keys, and that a key in use survives the turn of a generation.
func TestSegCacheBounded(t *testing.T) {
	t.Parallel()
	c := newSegCache(4)
	hot := c.key([]byte("hot"), false)
	c.add([]segKey{hot})
	for i := range 20 {
		c.add([]segKey{c.key(fmt.Appendf(nil, "cold %d", i), false)})
		hit := []bool{false}
		c.lookup([]segKey{hot}, hit)
		if !hit[0] {
			t.Fatalf("after %d more keys, the key in use was forgotten", i+1)
		}
		if n := c.len(); n > 8 {
			t.Fatalf("the cache holds %d keys, want at most 8", n)
		}
	}
	hit := []bool{false}
	c.lookup([]segKey{c.key([]byte("cold 0"), false)}, hit)
	if hit[0] {
		t.Errorf("the first cold key is still known after 20 more, want it forgotten")
	}
	c.lookup([]segKey{c.key([]byte("hot"), true)}, hit)
	if hit[0] {
		t.Errorf("a key learned as a piece is known as the start of a file")
	}
}
