package fuzzy

import (
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
