package lint

import (
	"errors"
	"strings"

	"go.lsp.dev/protocol"
	"golang.org/x/mod/modfile"
)

// checkGoMod checks a go.mod file with golang.org/x/mod/modfile.Parse and
// reports each error it lists (unknown directives, bad module paths and
// versions, repeated statements, syntax errors).
func checkGoMod(content []byte) []finding {
	_, err := modfile.Parse("go.mod", content, nil)
	if err == nil {
		return nil
	}
	var list modfile.ErrorList
	if errors.As(err, &list) {
		fs := make([]finding, 0, len(list))
		for i := range list {
			fs = append(fs, goModFinding(content, &list[i]))
		}
		return fs
	}
	var one *modfile.Error
	if errors.As(err, &one) {
		return []finding{goModFinding(content, one)}
	}
	return []finding{{
		severity: protocol.DiagnosticSeverityError,
		code:     CodeGoModSyntax,
		message:  strings.TrimPrefix(err.Error(), "go.mod: "),
	}}
}

// goModFinding converts one modfile error; the message is the error without
// its "go.mod:line:col: " prefix.
func goModFinding(content []byte, e *modfile.Error) finding {
	msg := "invalid go.mod"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	switch {
	case e.ModPath != "":
		msg = e.Verb + " " + e.ModPath + ": " + msg
	case e.Verb != "":
		msg = e.Verb + ": " + msg
	}
	off := 0
	if e.Pos.Line > 0 {
		off = max(0, min(e.Pos.Byte, len(content)))
	}
	return finding{
		start:    off,
		end:      goModTokenEnd(content, off),
		severity: protocol.DiagnosticSeverityError,
		code:     CodeGoModSyntax,
		message:  msg,
	}
}

// goModTokenEnd returns where the go.mod token at off ends: after a quoted
// string's closing quote, else at the next space, tab or line break.
func goModTokenEnd(content []byte, off int) int {
	lineEnd := lineEndFrom(content, off)
	if off >= lineEnd {
		return tokenEnd(content, off)
	}
	if q := content[off]; q == '"' || q == '`' {
		for i := off + 1; i < lineEnd; i++ {
			switch {
			case q == '"' && content[i] == '\\':
				i++
			case content[i] == q:
				return i + 1
			}
		}
		return lineEnd
	}
	i := off
	for i < lineEnd && content[i] != ' ' && content[i] != '\t' {
		i += runeLen(content, i)
	}
	return max(i, off+runeLen(content, off))
}
