package lint

import (
	"bytes"
	"sort"
)

// goEditMaxShare is the largest part of a Go file (1/goEditMaxShare) that the
// edited piece may span for [goEdit] to parse it on its own; after a larger
// edit, after is checked like a new file, and before, when needed, parsed
// whole.
const goEditMaxShare = 8

// goEdit lints the two contents of an edit of a Go file ([sides]) so that
// the unchanged code is parsed once, not twice, while every diagnostic still
// comes from a whole-file parse.
//
// lintAfter, when the file is large enough to be split, first parses on its
// own the edited piece: the run of top-level declarations that holds every
// changed byte, where a new error most likely is. When it is clean, the
// other pieces are parsed concurrently and, all clean, prove after clean
// (gopieces.go says why); before is never looked at. Otherwise after is
// parsed whole, for its exact diagnostics.
//
// lintBefore is needed only when some diagnostic of after sits on a line the
// edit did not change. Instead of parsing the whole old content, it reads
// from the whole-file parse of after that the unchanged code around the edit
// is clean, and parses only the old version of the edited region; see
// [goEdit.beforeClean]. When that cannot be shown, before is parsed whole.
//
// A goEdit is used by one Delta call, on one goroutine.
type goEdit struct {
	s             goSplitter
	before, after []byte

	// parsed is true once lintAfter has parsed after whole; afterFs are its
	// findings and afterDecls where its top-level declarations start.
	parsed     bool
	afterFs    []finding
	afterDecls []int
}

// newGoEdit returns the sides of the edit from before to after; s says how
// after is split to prove it clean.
func newGoEdit(s goSplitter, before, after []byte) *goEdit {
	return &goEdit{s: s, before: before, after: after}
}

// lintAfter lints the new content.
func (g *goEdit) lintAfter() []finding {
	if g.s.splits(g.after) && g.cleanByPieces() {
		return nil
	}
	g.parsed = true
	g.afterFs = runParser(LanguageGo, g.after, func(content []byte) []finding {
		fs, decls := parseGoFile(content)
		g.afterDecls = decls
		return fs
	})
	return g.afterFs
}

// lintBefore lints the old content.
func (g *goEdit) lintBefore() []finding {
	if g.parsed && g.beforeClean() {
		return nil
	}
	return runParser(LanguageGo, g.before, parseGo)
}

// cleanByPieces reports whether after is proved clean by parsing it in
// pieces, the edited piece first; it gives up, reporting false, as soon as
// the edited piece is broken. The edited piece is bounded by the nearest
// column-0 declaration lines around the edit, found without the lexer: a
// bound inside a raw string or a comment only makes a piece fail. After a
// large edit, the pieces are those of a new file.
func (g *goEdit) cleanByPieces() bool {
	a := g.after
	lo, hi := g.editedPiece(a, func(off int) bool { return isGoDeclLine(a, off) })
	if (hi-lo)*g.s.editShare > len(a) {
		pieces := goCut(a, 0, len(a), g.s.count(len(a)))
		return len(pieces) > 1 && goPiecesClean(a, pieces, g.s.workers)
	}
	if !parseGoPiece(a, goPiece{lo, hi}) {
		return false
	}
	rest := lo + len(a) - hi
	n := g.s.count(rest)
	above := (n*lo + rest/2) / max(rest, 1) // how many of the pieces go above the edit
	pieces := append(goCut(a, 0, lo, above), goCut(a, hi, len(a), n-above)...)
	return goPiecesClean(a, pieces, g.s.workers)
}

// editedPiece returns the bounds [lo, hi) in after of the smallest run of
// declarations that holds every byte the edit changed, cut at line starts
// that isStart accepts (it must accept only [isGoDeclLine] lines), such that
// the cuts are the same in before:
//
//   - lo is the last start whose keyword and the byte after it (at most
//     len("const ") bytes) come before the first changed byte, so that
//     before[:lo] == after[:lo] and before has the same line at lo; 0 when
//     there is none;
//   - hi is the first start after the last changed byte's successor, so that
//     the "\n" before it is unchanged too and after[hi:] is the end of
//     before, from hi+len(before)-len(after); len(after) when there is none.
func (g *goEdit) editedPiece(after []byte, isStart func(off int) bool) (lo, hi int) {
	prefix := commonPrefix(after, g.before)
	suffix := commonSuffix(after[prefix:], g.before[prefix:])
	for off := prefix - len("const "); off > 0; off-- {
		if after[off-1] == '\n' && isStart(off) {
			lo = off
			break
		}
	}
	hi = len(after)
	for off := len(after) - suffix + 1; off < len(after); off++ {
		if after[off-1] == '\n' && isStart(off) {
			hi = off
			break
		}
	}
	return lo, hi
}

// beforeClean reports whether the old content is clean, judged from the
// whole-file parse of after and a parse of the old version of the edited
// region alone.
//
// Cut after = X·E·Y at two of its top-level declarations, lo and hi, chosen
// by [goEdit.editedPiece] among the declarations of the parse
// ([goEdit.isAfterDecl]: func, type, var or const, never import), so that
// before = X·E'·Y with the same X and Y. Suppose the parse of after found no
// error at an offset <= lo (when X is not empty) and none at an offset >= hi
// (when Y is not empty). Then:
//
//   - X parses clean as a file. go/parser reads tokens left to right with one
//     token of look-ahead, so until the token at lo becomes current, its run
//     over after is its run over X, token for token (a token starts at lo, so
//     none spans the cut), and reported no error, since such an error would
//     sit before lo. When the token at lo became current, the parser was at
//     the top of a declaration: a top-level declaration starts there, and
//     nothing unwinds to the top level at a func, type, var or const keyword
//     without reporting an error at lo (a function body or a statement list
//     takes the keyword as a statement; a declaration without its ";", a
//     struct, an interface, a declaration group or an open bracket each
//     reports an error). With EOF there instead, X's parse ends, clean.
//   - Y parses clean as a piece (after goPiecePrefix). From hi on, the parse
//     of after is at the top of a declaration, in the state a fresh parse of
//     the piece reaches after its package clause: no open expression, block
//     or bracket; what differs (the error-recovery position, the errors so
//     far) only steers recovery after a new error. So both parses run alike
//     over Y's tokens until either finds an error, which the other finds too
//     at the same token: an error of the piece would be one of after at an
//     offset >= hi.
//   - E' is parsed as a piece here.
//
// By the argument at the top of gopieces.go, X, E' and Y clean make before
// clean. FuzzDeltaGo checks this against whole-file parses of before.
func (g *goEdit) beforeClean() bool {
	lo, hi := g.editedPiece(g.after, g.isAfterDecl)
	if (hi-lo)*g.s.editShare > len(g.after) {
		return false // as costly as parsing before whole, and less sure
	}
	for _, f := range g.afterFs {
		if lo > 0 && f.start <= lo || hi < len(g.after) && f.start >= hi {
			return false
		}
	}
	return parseGoPiece(g.before, goPiece{lo, hi + len(g.before) - len(g.after)})
}

// isAfterDecl reports whether a top-level declaration of the whole-file parse
// of after starts at off, with a keyword that [isGoDeclLine] accepts at the
// start of a line.
func (g *goEdit) isAfterDecl(off int) bool {
	i := sort.SearchInts(g.afterDecls, off)
	return i < len(g.afterDecls) && g.afterDecls[i] == off && isGoDeclLine(g.after, off)
}

// commonPrefix returns how many bytes a and b share at their start.
func commonPrefix(a, b []byte) int {
	const block = 256
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns how many bytes a and b share at their end.
func commonSuffix(a, b []byte) int {
	const block = 256
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
