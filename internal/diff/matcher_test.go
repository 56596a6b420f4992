package diff

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ratio is difflib.SequenceMatcher(None, a, b).ratio() of two strings.
func ratio(a, b string) float64 { return NewRuneMatcher(Runes(a), Runes(b)).Ratio() }

// lcg returns n characters of alphabet picked by a linear congruential
// generator: reproducible pseudo-random text that CPython can be given too.
func lcg(seed uint64, n int, alphabet string) string {
	rs := []rune(alphabet)
	var b strings.Builder
	x := seed
	for range n {
		x = (x*1103515245 + 12345) % (1 << 31)
		b.WriteRune(rs[x%uint64(len(rs))])
	}
	return b.String()
}

// TestRatio compares with ratios computed by CPython 3's
// difflib.SequenceMatcher(None, a, b).ratio(), including the autojunk
// heuristic for sequences of 200 or more elements, and checks that the
// quick bounds never fall below the ratio.
func TestRatio(t *testing.T) {
	t.Parallel()
	var printable strings.Builder
	for c := 0x21; c < 0x21+90; c++ {
		printable.WriteRune(rune(c))
	}
	mixedA, mixedB := lcg(5, 260, printable.String()), lcg(6, 240, printable.String())
	tests := []struct {
		a, b string
		want float64
	}{
		{"abcd", "bcde", 0.75},
		{"hello world", "hello there", 0.6363636363636364},
		{"config_value = 999", "config_value = 100", 0.8333333333333334},
		{"", "", 1.0},
		{"abc", "", 0.0},
		{"", "abc", 0.0},
		{"x = 1", "x = 2", 0.8},
		{"def foo():", "def baz():", 0.7},
		{"Hello\u2014world", "Hello--world", 0.8695652173913043},
		{"na\u00efve caf\u00e9", "naive cafe", 0.8},
		{"caf\u00e9 \U0001F600 na\u00efve", "cafe \U0001F600 naive", 0.8333333333333334},
		{"for x in items:", "if x in items:", 0.896551724137931},
		{"private Thread currentThread;", "private volatile Thread currentThread;", 0.8656716417910447},
		// CPython's test_difflib: one insert, one delete.
		{strings.Repeat("b", 100), strings.Repeat("b", 50) + "a" + strings.Repeat("b", 50), 0.9950248756218906},
		{strings.Repeat("a", 40) + "c" + strings.Repeat("b", 40), strings.Repeat("a", 40) + strings.Repeat("b", 40), 0.9937888198757764},
		// Autojunk: in b of 200 or more elements, 'b' is popular and
		// cannot start a match.
		{strings.Repeat("b", 200), "a" + strings.Repeat("b", 199), 0.0},
		{strings.Repeat("a", 300), strings.Repeat("a", 300), 1.0},
		{strings.Repeat("ab", 150) + "c", strings.Repeat("ba", 150) + "c", 0.0033222591362126247},
		{strings.Repeat("The quick brown fox jumps over the lazy dog", 6), strings.Repeat("The quick brown cat jumps over the lazy dog", 6), 0.06201550387596899},
		{lcg(1, 400, "abcde \n"), lcg(2, 350, "abcde \n"), 0.0},
		{strings.Repeat("x", 199) + "y", strings.Repeat("x", 200), 0.995},
		{strings.Repeat("abxcd", 50), strings.Repeat("abcd", 60), 0.00816326530612245},
		{mixedA, mixedB, 0.036},
		{mixedB, mixedA, 0.076},
		{mixedA, mixedA[:100] + "XYZ" + mixedA[120:], 0.9542743538767395},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			got := ratio(tt.a, tt.b)
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("ratio(%.40q, %.40q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			pa, pb := NewProfile(tt.a), NewProfile(tt.b)
			if ub := QuickRatio(pa, pb); ub+1e-12 < got {
				t.Errorf("QuickRatio(%.40q, %.40q) = %v, below ratio %v", tt.a, tt.b, ub, got)
			}
			for _, th := range []float64{got - 1e-9, got + 1e-9} {
				if want := got >= th; RatioAtLeast(pa, pb, th) != want {
					t.Errorf("RatioAtLeast(%.40q, %.40q, %v) = %v, want %v", tt.a, tt.b, th, !want, want)
				}
			}
		})
	}
}

// TestRatioAtLeastReusesB checks that the matcher RatioAtLeast caches in b
// gives every a the ratio a fresh one would.
func TestRatioAtLeastReusesB(t *testing.T) {
	t.Parallel()
	b := NewProfile("config_value = 100")
	for _, a := range []string{"config_value = 999", "x", "config_value = 100", "", "value = 100 config"} {
		r := ratio(a, "config_value = 100")
		if !RatioAtLeast(NewProfile(a), b, r) || RatioAtLeast(NewProfile(a), b, r+1e-9) {
			t.Errorf("RatioAtLeast(%q, b) disagrees with the ratio %v", a, r)
		}
	}
}

func TestMatchingBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want []Block
	}{
		{"abxcd", "abcd", []Block{{0, 0, 2}, {3, 2, 2}, {5, 4, 0}}},
		{" abcd", "abcd abcd", []Block{{0, 4, 5}, {5, 9, 0}}},
		{"", "", []Block{{0, 0, 0}}},
	}
	for _, tt := range tests {
		got := NewRuneMatcher(Runes(tt.a), Runes(tt.b)).MatchingBlocks()
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("MatchingBlocks(%q, %q) mismatch (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
}

// TestOpcodes compares with CPython's get_opcodes().
func TestOpcodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want []Opcode
	}{
		{"Hello--world", "Hello--there", []Opcode{{Equal, 0, 7, 0, 7}, {Replace, 7, 9, 7, 10}, {Equal, 9, 10, 10, 11}, {Replace, 10, 12, 11, 12}}},
		{"qabxcd", "abycdf", []Opcode{{Delete, 0, 1, 0, 0}, {Equal, 1, 3, 0, 2}, {Replace, 3, 4, 2, 3}, {Equal, 4, 6, 3, 5}, {Insert, 6, 6, 5, 6}}},
		{"", "ab", []Opcode{{Insert, 0, 0, 0, 2}}},
		{"ab", "", []Opcode{{Delete, 0, 2, 0, 0}}},
		{"ab", "ab", []Opcode{{Equal, 0, 2, 0, 2}}},
		{"", "", nil},
		{strings.Repeat("b", 100), strings.Repeat("b", 50) + "a" + strings.Repeat("b", 50), []Opcode{{Equal, 0, 50, 0, 50}, {Insert, 50, 50, 50, 51}, {Equal, 50, 100, 51, 101}}},
		{strings.Repeat("a", 40) + "c" + strings.Repeat("b", 40), strings.Repeat("a", 40) + strings.Repeat("b", 40), []Opcode{{Equal, 0, 40, 0, 40}, {Delete, 40, 41, 40, 40}, {Equal, 41, 81, 40, 80}}},
		// Code points, not bytes: é is one element.
		{"caf\u00e9!", "cafe!", []Opcode{{Equal, 0, 3, 0, 3}, {Replace, 3, 4, 3, 4}, {Equal, 4, 5, 4, 5}}},
		// Invalid bytes are elements of their own, unequal to each other.
		{"a\xffb", "a\xfeb", []Opcode{{Equal, 0, 1, 0, 1}, {Replace, 1, 2, 1, 2}, {Equal, 2, 3, 2, 3}}},
	}
	for _, tt := range tests {
		got := NewRuneMatcher(Runes(tt.a), Runes(tt.b)).Opcodes()
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Opcodes(%q, %q) mismatch (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
}

// TestGroupedOpcodes is the example of CPython's get_grouped_opcodes
// docstring: lines "1".."39" with an insertion, two replacements and a
// deletion, over interned lines.
func TestGroupedOpcodes(t *testing.T) {
	t.Parallel()
	var a []string
	for i := 1; i < 40; i++ {
		a = append(a, fmt.Sprint(i))
	}
	b := append([]string{}, a...)
	b = append(b[:8], append([]string{"i"}, b[8:]...)...)
	b[20] += "x"
	b = append(b[:23], b[28:]...)
	b[30] += "y"
	ids := map[string]int32{}
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			if _, ok := ids[l]; !ok {
				ids[l] = int32(len(ids))
			}
			out[i] = ids[l]
		}
		return out
	}
	ia, ib := intern(a), intern(b)
	got := NewMatcher(ia, ib, int32(len(ids))).GroupedOpcodes(3)
	want := [][]Opcode{
		{{Equal, 5, 8, 5, 8}, {Insert, 8, 8, 8, 9}, {Equal, 8, 11, 9, 12}},
		{{Equal, 16, 19, 17, 20}, {Replace, 19, 20, 20, 21}, {Equal, 20, 22, 21, 23}, {Delete, 22, 27, 23, 23}, {Equal, 27, 30, 23, 26}},
		{{Equal, 31, 34, 27, 30}, {Replace, 34, 35, 30, 31}, {Equal, 35, 38, 31, 34}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GroupedOpcodes mismatch (-want +got):\n%s", diff)
	}
	// The same with every symbol in the sparse map instead of the dense
	// arrays.
	if diff := cmp.Diff(want, NewMatcher(ia, ib, 0).GroupedOpcodes(3)); diff != "" {
		t.Errorf("GroupedOpcodes with no dense symbols mismatch (-want +got):\n%s", diff)
	}
	if got := NewMatcher(ia, ia, int32(len(ids))).GroupedOpcodes(3); got != nil {
		t.Errorf("GroupedOpcodes of equal sequences = %v, want none", got)
	}
}

func TestRunes(t *testing.T) {
	t.Parallel()
	rs, offs := RuneOffsets("a\u00e9\xff\U0001F600")
	if want := []rune{'a', '\u00e9', -1 - 0xff, '\U0001F600'}; !cmp.Equal(want, rs) {
		t.Errorf("RuneOffsets runes = %v, want %v", rs, want)
	}
	if want := []int{0, 1, 3, 4, 8}; !cmp.Equal(want, offs) {
		t.Errorf("RuneOffsets offsets = %v, want %v", offs, want)
	}
	if got := Runes("a\u00e9\xff\U0001F600"); !cmp.Equal(rs, got) {
		t.Errorf("Runes = %v, want %v", got, rs)
	}
}

func BenchmarkRatioLines(b *testing.B) {
	a := "\treturn store.Save(ctx, \"key1405\", value1401)"
	c := "\treturn store.Save(ctx, \"key1412\", value1408)"
	pa, pc := NewProfile(a), NewProfile(c)
	for b.Loop() {
		RatioAtLeast(pa, pc, 0.8)
	}
}
