package diff

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want []int
	}{
		{"equal", "a\nb\n", "a\nb\n", []int{0, 1}},
		{"both empty", "", "", []int{}},
		{"from empty", "", "a\n", []int{-1}},
		{"to empty", "a\n", "", []int{}},
		{"line inserted above", "a\nb\n", "x\na\nb\n", []int{-1, 0, 1}},
		{"line deleted", "a\nb\nc\n", "a\nc\n", []int{0, 2}},
		{"line changed", "a\nb\nc\n", "a\nB\nc\n", []int{0, -1, 2}},
		{"last line gains a newline", "a\nb", "a\nb\n", []int{0, -1}},
		{"CR is part of the line", "a\r\nb\r\n", "a\nb\r\n", []int{-1, 1}},
		{"repeated lines", "x\nx\ny\n", "y\nx\nx\ny\n", []int{-1, 0, 1, 2}},
		{"unicode lines", "caf\u00e9\n\U0001F600\n", "cafe\n\U0001F600\n", []int{-1, 1}},
		{"middle rewritten", "h\n1\n2\n3\nt\n", "h\n4\n2\n5\nt\n", []int{0, -1, 2, -1, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, LineMap(tt.a, tt.b)); diff != "" {
				t.Errorf("LineMap(%q, %q) mismatch (-want +got):\n%s", tt.a, tt.b, diff)
			}
		})
	}
}

// checkMatch fails unless m, the result of Match(a, b, …), keeps only equal
// tokens, in increasing order on both sides; it returns how many it keeps.
func checkMatch(t *testing.T, a, b []int32, m []int) int {
	t.Helper()
	if len(m) != len(b) {
		t.Fatalf("Match(%v, %v) = %v, want one entry per token of b", a, b, m)
	}
	kept, last := 0, -1
	for j, i := range m {
		if i < 0 {
			continue
		}
		if i <= last || i >= len(a) || a[i] != b[j] {
			t.Fatalf("Match(%v, %v) = %v keeps unequal or unordered tokens", a, b, m)
		}
		last = i
		kept++
	}
	return kept
}

// TestMatchIsAnAlignment checks on random token sequences that Match keeps
// equal tokens in increasing order on both sides, and that one inserted or
// deleted run leaves every other token kept.
func TestMatchIsAnAlignment(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(rng.IntN(4))
		}
		return s
	}
	for range 2000 {
		a, b := gen(rng.IntN(12)), gen(rng.IntN(12))
		checkMatch(t, a, b, Match(a, b, 0))
	}
	for range 500 {
		a := gen(rng.IntN(40))
		at := rng.IntN(len(a) + 1)
		run := gen(1 + rng.IntN(5))
		b := append(append(append([]int32{}, a[:at]...), run...), a[at:]...)
		if kept := checkMatch(t, a, b, Match(a, b, 0)); kept != len(a) {
			t.Fatalf("Match(%v, %v) keeps %d tokens after an insertion, want %d", a, b, kept, len(a))
		}
		if kept := checkMatch(t, b, a, Match(b, a, 0)); kept != len(a) {
			t.Fatalf("Match(%v, %v) keeps %d tokens after a deletion, want %d", b, a, kept, len(a))
		}
	}
}

func TestMatchTokenRange(t *testing.T) {
	t.Parallel()
	// Tokens on both sides of the surrogates stay distinct.
	a := []int32{0xD7FF, 0xD800, 0xDFFF, 0xE000, MaxTokens - 1}
	b := []int32{0xD800, 0xD7FF, 0xE000, 0xDFFF, MaxTokens - 1}
	got := Match(a, b, 0)
	if kept := checkMatch(t, a, b, got); kept != 3 || got[4] != 4 {
		t.Errorf("Match(%v, %v) = %v, want the last token kept", a, b, got)
	}
	// Out of range: only the common head and tail are kept.
	got = Match([]int32{1, 2, MaxTokens, 3, 4}, []int32{1, 3, 2, 4}, 0)
	if want := []int{0, -1, -1, 4}; !cmp.Equal(want, got) {
		t.Errorf("Match with an out-of-range token = %v, want %v", got, want)
	}
	got = Match([]int32{1, 2, 3}, []int32{1, -5, 3}, 0)
	if want := []int{0, -1, 2}; !cmp.Equal(want, got) {
		t.Errorf("Match with a negative token = %v, want %v", got, want)
	}
}

// lcsLen is the textbook dynamic-programming longest common subsequence.
func lcsLen(a, b []int32) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestMatchExactIsLCS checks that, when maxWork bounds the worst case,
// Match keeps as many tokens as the textbook longest common subsequence.
func TestMatchExactIsLCS(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		gen := func() []int32 {
			s := make([]int32, rng.IntN(12))
			for i := range s {
				s[i] = int32(rng.IntN(4))
			}
			return s
		}
		a, b := gen(), gen()
		got := Match(a, b, 1<<20)
		if kept, want := checkMatch(t, a, b, got), lcsLen(a, b); kept != want {
			t.Fatalf("Match(%v, %v, 1<<20) = %v keeps %d tokens, want %d", a, b, got, kept, want)
		}
	}
}

// TestMatchWorkBound checks that a middle needing more than maxWork work by
// the lower bound counts as changed, and one within it is diffed.
func TestMatchWorkBound(t *testing.T) {
	t.Parallel()
	a := []int32{0, 1, 2, 3, 4, 5, 9}
	b := []int32{0, 6, 2, 7, 4, 8, 9} // middle: 5 vs 5 tokens, 6 edits at least
	diffed := []int{0, -1, 2, -1, 4, -1, 6}
	for _, tt := range []struct {
		maxWork int
		want    []int
	}{
		{0, diffed},                           // no bound
		{60, diffed},                          // 6 edits × 10 tokens
		{59, []int{0, -1, -1, -1, -1, -1, 6}}, // over: only the head and tail
	} {
		if got := Match(a, b, tt.maxWork); !cmp.Equal(tt.want, got) {
			t.Errorf("Match(%v, %v, %d) = %v, want %v", a, b, tt.maxWork, got, tt.want)
		}
	}
	// Large token values are counted too (in a map rather than a slice).
	big := []int32{0, 1 << 20, 2, 9}
	// (middle: 2 vs 5 tokens, 5 edits at least: 35 work)
	if got, want := Match(big, b, 34), []int{0, -1, -1, -1, -1, -1, 3}; !cmp.Equal(want, got) {
		t.Errorf("Match(%v, %v, 34) = %v, want %v", big, b, got, want)
	}
	if got, want := Match(big, b, 35), []int{0, -1, 2, -1, -1, -1, 3}; !cmp.Equal(want, got) {
		t.Errorf("Match(%v, %v, 35) = %v, want %v", big, b, got, want)
	}
	// Moved tokens cost no bound: a permutation is always diffed.
	p, q := []int32{1, 2, 3, 4}, []int32{4, 1, 2, 3}
	if got, want := Match(p, q, 1), []int{-1, 0, 1, 2}; !cmp.Equal(want, got) {
		t.Errorf("Match(%v, %v, 1) = %v, want %v", p, q, got, want)
	}
}

func TestCommonPrefixSuffix(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789abcdef", 100) // spans several blocks
	tests := []struct {
		a, b           string
		prefix, suffix int
	}{
		{"", "", 0, 0},
		{"abc", "", 0, 0},
		{"abc", "abd", 2, 0},
		{"xbc", "abc", 0, 2},
		{"abc", "abc", 3, 3},
		{long + "X" + long, long + "Y" + long, len(long), len(long)},
		{long, long + "tail", len(long), 0},
		{"ab", "abc", 2, 0},
		{long + long, long + "Z" + long, len(long), len(long)},
		{long, long[:500], 500, 0},
		{"caf\u00e9", "caf\u00e8", 4, 0}, // bytes, not runes
	}
	for _, tt := range tests {
		if got := CommonPrefix(tt.a, tt.b); got != tt.prefix {
			t.Errorf("CommonPrefix(%.20q, %.20q) = %d, want %d", tt.a, tt.b, got, tt.prefix)
		}
		if got := CommonPrefix([]byte(tt.a), []byte(tt.b)); got != tt.prefix {
			t.Errorf("CommonPrefix([]byte(%.20q), …) = %d, want %d", tt.a, got, tt.prefix)
		}
		if got := CommonSuffix(tt.a, tt.b); got != tt.suffix {
			t.Errorf("CommonSuffix(%.20q, %.20q) = %d, want %d", tt.a, tt.b, got, tt.suffix)
		}
		if got := CommonSuffix([]byte(tt.a), []byte(tt.b)); got != tt.suffix {
			t.Errorf("CommonSuffix([]byte(%.20q), …) = %d, want %d", tt.a, got, tt.suffix)
		}
	}
}

// TestCommonPrefixAllocs checks that comparing byte slices in blocks
// allocates nothing (the lint compares whole files with it). Not parallel:
// AllocsPerRun needs the process to itself.
func TestCommonPrefixAllocs(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 100)
	ba, bb := []byte(long+"X"), []byte(long+"Y")
	if n := testing.AllocsPerRun(10, func() { CommonPrefix(ba, bb); CommonSuffix(ba, bb) }); n != 0 {
		t.Errorf("CommonPrefix and CommonSuffix of byte slices allocate %v times, want 0", n)
	}
}

func TestFirstChangedLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 1},
		{"", "new\n", 1},
		{"a\nb\nc\n", "a\nB\nc\n", 2},
		{"a\nb\n", "a\nb\nc\n", 3},
		{"a\nb\nc\n", "a\nb\n", 3},
		{"same\n", "same\n", 2},
		{"a\r\nb\r\n", "a\r\nb\n", 2},
		{"\u00e9\n\u00e9\n", "\u00e9\n\u00e8\n", 2},
	}
	for _, tt := range tests {
		if got := FirstChangedLine(tt.a, tt.b); got != tt.want {
			t.Errorf("FirstChangedLine(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// BenchmarkLineMap maps a 5 000-line file to an edit with 50 lines changed
// all over it.
func BenchmarkLineMap(b *testing.B) {
	var a, c strings.Builder
	for i := range 5000 {
		line := "\tvalue" + strings.Repeat("x", i%40) + " := compute()\n"
		a.WriteString(line)
		if i%100 == 7 {
			line = "\tchanged()\n"
		}
		c.WriteString(line)
	}
	old, new := a.String(), c.String()
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		LineMap(old, new)
	}
}
