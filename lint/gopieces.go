package lint

import (
	"bytes"
	"go/parser"
	"go/token"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// Parsing a Go file in pieces.
//
// go/parser is single-threaded and a large file takes milliseconds, so a big
// file is cut into pieces at top-level declarations and the pieces are parsed
// concurrently. The pieces can only prove a file clean: when any piece has an
// error, the whole file is parsed as usual, so every diagnostic comes from a
// whole-file parse and is exactly what go/parser reports.
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
//
// So a whole-file parse of S finds no error either: the pieces' verdict is
// exactly go/parser's. TestGoPiecesMatchWholeFile and FuzzGoPieces check it.
//
// Where the cuts go. [goDeclStarts] scans the file with a small lexer that
// follows comments, strings and bracket depth, and offers the lines that
// start a top-level declaration. The lexer only chooses the cuts: a wrong
// choice makes a piece fail and costs a whole-file parse, never a wrong
// result.

// goPiecePrefix makes a piece that does not start the file a Go file of its
// own.
const goPiecePrefix = "package p\n"

// goPieceMin is the size below which a Go file is parsed whole: splitting it
// would cost more than the parallel parse saves.
const goPieceMin = 16 << 10

// goPiece is the byte range [start, end) of a Go file that is parsed on its
// own: as it is when start is 0, else after [goPiecePrefix].
type goPiece struct{ start, end int }

// goSplitter says how Go files are cut: a file of at least min bytes into
// about one piece per pieceSize bytes, but at least pieces and at most
// [goMaxPieces], parsed on up to workers goroutines; with pieces < 2 every
// file is parsed whole. [goEdit] parses the edited piece of an edit first
// when it is at most 1/editShare of the file (always, when editShare is 0 or
// 1). Tests set workers to 1 to parse the pieces in order on the calling
// goroutine.
type goSplitter struct {
	pieces    int
	pieceSize int
	workers   int
	min       int
	editShare int
}

// goPieceSize is the size of the pieces a large Go file is cut into: many
// small pieces keep the goroutines evenly busy, and the syntax tree of each
// is garbage before the next is parsed, which measured cheaper than a few
// big ones, even on one goroutine.
const goPieceSize = 4 << 10

// goMaxPieces bounds the number of pieces of one file.
const goMaxPieces = 64

// newGoSplitter returns the splitter for this process: one goroutine per
// runtime.GOMAXPROCS, pieces of [goPieceSize] (at least two per goroutine)
// for files from [goPieceMin] up, edited pieces up to 1/[goEditMaxShare] of
// the file parsed first. With GOMAXPROCS=1 every file is parsed whole:
// pieces would only add work when the file turns out broken.
func newGoSplitter() goSplitter {
	procs := runtime.GOMAXPROCS(0)
	pieces := 1 // one goroutine: parse whole
	if procs > 1 {
		pieces = 2 * procs
	}
	return goSplitter{pieces: pieces, pieceSize: goPieceSize, workers: procs, min: goPieceMin, editShare: goEditMaxShare}
}

// splits reports whether content is big enough to be parsed in pieces.
func (s goSplitter) splits(content []byte) bool {
	return s.pieces > 1 && len(content) >= s.min
}

// count returns how many pieces n bytes are cut into.
func (s goSplitter) count(n int) int {
	if s.pieceSize <= 0 {
		return s.pieces
	}
	return max(s.pieces, min(n/s.pieceSize, goMaxPieces))
}

// check lints Go content: the pieces prove it clean, or the whole file is
// parsed for its exact diagnostics.
func (s goSplitter) check(content []byte) []finding {
	if s.splits(content) {
		pieces := goCut(content, 0, len(content), s.count(len(content)))
		if len(pieces) > 1 && goPiecesClean(content, pieces, s.workers) {
			return nil
		}
	}
	return parseGo(content)
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

// goDeclStarts returns, in order, the offsets in (from, len(content)) of the
// lines that look like the start of a top-level declaration: [isGoDeclLine]
// lines outside comments, strings and brackets, for a scan that starts at
// from outside all of them. It stops after the first offset >= until. It is
// a heuristic for choosing cuts; see the comment at the top of this file.
// Every offset follows a "\n".
func goDeclStarts(content []byte, from, until int) []int {
	var starts []int
	depth := 0
	n := len(content)
	for i := from; i < n; i++ {
		c := content[i]
		if !goLexSpecial[c] {
			continue
		}
		switch c {
		case '\n':
			if depth == 0 && i+1 < n && isGoDeclLine(content, i+1) {
				starts = append(starts, i+1)
				if i+1 >= until {
					return starts
				}
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

// goCut cuts [from, to) of content into up to n pieces of about equal size at
// the [goDeclStarts] of a scan from from.
func goCut(content []byte, from, to, n int) []goPiece {
	if n < 2 || from >= to {
		return goGroups(nil, from, to, n)
	}
	return goGroups(goDeclStarts(content, from, from+(to-from)*(n-1)/n), from, to, n)
}

// goGroups cuts [from, to) into up to n pieces of about equal size, at
// offsets taken from starts (sorted, each following a "\n"). It returns nil
// for an empty range.
func goGroups(starts []int, from, to, n int) []goPiece {
	if from >= to {
		return nil
	}
	pieces := make([]goPiece, 0, max(n, 1))
	start := from
	for k := 1; k < n; k++ {
		target := from + (to-from)*k/n
		i := sort.SearchInts(starts, max(target, start+1))
		if i == len(starts) || starts[i] >= to {
			break
		}
		pieces = append(pieces, goPiece{start, starts[i]})
		start = starts[i]
	}
	return append(pieces, goPiece{start, to})
}

// parseGoPiece reports whether go/parser finds no error in piece p of
// content. A piece that does not start the file must start right after a
// "\n" with an [isGoDeclLine] line, as the argument at the top of this file
// requires; any other piece counts as broken, and so does a panic inside the
// parser (the caller then parses the whole file, under [runParser]'s
// recover).
func parseGoPiece(content []byte, p goPiece) (clean bool) {
	if p.start > 0 && (content[p.start-1] != '\n' || !isGoDeclLine(content, p.start)) {
		return false
	}
	defer func() {
		if recover() != nil {
			clean = false
		}
	}()
	src := content[p.start:p.end]
	if p.start > 0 {
		buf := make([]byte, len(goPiecePrefix)+len(src))
		copy(buf, goPiecePrefix)
		copy(buf[len(goPiecePrefix):], src)
		src = buf
	}
	// Without AllErrors the parser stops early on a broken piece; the first
	// error is always kept, so err is nil exactly when there is none.
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	return err == nil
}

// goPiecesClean parses the pieces of content on up to workers goroutines, the
// caller's among them, and reports whether every one is clean. Once a piece
// is found broken, no other is started. It returns when every goroutine it
// started has finished.
func goPiecesClean(content []byte, pieces []goPiece, workers int) bool {
	var next atomic.Int64
	var broken atomic.Bool
	work := func() {
		for !broken.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(pieces) {
				return
			}
			if !parseGoPiece(content, pieces[i]) {
				broken.Store(true)
			}
		}
	}
	var wg sync.WaitGroup
	for range min(workers, len(pieces)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return !broken.Load()
}
