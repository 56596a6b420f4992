package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// utf8BOM is the UTF-8 byte order mark; JSON and JSONC treat a leading one as
// white space, as editors do.
const utf8BOM = "\xef\xbb\xbf"

// jsonEOF is encoding/json's message for input that ends too early.
const jsonEOF = "unexpected end of JSON input"

// checkJSON checks strict JSON with encoding/json. Empty content is an error,
// as it is for every JSON parser.
func checkJSON(content []byte) []finding {
	data := content
	if bytes.HasPrefix(content, []byte(utf8BOM)) {
		data = bytes.Clone(content)
		copy(data, "   ")
	}
	return jsonSyntax(data, CodeJSONSyntax)
}

// checkJSONC checks JSON with comments and trailing commas: comments and
// trailing commas are overwritten with spaces (line breaks kept, so byte
// offsets and lines do not move) and the result is checked as JSON. Content
// that is empty apart from white space and comments is valid, as in VS Code.
// An unterminated block comment is an error at its "/*".
func checkJSONC(content []byte) []finding {
	data, unterminated := stripJSONC(content)
	if unterminated < 0 && len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	fs := jsonSyntax(data, CodeJSONCSyntax)
	if unterminated < 0 {
		return fs
	}
	// The comment runs to the end, so an error found after its start is only
	// the parser running out of input.
	kept := []finding{{
		start:    unterminated,
		end:      unterminated + 2,
		severity: protocol.DiagnosticSeverityError,
		code:     CodeJSONCSyntax,
		message:  "unterminated block comment",
	}}
	for _, f := range fs {
		if f.start < unterminated {
			kept = append(kept, f)
		}
	}
	return kept
}

// jsonSyntax reports the first syntax error of data, if any.
func jsonSyntax(data []byte, code string) []finding {
	if json.Valid(data) {
		return nil
	}
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if err == nil {
			return nil
		}
		return []finding{{severity: protocol.DiagnosticSeverityError, code: code, message: err.Error()}}
	}
	f := finding{severity: protocol.DiagnosticSeverityError, code: code, message: se.Error()}
	if se.Error() == jsonEOF || se.Offset <= 0 {
		f.start, f.end = len(data), len(data)
		return []finding{f}
	}
	// SyntaxError.Offset is just after the byte that failed.
	off := min(int(se.Offset)-1, len(data)-1)
	f.start, f.end = jsonToken(data, off)
	f.message = fixJSONCharacter(f.message, data, off)
	return []finding{f}
}

// jsonToken returns the range of the token holding the offending byte at off:
// a whole string when it is a quote, a whole word (true, fals, 12x, foo) when
// it is a word character, else the one rune.
func jsonToken(data []byte, off int) (start, end int) {
	if data[off] == '"' {
		lineEnd := lineEndFrom(data, off)
		for i := off + 1; i < lineEnd; i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return off, i + 1
			}
		}
		return off, max(lineEnd, off+1)
	}
	// encoding/json stops at the first byte of a bad multi-byte rune.
	for off > 0 && !startsRune(data[off]) {
		off--
	}
	return wordStart(data, off), tokenEnd(data, off)
}

// fixJSONCharacter rewrites encoding/json's "invalid character 'Ã'", which
// quotes the first byte of a multi-byte rune as if it were Latin-1, to quote
// the whole rune ("invalid character 'é'").
func fixJSONCharacter(msg string, data []byte, off int) string {
	if data[off] < utf8.RuneSelf {
		return msg
	}
	r, size := utf8.DecodeRune(data[off:])
	if r == utf8.RuneError && size == 1 {
		return msg
	}
	old := "invalid character " + quoteJSONChar(rune(data[off]))
	if !strings.HasPrefix(msg, old) {
		return msg
	}
	return "invalid character " + quoteJSONChar(r) + msg[len(old):]
}

// quoteJSONChar quotes a character the way encoding/json's messages do.
func quoteJSONChar(r rune) string {
	switch r {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(r))
	return "'" + s[1:len(s)-1] + "'"
}

// stripJSONC returns content with its comments, its trailing commas and a
// leading byte order mark overwritten with spaces (line breaks inside block
// comments are kept). It returns content itself when there is nothing to
// blank. unterminated is the offset of an unterminated block comment, or -1.
func stripJSONC(content []byte) (data []byte, unterminated int) {
	unterminated = -1
	var out []byte // a copy of content, made at the first change
	blank := func(from, to int) {
		if out == nil {
			out = bytes.Clone(content)
		}
		for k := from; k < to; k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
	}
	i := 0
	if bytes.HasPrefix(content, []byte(utf8BOM)) {
		blank(0, len(utf8BOM))
		i = len(utf8BOM)
	}
	pendingComma := -1 // a comma that is trailing if a ] or } comes next
	var last byte      // the last significant byte outside strings and comments
	for i < len(content) {
		c := content[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"':
			pendingComma, last = -1, '"'
			i = skipJSONString(content, i)
		case c == '/' && i+1 < len(content) && content[i+1] == '/':
			j := lineEndFrom(content, i)
			blank(i, j)
			i = j
		case c == '/' && i+1 < len(content) && content[i+1] == '*':
			k := bytes.Index(content[i+2:], []byte("*/"))
			if k < 0 {
				blank(i, len(content))
				return out, i
			}
			blank(i, i+2+k+2)
			i += 2 + k + 2
		case c == ']' || c == '}':
			if pendingComma >= 0 {
				blank(pendingComma, pendingComma+1)
			}
			pendingComma, last = -1, c
			i++
		case c == ',':
			pendingComma = -1
			if last != 0 && last != '[' && last != '{' && last != ',' && last != ':' {
				pendingComma = i // only a comma after a value can trail
			}
			last = c
			i++
		default:
			pendingComma, last = -1, c
			i++
		}
	}
	if out == nil {
		return content, unterminated
	}
	return out, unterminated
}

// skipJSONString returns the offset just after the string starting with the
// quote at i, or len(content) when it does not end.
func skipJSONString(content []byte, i int) int {
	for j := i + 1; j < len(content); j++ {
		switch content[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(content)
}
