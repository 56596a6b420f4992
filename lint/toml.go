package lint

import (
	"bytes"
	"errors"
	"strings"

	"github.com/BurntSushi/toml"
	"go.lsp.dev/protocol"
)

// checkTOML checks a TOML document with BurntSushi/toml, which stops at the
// first error (syntax errors and keys defined twice alike).
func checkTOML(content []byte) []finding {
	var v struct{} // decoding into an empty struct builds nothing past the parse
	_, err := toml.Decode(string(content), &v)
	if err == nil {
		return nil
	}
	f := finding{severity: protocol.DiagnosticSeverityError, code: CodeTOMLSyntax}
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		f.message = strings.TrimPrefix(err.Error(), "toml: ")
		return []finding{f}
	}
	f.message = pe.Message
	// The parser drops a leading byte order mark before it counts offsets.
	skip := 0
	switch {
	case bytes.HasPrefix(content, []byte(utf8BOM)):
		skip = len(utf8BOM)
	case bytes.HasPrefix(content, []byte("\xff\xfe")), bytes.HasPrefix(content, []byte("\xfe\xff")):
		skip = 2
	}
	f.start = max(0, min(skip+pe.Position.Start, len(content)))
	f.end = f.start + max(pe.Position.Len, 1)
	if strings.HasPrefix(pe.Message, "TOML files cannot contain control characters") {
		// The parser reports the byte before the control character.
		if i := indexTOMLControl(content, f.start); i >= 0 {
			f.start, f.end = i, i+1
		}
	}
	if f.start < len(content) && (content[f.start] == '\n' || content[f.start] == '\r') {
		f.end = tokenEnd(content, f.start) // a line break is covered by itself
	}
	return []finding{f}
}

// indexTOMLControl returns the offset of the first control character that
// TOML forbids (all but tab, line feed and carriage return, and DEL) at or
// after from, or -1.
func indexTOMLControl(content []byte, from int) int {
	for i := from; i < len(content); i++ {
		if c := content[i]; (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			return i
		}
	}
	return -1
}
