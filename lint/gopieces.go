package lint

import (
	"bytes"
	"cmp"
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
)

// Parsing a Go file in pieces.
//
// go/parser is single-threaded and a large file takes milliseconds, so a big
// file is cut at top-level declarations into segments: the header (package
// clause, imports and the first declaration) and one segment per further
// declaration, each running to the next. The segments a [Linter] has
// already seen clean are not parsed again; the others are grouped into
// pieces and parsed concurrently. Every diagnostic is still exactly what a
// whole-file parse with go/parser reports.
//
// Why clean pieces make a clean file. Cut a file S into H·C1·…·Cn where each
// Ci starts right after a "\n" with the keyword func, type, var or const in
// column 0 ([parseGoPiece] checks both). H is parsed as it is, each Ci as
// goPiecePrefix + Ci. Suppose none of these parses finds an error.
//
//   - Scanning. go/scanner carries nothing across a line break but whether
//     it is inside a token. The only tokens that span lines are raw strings
//     and general comments, and one still open at the end of a piece is an
//     error in that piece ("raw string literal not terminated", "comment not
//     terminated"). The automatic semicolon after a piece's last line is
//     inserted at its final "\n" in the piece as in S, and after that "\n"
//     both scanners start afresh. A byte order mark is legal only at offset
//     0, the start of H in both; line directives are judged by their own text
//     and by whether they start a line, which they do in a piece exactly when
//     they do in S. So scanning S finds no error, and its tokens are those of
//     H, C1, …, Cn in turn.
//   - Parsing. go/parser reads SourceFile = PackageClause ";" {ImportDecl
//     ";"} {TopLevelDecl ";"} one top-level declaration at a time; each starts
//     in the same state (no open expression, block or bracket) and, without
//     an error, ends with its ";" — so a clean piece's tokens are consumed by
//     whole declarations, the last ending at the piece's end, and S's parser
//     reaches each Ci at the start of a declaration. One check looks across
//     declarations: "imports must appear before other declarations". In S and
//     in a piece alike, an import is reported when the declaration before it
//     is not an import; Ci starts with a non-import, so every import in Ci
//     follows a declaration of Ci in both, and the check agrees. Everything
//     else go/parser reports is local to a declaration; with
//     SkipObjectResolution and without DeclarationErrors it reports nothing
//     that needs names from other declarations.
//   - Build constraints ("//go:build") only set ast.File.GoVersion and report
//     no error; they sit above the package clause, in H, which is parsed as a
//     file of its own anyway. A file without a package clause fails in H.
//   - go/parser gives up right after the package clause when scanning has
//     found an error so far, and by then it has scanned the token after the
//     clause and the character after that token (a NUL there is an error).
//     H always holds the first declaration after the clause, so that this
//     is all inside H; and goPiecePrefix ends with an empty import
//     declaration, so that the first token of a piece is scanned after the
//     check, as in S.
//
// So a whole-file parse of S finds no error either, and reaches the start of
// each Ci at the top of a declaration, with no error so far.
//
// Why a clean piece makes its declarations clean. When a piece parses clean
// and its syntax tree has a top-level func, type, var or const declaration
// whose keyword is at the start of one of its segments, the parser was at the
// top of a declaration there. Up to that keyword, a parse of the run before
// it alone sees the same tokens and does the same (the keyword is its EOF,
// met where the piece's parser returns to the declaration loop); from the
// keyword on, the piece's parser is in the state a fresh parse of the rest
// reaches after goPiecePrefix. So each segment between such starts is a
// clean piece of its own, and a [Linter] remembers it.
//
// Where the errors are. When some piece is broken, the file's diagnostics
// are those of a whole-file parse, which is not repeated over the code known
// clean. Let lo be the start of the first segment not known clean: the
// segments before it are clean pieces, so the whole-file parse reaches lo at
// the top of a declaration with no error, in the state a parse of
// goPiecePrefix + S[lo:] is in at lo. From there the two parses see the same
// tokens and do the same; what differs is the position of the last error
// recovery (go/parser's syncPos, before lo in both, so it steers nothing)
// and the declaration keyword before lo (not an import, and the one at lo is
// not an import either). So the errors of that parse, moved to S's offsets,
// are S's errors from lo on. The parse is cut short when it can be: parse
// only S[lo:w), where b..w is the first segment after lo that is known
// clean. When its syntax tree starts a top-level declaration at b, the
// parser came back to the top level there, as S's parser did (they saw the
// same tokens up to b); from b on, both are in the state of a fresh parse
// but for syncPos, and over [b, w), known clean, report nothing. So S's
// errors in [lo, w) are the short parse's, S's parser reaches w at the top
// of a declaration, and the search for errors goes on at the next segment
// not known clean as it did at lo. When the tree does not come back at b
// (an unclosed brace swallows the rest, say), S[lo:] is parsed to the end.
//
// Where the cuts go. [goDeclStarts] scans the file with a small lexer that
// follows comments, strings and bracket depth, and offers the lines that
// start a top-level declaration. The lexer only chooses the cuts: a wrong
// choice makes a piece fail or a segment go unremembered, never a wrong
// result. TestGoPiecesMatchWholeFile, FuzzGoPieces and FuzzDeltaGo check
// the checker against whole-file parses.

// goPiecePrefix makes a piece that does not start the file a Go file of its
// own, whose first token is scanned only after the package clause's check
// (see the argument above).
const goPiecePrefix = "package p\nimport ()\n"

// goSplitMin is the size below which a Go file is parsed whole: the parse
// takes well under a millisecond, less than splitting it would save.
const goSplitMin = 8 << 10

// goPieceSize is the most a piece of not-yet-known segments holds when it
// has more than one (a segment larger than this is a piece of its own): the
// pieces of a new file keep the goroutines evenly busy, and the syntax tree
// of each is garbage before the next is parsed.
const goPieceSize = 4 << 10

// goMaxPieces bounds the number of pieces of one file; a larger file gets
// larger pieces.
const goMaxPieces = 64

// goChecker lints Go files. Segments in cache are known clean and are not
// parsed; the segments a check finds clean are added to it. Files smaller
// than min, and every file when there is neither a cache nor more than one
// worker, are parsed whole; the other pieces are parsed on up to workers
// goroutines (the caller's among them), each call waiting for its own.
// Tests set traced to see what is parsed.
type goChecker struct {
	cache     *segCache // nil: nothing is known or remembered
	workers   int
	pieceSize int
	min       int
	traced    func(p goParse)
}

// goParse describes one go/parser run of a [goChecker], for tests: the bytes
// [lo, hi) of the file, parsed as a piece or, for its errors, as a region.
type goParse struct {
	lo, hi int
	region bool
}

// trace reports a parse to g.traced, when set.
func (g goChecker) trace(lo, hi int, region bool) {
	if g.traced != nil {
		g.traced(goParse{lo, hi, region})
	}
}

// newGoChecker returns the checker for this process: one goroutine per
// runtime.GOMAXPROCS, pieces of [goPieceSize] for files from [goSplitMin] up.
func newGoChecker(cache *segCache) goChecker {
	return goChecker{cache: cache, workers: runtime.GOMAXPROCS(0), pieceSize: goPieceSize, min: goSplitMin}
}

// goUnit is a run [start, end) of segments of a Go file: clean when it is
// known to parse clean as a piece of its own (as the start of a file, when
// start is 0), else not known to.
type goUnit struct {
	start, end int
	clean      bool
}

// goPiece is a run of segments, first to last, parsed as one piece; decls
// holds, once it parsed clean, the offsets in the file where its top-level
// func, type, var and const declarations start.
type goPiece struct {
	first, last int
	clean       bool
	decls       []int
}

// check lints Go content and returns exactly go/parser's AllErrors errors.
func (g goChecker) check(content []byte) []finding {
	if len(content) < g.min || g.cache == nil && g.workers <= 1 {
		// Small, or nothing to learn and no core to share the work with:
		// one whole-file parse is the cheapest.
		g.trace(0, len(content), true)
		return parseGo(content)
	}
	starts := goSegmentStarts(content)
	end := func(i int) int {
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return len(content)
	}
	known := make([]bool, len(starts))
	var keys []segKey
	if g.cache != nil {
		keys = make([]segKey, len(starts))
		for i, s := range starts {
			keys[i] = g.cache.key(content[s:end(i)], s == 0)
		}
		g.cache.lookup(keys, known)
	}

	// Group the unknown segments into pieces.
	unknown := 0
	for i, k := range known {
		if !k {
			unknown += end(i) - starts[i]
		}
	}
	size := max(g.pieceSize, unknown/goMaxPieces+1)
	var pieces []goPiece
	for i := 0; i < len(starts); i++ {
		if known[i] {
			continue
		}
		p := goPiece{first: i, last: i}
		for p.last+1 < len(starts) && !known[p.last+1] && end(p.last+1)-starts[i] <= size {
			p.last++
		}
		pieces = append(pieces, p)
		i = p.last
	}
	pieces = g.parsePieces(content, starts, end, pieces)

	// The units: known segments, and the pieces, cut where their syntax
	// trees confirm a segment start.
	units := make([]goUnit, 0, len(starts))
	var learned []segKey
	next := 0 // the next piece
	for i := 0; i < len(starts); i++ {
		if known[i] {
			units = append(units, goUnit{starts[i], end(i), true})
			continue
		}
		p := pieces[next]
		next++
		i = p.last
		if !p.clean {
			units = append(units, goUnit{starts[p.first], end(p.last), false})
			continue
		}
		from := p.first
		for j := p.first + 1; j <= p.last+1; j++ {
			if j <= p.last && !isDeclStart(p.decls, starts[j]) {
				continue // not confirmed: j's segment joins the unit
			}
			units = append(units, goUnit{starts[from], end(j - 1), true})
			if keys != nil && j-1 == from {
				learned = append(learned, keys[from])
			}
			from = j
		}
	}
	if len(learned) > 0 {
		g.cache.add(learned)
	}
	return g.errors(content, units)
}

// parsePieces parses the pieces on up to g.workers goroutines and records
// in each whether it is clean and where its declarations start. A broken
// piece of several segments is split in two and its halves parsed, until
// the broken segments stand alone: the clean ones are then known, and the
// search for errors starts at the broken ones. It returns the pieces in
// order.
func (g goChecker) parsePieces(content []byte, starts []int, end func(int) int, pieces []goPiece) []goPiece {
	var done []goPiece
	for len(pieces) > 0 {
		g.parseAll(content, starts, end, pieces)
		var split []goPiece
		for _, p := range pieces {
			if p.clean || p.first == p.last {
				done = append(done, p)
				continue
			}
			mid := p.first + (p.last-p.first)/2
			split = append(split, goPiece{first: p.first, last: mid}, goPiece{first: mid + 1, last: p.last})
		}
		pieces = split
	}
	slices.SortFunc(done, func(a, b goPiece) int { return cmp.Compare(a.first, b.first) })
	return done
}

// parseAll parses pieces on up to g.workers goroutines.
func (g goChecker) parseAll(content []byte, starts []int, end func(int) int, pieces []goPiece) {
	parse := func(p *goPiece) {
		g.trace(starts[p.first], end(p.last), false)
		p.clean, p.decls = parseGoPiece(content, starts[p.first], end(p.last))
	}
	if len(pieces) == 1 || g.workers <= 1 {
		for i := range pieces {
			parse(&pieces[i])
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(pieces) {
				return
			}
			parse(&pieces[i])
		}
	}
	var wg sync.WaitGroup
	for range min(g.workers, len(pieces)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// errors returns the whole-file errors of content, cut into units, by
// parsing only from each unit not known clean up to where the parse is back
// at the top level (see the comment at the top of this file).
func (g goChecker) errors(content []byte, units []goUnit) []finding {
	var fs []finding
	for i := 0; i < len(units); i++ {
		if units[i].clean {
			continue
		}
		lo := units[i].start
		j := i
		for j < len(units) && !units[j].clean {
			j++
		}
		if j < len(units) {
			b, w := units[j].start, units[j].end
			g.trace(lo, w, true)
			rfs, decls := parseGoRegion(content, lo, w)
			if isDeclStart(decls, b) {
				fs = append(fs, rfs...)
				i = j
				continue
			}
		}
		g.trace(lo, len(content), true)
		rfs, _ := parseGoRegion(content, lo, len(content))
		return append(fs, rfs...)
	}
	return fs
}

// goSegmentStarts returns where the segments of content start: at 0, and at
// each [goDeclStarts] offset but the first, so that the header holds the
// first declaration after the package clause (see the argument above).
func goSegmentStarts(content []byte) []int {
	starts := goDeclStarts(content)
	if len(starts) == 0 {
		return []int{0}
	}
	starts[0] = 0
	return starts
}

// isDeclStart reports whether a declaration starts at off, given decls,
// the sorted declaration starts of a parse.
func isDeclStart(decls []int, off int) bool {
	_, found := slices.BinarySearch(decls, off)
	return found
}

// parseGo parses content as one whole Go file and returns go/parser's errors.
func parseGo(content []byte) []finding {
	fs, _ := parseGoRegion(content, 0, len(content))
	return fs
}

// goSource returns the bytes go/parser is given for content[lo:hi]: itself
// when lo is 0, else goPiecePrefix and it; and the offset in content of the
// source's byte 0 (negative for the prefix).
func goSource(content []byte, lo, hi int) (src []byte, base int) {
	if lo == 0 {
		return content[:hi], 0
	}
	src = make([]byte, len(goPiecePrefix)+hi-lo)
	copy(src, goPiecePrefix)
	copy(src[len(goPiecePrefix):], content[lo:hi])
	return src, lo - len(goPiecePrefix)
}

// parseGoRegion parses content[lo:hi] (after goPiecePrefix unless lo is 0)
// in AllErrors mode and returns its errors at content's offsets and, sorted,
// the offsets in content where its top-level func, type, var and const
// declarations start (at their keyword).
func parseGoRegion(content []byte, lo, hi int) (fs []finding, decls []int) {
	src, base := goSource(content, lo, hi)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.AllErrors|parser.SkipObjectResolution)
	decls = goDecls(fset, f, base)
	if err == nil {
		return nil, decls
	}
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return []finding{{start: lo, end: lo, severity: protocol.DiagnosticSeverityError, code: CodeGoSyntax, message: err.Error()}}, decls
	}
	fs = make([]finding, 0, len(list))
	prev, lineEnd := -1, -1 // the previous error's offset and where its line ends
	for _, e := range list {
		off := max(lo, min(e.Pos.Offset+base, hi))
		if off > lineEnd || off < prev {
			lineEnd = lineEndFrom(content, off) // once a line: the errors are sorted
		}
		prev = off
		fs = append(fs, finding{
			start:    off,
			end:      goTokenEnd(fset, content, off, lineEnd),
			severity: protocol.DiagnosticSeverityError,
			code:     CodeGoSyntax,
			message:  e.Msg,
		})
	}
	return fs, decls
}

// goDecls returns, in order, the offsets (moved by base) where f's top-level
// func, type, var and const declarations start, at their keyword.
func goDecls(fset *token.FileSet, f *ast.File, base int) []int {
	tf := fset.File(f.FileStart)
	if tf == nil {
		return nil
	}
	decls := make([]int, 0, len(f.Decls))
	for _, d := range f.Decls {
		var pos token.Pos
		switch d := d.(type) {
		case *ast.FuncDecl:
			pos = d.Type.Func
		case *ast.GenDecl:
			if d.Tok != token.IMPORT {
				pos = d.TokPos
			}
		}
		if pos.IsValid() {
			decls = append(decls, tf.Offset(pos)+base)
		}
	}
	return decls
}

// parseGoPiece reports whether go/parser finds no error in content[lo:hi]
// as a piece and, when it does not, where its top-level declarations start
// (offsets in content). A piece that does not start the file must start
// right after a "\n" with an [isGoDeclLine] line, as the argument at the top
// of this file requires; any other piece counts as broken, and so does a
// panic inside the parser (the whole-file parse that follows runs under
// [runParser]'s recover).
func parseGoPiece(content []byte, lo, hi int) (clean bool, decls []int) {
	if lo > 0 && (content[lo-1] != '\n' || !isGoDeclLine(content, lo)) {
		return false, nil
	}
	defer func() {
		if recover() != nil {
			clean, decls = false, nil
		}
	}()
	src, base := goSource(content, lo, hi)
	fset := token.NewFileSet()
	// Without AllErrors the parser stops early on a broken piece; the first
	// error is always kept, so err is nil exactly when there is none.
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return false, nil
	}
	return true, goDecls(fset, f, base)
}

// isGoDeclLine reports whether the line starting at off starts, in column 0,
// with the keyword func, type, var or const followed by a byte that cannot
// continue an identifier. It leaves out import: a piece starting with an
// import would not report "imports must appear before other declarations"
// when the file does.
func isGoDeclLine(content []byte, off int) bool {
	if off >= len(content) {
		return false
	}
	switch content[off] {
	case 'f', 't', 'v', 'c':
	default:
		return false
	}
	rest := content[off:]
	for _, kw := range [...]string{"func", "type", "var", "const"} {
		if len(rest) > len(kw) && string(rest[:len(kw)]) == kw && !isGoIdentByte(rest[len(kw)]) {
			return true
		}
	}
	return false
}

// isGoIdentByte reports whether b may continue a Go identifier; any byte of a
// multi-byte rune counts, as it may be a letter.
func isGoIdentByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b >= 0x80
}

// goLexSpecial marks the bytes that [goDeclStarts] must look at; every other
// byte leaves its state as it is. It is an immutable table.
var goLexSpecial = [256]bool{
	'\n': true, '(': true, '[': true, '{': true, ')': true, ']': true, '}': true,
	'/': true, '"': true, '\'': true, '`': true,
}

// goDeclStarts returns, in order, the offsets of the lines of content that
// look like the start of a top-level declaration: [isGoDeclLine] lines
// outside comments, strings and brackets. It is a heuristic for choosing
// cuts; see the comment at the top of this file. Every offset follows a
// "\n".
func goDeclStarts(content []byte) []int {
	var starts []int
	depth := 0
	n := len(content)
	for i := 0; i < n; i++ {
		c := content[i]
		if !goLexSpecial[c] {
			continue
		}
		switch c {
		case '\n':
			if depth == 0 && i+1 < n && isGoDeclLine(content, i+1) {
				starts = append(starts, i+1)
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case '/':
			if i+1 >= n {
				break
			}
			switch content[i+1] {
			case '/': // line comment: continue at its "\n"
				j := bytes.IndexByte(content[i+2:], '\n')
				if j < 0 {
					return starts
				}
				i += 2 + j - 1
			case '*': // general comment: continue after its "*/"
				j := bytes.Index(content[i+2:], []byte("*/"))
				if j < 0 {
					return starts
				}
				i += 2 + j + 1
			}
		case '"', '\'':
			// An interpreted string or a rune ends at its quote; a line
			// break ends a broken one.
			for i++; i < n && content[i] != c && content[i] != '\n'; i++ {
				if content[i] == '\\' && i+1 < n && content[i+1] != '\n' {
					i++
				}
			}
			if i < n && content[i] == '\n' {
				i--
			}
		case '`':
			j := bytes.IndexByte(content[i+1:], '`')
			if j < 0 {
				return starts
			}
			i += 1 + j
		}
	}
	return starts
}

// goTokenEnd returns where the Go token starting at off ends, scanning only
// the rest of off's line, which ends at lineEnd, so that the range never
// leaves the line. When off is not at a token (a line break, the end of
// input), it falls back to [tokenEnd].
func goTokenEnd(fset *token.FileSet, content []byte, off, lineEnd int) int {
	src := content[off:lineEnd]
	if len(src) == 0 {
		return tokenEnd(content, off)
	}
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) {}, scanner.ScanComments)
	pos, tok, lit := s.Scan()
	if tok == token.EOF || file.Offset(pos) != 0 {
		return tokenEnd(content, off)
	}
	n := len(lit)
	if n == 0 || tok == token.SEMICOLON {
		n = len(tok.String())
	}
	return off + max(1, min(n, len(src)))
}
