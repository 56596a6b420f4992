package fuzzy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's str methods as hermes-agent's fuzzy matcher uses them: its
// whitespace is str.isspace()'s and its lines are str.splitlines()'s, which
// differ from the strings package's at the edges (\x1c-\x1f, \v, \f,
// U+0085, U+2028, U+2029).

// isSpace reports whether Python's str.isspace() holds for r.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Strip is Python's str.strip() with no arguments.
func Strip(s string) string { return strings.TrimFunc(s, isSpace) }

// LStrip is Python's str.lstrip() with no arguments.
func LStrip(s string) string { return strings.TrimLeftFunc(s, isSpace) }

// SplitLines is Python's str.splitlines(): it splits on \n, \r\n, \r, \v,
// \f, \x1c-\x1e, U+0085, U+2028 and U+2029 and drops the terminators; a final
// terminator does not produce an empty last line.
func SplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			start = i + w
		case '\r':
			out = append(out, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				w = 2
			}
			start = i + w
		}
		i += w
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Repr is Python's repr() of a str, used where hermes formats a path with
// !r.
func Repr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == ' ' || (r != 0x7f && r > ' ' && unicode.IsPrint(r)):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += w
	}
	b.WriteByte(quote)
	return b.String()
}
