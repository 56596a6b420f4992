package diff

import (
	"slices"
	"strings"
	"testing"
)

// FuzzOpcodes checks, for any two texts, that the opcodes turn a into b,
// that the ratio lies in [0, 1] under its quick bound, and that Match and
// Unified agree with them on what is kept.
func FuzzOpcodes(f *testing.F) {
	f.Add("qabxcd", "abycdf")
	f.Add("a\nb\nc\n", "a\nB\nc")
	f.Add("", "x\n")
	f.Add("caf\u00e9\r\n\xff", "cafe\r\n\xfe")
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, rb := Runes(a), Runes(b)
		m := NewRuneMatcher(ra, rb)
		var got []rune
		for _, op := range m.Opcodes() {
			if op.Op == Equal && !slices.Equal(ra[op.I1:op.I2], rb[op.J1:op.J2]) {
				t.Fatalf("Opcodes(%q, %q): %v joins unequal runs", a, b, op)
			}
			if op.Op == Equal {
				got = append(got, ra[op.I1:op.I2]...)
			} else {
				got = append(got, rb[op.J1:op.J2]...)
			}
		}
		if !slices.Equal(got, rb) {
			t.Fatalf("Opcodes(%q, %q) rebuild %q", a, b, string(got))
		}
		r := m.Ratio()
		if r < 0 || r > 1 || QuickRatio(NewProfile(a), NewProfile(b))+1e-12 < r {
			t.Fatalf("Ratio(%q, %q) = %v out of [0, QuickRatio]", a, b, r)
		}
		// The '+' and ' ' lines of the unified diff are b's lines of its hunks.
		for _, line := range strings.SplitAfter(Unified("a", "b", a, b, 3), "\n") {
			if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++ ") && !strings.Contains(b, strings.TrimSuffix(line[1:], "\n")) {
				t.Fatalf("Unified(%q, %q) adds %q, not in b", a, b, line)
			}
		}
		if (Unified("a", "b", a, b, 3) == "") != (a == b) {
			t.Fatalf("Unified(%q, %q) is empty = %v", a, b, a == b)
		}
		lm := LineMap(a, b)
		bl := splitAfterNewlines(b)
		al := splitAfterNewlines(a)
		last := -1
		for j, i := range lm {
			if i >= 0 && (i <= last || al[i] != bl[j]) {
				t.Fatalf("LineMap(%q, %q) = %v keeps unequal or unordered lines", a, b, lm)
			}
			if i >= 0 {
				last = i
			}
		}
	})
}
