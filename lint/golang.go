package lint

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"

	"go.lsp.dev/protocol"
)

// checkGo checks Go source with go/parser in AllErrors mode, so that every
// syntax error is reported, not only the first ten. Type errors are not
// checked: the file is parsed alone. A large file is first parsed in pieces
// on several goroutines, which can prove it clean sooner (see gopieces.go);
// its diagnostics always come from [parseGo].
func checkGo(content []byte) []finding {
	return newGoSplitter().check(content)
}

// parseGo parses content as one whole Go file and returns go/parser's errors.
func parseGo(content []byte) []finding {
	fs, _ := parseGoFile(content)
	return fs
}

// parseGoFile parses content as one whole Go file and returns go/parser's
// errors and, when there are any, the offsets where the file's top-level
// func, type, var and const declarations start (at their keyword), in order.
func parseGoFile(content []byte) (fs []finding, decls []int) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", content, parser.AllErrors|parser.SkipObjectResolution)
	if err == nil {
		return nil, nil
	}
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return []finding{{severity: protocol.DiagnosticSeverityError, code: CodeGoSyntax, message: err.Error()}}, nil
	}
	fs = make([]finding, 0, len(list))
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
	if tf := fset.File(f.FileStart); tf != nil {
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
				decls = append(decls, tf.Offset(pos))
			}
		}
	}
	return fs, decls
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
