package diff

import "unicode/utf8"

// Runes decodes s into code points, as Python sees a str. Each byte of
// invalid UTF-8 becomes its own negative value, distinct from any real code
// point (including U+FFFD), so that two different invalid bytes never
// compare equal.
func Runes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			r = -1 - rune(s[i])
		}
		out = append(out, r)
		i += w
	}
	return out
}

// RuneOffsets is [Runes] plus the byte offset in s of every rune, and
// len(s) as a last entry.
func RuneOffsets(s string) ([]rune, []int) {
	rs := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			r = -1 - rune(s[i])
		}
		rs = append(rs, r)
		offs = append(offs, i)
		i += w
	}
	offs = append(offs, len(s))
	return rs, offs
}
