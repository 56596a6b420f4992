package lint

import (
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"

	"go.lsp.dev/protocol"
)

// checkGo checks Go source with go/parser in AllErrors mode, so that every
// syntax error is reported, not only the first ten. Type errors are not
// checked: the file is parsed alone.
func checkGo(content []byte) []finding {
	fset := token.NewFileSet()
	_, err := parser.ParseFile(fset, "", content, parser.AllErrors|parser.SkipObjectResolution)
	if err == nil {
		return nil
	}
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return []finding{{severity: protocol.DiagnosticSeverityError, code: CodeGoSyntax, message: err.Error()}}
	}
	fs := make([]finding, 0, len(list))
	for _, e := range list {
		off := max(0, min(e.Pos.Offset, len(content)))
		fs = append(fs, finding{
			start:    off,
			end:      goTokenEnd(fset, content, off),
			severity: protocol.DiagnosticSeverityError,
			code:     CodeGoSyntax,
			message:  e.Msg,
		})
	}
	return fs
}

// goTokenEnd returns where the Go token starting at off ends, scanning only
// the rest of off's line so that the range never leaves the line. When off is
// not at a token (a line break, the end of input), it falls back to
// [tokenEnd].
func goTokenEnd(fset *token.FileSet, content []byte, off int) int {
	src := content[off:lineEndFrom(content, off)]
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
