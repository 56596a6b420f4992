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
// The indexes of kept tokens increase on both sides.
//
// The common head and tail are always kept. The tokens between them are
// compared only when every token is in [0, [MaxTokens]) and, when maxWork
// is positive, when the diff needs no more than maxWork work by a cheap
// lower bound (tokens one side has more of than the other, times the
// tokens compared); otherwise they all count as changed. When maxWork
// bounds even the worst case, the square of the tokens compared, the diff
// is exact instead (no speed-ups, no time limit): it keeps a longest common
// subsequence, and the result does not depend on the machine's speed.
func Match(a, b []int32, maxWork int) []int {
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
	if maxWork > 0 && editsAtLeast(ma, mb)*(len(ma)+len(mb)) > maxWork {
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
	dmp := diffmatchpatch.New()
	if n := len(ma) + len(mb); maxWork > 0 && n*n <= maxWork {
		dmp.DiffTimeout = 0 // exact: even the worst case is within maxWork
	}
	i, j := head, head
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
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

// editsAtLeast returns a lower bound on the insertions and deletions that
// turn a into b: every token one side has more copies of than the other
// must be inserted or deleted.
func editsAtLeast(a, b []int32) int {
	// Interned tokens are small: count them in a slice when they all are.
	top := int32(0)
	for _, s := range [2][]int32{a, b} {
		for _, t := range s {
			if t < 0 || int(t) > 4*(len(a)+len(b)) {
				return editsAtLeastMap(a, b)
			}
			top = max(top, t)
		}
	}
	counts := make([]int32, top+1)
	for _, t := range a {
		counts[t]++
	}
	for _, t := range b {
		counts[t]--
	}
	n := 0
	for _, c := range counts {
		n += int(max(c, -c))
	}
	return n
}

// editsAtLeastMap is editsAtLeast for any tokens.
func editsAtLeastMap(a, b []int32) int {
	counts := make(map[int32]int, len(a))
	for _, t := range a {
		counts[t]++
	}
	for _, t := range b {
		counts[t]--
	}
	n := 0
	for _, c := range counts {
		n += max(c, -c)
	}
	return n
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
	var lines Interner[string]
	intern := func(s string) []int32 {
		out := make([]int32, 0, strings.Count(s, "\n")+1)
		for len(s) > 0 {
			i := strings.IndexByte(s, '\n') + 1
			if i == 0 {
				i = len(s)
			}
			out = append(out, lines.ID(s[:i]))
			s = s[i:]
		}
		return out
	}
	ta := intern(a)
	return Match(ta, intern(b), 0)
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
