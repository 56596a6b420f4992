package diff

import (
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// MaxTokens bounds the token values [Match] accepts: go-diff compares
// sequences of Unicode scalar values, and each token becomes one.
const MaxTokens = utf8.MaxRune + 1 - (0xE000 - 0xD800)

// tokenRune maps a token to a distinct Unicode scalar value, skipping the
// surrogates (which go-diff's strings would turn into U+FFFD).
func tokenRune(t int32) rune {
	if t >= 0xD800 {
		return t + (0xE000 - 0xD800)
	}
	return t
}

// Match returns, for each token of b, the index of the token of a that a
// line diff of a and b (go-diff's Myers diff, with its speed-ups and its
// one-second time limit) keeps it from, or -1 when it was inserted or
// changed. Tokens are typically interned lines: equal lines, equal tokens.
// The indexes of kept tokens increase on both sides. When a token is
// negative or not below [MaxTokens], nothing is kept but the common head
// and tail.
func Match(a, b []int32) []int {
	out := make([]int, len(b))
	for j := range out {
		out[j] = -1
	}
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		out[head] = head
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		out[len(b)-1-tail] = len(a) - 1 - tail
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(ma) == 0 || len(mb) == 0 {
		return out
	}
	ra, ok := tokenRunes(ma)
	if !ok {
		return out
	}
	rb, ok := tokenRunes(mb)
	if !ok {
		return out
	}
	i, j := head, head
	for _, d := range diffmatchpatch.New().DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(d.Text) // one rune per token
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for k := range n {
				out[j+k] = i + k
			}
			i += n
			j += n
		case diffmatchpatch.DiffDelete:
			i += n
		case diffmatchpatch.DiffInsert:
			j += n
		}
	}
	return out
}

// tokenRunes maps tokens to runes; false when one is out of range.
func tokenRunes(ts []int32) ([]rune, bool) {
	out := make([]rune, len(ts))
	for i, t := range ts {
		if t < 0 || t >= MaxTokens {
			return nil, false
		}
		out[i] = tokenRune(t)
	}
	return out, true
}

// LineMap is [Match] over the lines of a and b: each line ends after a
// "\n", and a last line without one counts too. It returns, for each line
// of b, the index of the line of a it is unchanged from, or -1.
func LineMap(a, b string) []int {
	ids := make(map[string]int32)
	intern := func(s string) []int32 {
		out := make([]int32, 0, strings.Count(s, "\n")+1)
		for len(s) > 0 {
			i := strings.IndexByte(s, '\n') + 1
			if i == 0 {
				i = len(s)
			}
			id, ok := ids[s[:i]]
			if !ok {
				id = int32(len(ids))
				ids[s[:i]] = id
			}
			out = append(out, id)
			s = s[i:]
		}
		return out
	}
	ta := intern(a)
	return Match(ta, intern(b))
}

// CommonPrefix returns how many bytes a and b share at their start.
func CommonPrefix[T ~string | ~[]byte](a, b T) int {
	const block = 256
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && string(a[i:i+block]) == string(b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// CommonSuffix returns how many bytes a and b share at their end.
func CommonSuffix[T ~string | ~[]byte](a, b T) int {
	const block = 256
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && string(a[len(a)-i-block:len(a)-i]) == string(b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// FirstChangedLine returns the 1-based line of b where a and b first
// differ: the line holding the first byte after their common prefix. Equal
// texts give the line of their end.
func FirstChangedLine(a, b string) int {
	return 1 + strings.Count(a[:CommonPrefix(a, b)], "\n")
}
