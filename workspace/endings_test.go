package workspace

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestKeepEndings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, old, new, want, wantPatch string
	}{
		{"lf file keeps new as given", "a\nb\n", "a\r\nb\n", "a\r\nb\n", "a\nb\n"},
		{"no endings at all", "abc", "abc\r\nd", "abc\r\nd", "abc\r\nd"},
		{"crlf file, lf edit", "a\r\nb\r\n", "a\nx\nb\n", "a\r\nx\r\nb\r\n", "a\r\nx\r\nb\r\n"},
		{"mixed file keeps each untouched line", "a\r\nb\nc\r\nd\n", "a\nb\nc\nNEW\nd\n", "a\r\nb\nc\r\nNEW\r\nd\n", "a\r\nb\nc\r\nNEW\r\nd\n"},
		{"moved line keeps its ending", "x\r\ny\nz\r\n", "y\nx\nz\n", "y\nx\r\nz\r\n", "y\nx\r\nz\r\n"},
		{"deleted lines", "a\r\nb\nc\r\n", "a\nc\n", "a\r\nc\r\n", "a\r\nc\r\n"},
		{"lone cr dominant", "a\rb\rc\n", "a\nb\nX\nc\n", "a\rb\rX\rc\n", "a\rb\rX\rc\n"},
		{"empty new", "a\r\n", "", "", ""},
	} {
		if got := KeepEndings(tc.old, tc.new); got != tc.want {
			t.Errorf("%s: KeepEndings(%q, %q) = %q, want %q", tc.name, tc.old, tc.new, got, tc.want)
		}
		if got := PatchEndings(tc.old, tc.new); got != tc.wantPatch {
			t.Errorf("%s: PatchEndings(%q, %q) = %q, want %q", tc.name, tc.old, tc.new, got, tc.wantPatch)
		}
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

// The Myers matcher keeps a longest common subsequence: its pairs are equal
// lines in increasing order on both sides, as many as the textbook LCS.
func TestMyersPairsIsLCS(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		gen := func() []int32 {
			s := make([]int32, rng.IntN(12))
			for i := range s {
				s[i] = int32(rng.IntN(4))
			}
			return s
		}
		a, b := gen(), gen()
		pairs := myersPairs(a, b, len(a)+len(b))
		if len(a)+len(b) > 0 && pairs == nil && lcsLen(a, b) > 0 {
			t.Fatalf("%d: myersPairs(%v, %v) = nil", iter, a, b)
		}
		for k, p := range pairs {
			if a[p[0]] != b[p[1]] {
				t.Fatalf("%d: pair %v of %v, %v joins different lines", iter, p, a, b)
			}
			if k > 0 && (p[0] >= pairs[k-1][0] || p[1] >= pairs[k-1][1]) {
				t.Fatalf("%d: pairs %v of %v, %v are not strictly ordered (backwards)", iter, pairs, a, b)
			}
		}
		if want := lcsLen(a, b); len(pairs) != want {
			t.Fatalf("%d: myersPairs(%v, %v) kept %d lines, want %d", iter, a, b, len(pairs), want)
		}
	}
	if got := myersPairs([]int32{1, 2, 3}, []int32{4, 5, 6}, 2); got != nil {
		t.Errorf("myersPairs beyond maxD = %v, want nil", got)
	}
}

// crlfFile is a CRLF file of n lines with every tenth line LF-terminated.
func crlfFile(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%50))
		if i%10 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString("\r\n")
		}
	}
	return b.String()
}

func BenchmarkKeepEndings(b *testing.B) {
	old := crlfFile(100_000)
	lines := strings.SplitAfter(old, "\n")
	oneLine := strings.Join(lines[:50_000], "") + "inserted\n" + strings.Join(lines[50_000:], "")
	spread := strings.ReplaceAll(old, "line xxxxxxxxxx\r\n", "changed\n") // ~2 000 changes over the whole file
	rewritten := strings.ReplaceAll(old, "line", "LINE")
	for _, bc := range []struct{ name, new string }{
		{"one_line_in_100k", oneLine},
		{"2k_changes_in_100k", spread},
		{"every_line_changed_100k", rewritten},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				KeepEndings(old, bc.new)
			}
		})
	}
}
