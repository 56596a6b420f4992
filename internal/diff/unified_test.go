package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnified compares with CPython's difflib.unified_diff over lines split
// after "\n", plus git's "\ No newline at end of file" after a last line
// without one.
func TestUnified(t *testing.T) {
	t.Parallel()
	lines := func(n int, edit map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := edit[i]; ok {
				b.WriteString(s)
				continue
			}
			fmt.Fprintf(&b, "l%d\n", i)
		}
		return b.String()
	}
	eight, eightEdited := "a\nb\nc\nd\ne\nf\ng\nh\n", "a\nB\nc\nd\ne\nf\ng\nH\n"
	tests := []struct {
		name    string
		a, b    string
		context int
		want    string
	}{
		{"equal", "x\n", "x\n", 3, ""},
		{"both empty", "", "", 3, ""},
		{"docstring example", "one\ntwo\nthree\nfour\n", "zero\none\ntree\nfour\n", 3,
			"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n+zero\n one\n-two\n-three\n+tree\n four\n"},
		{"from empty", "", "a\nb\n", 3, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\nb\n", "", 3, "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"one line each, no newline", "x", "y", 3,
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"},
		{"newline removed at the end", "x\n", "x", 3, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n"},
		{"CRLF stays in the line", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 3, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n"},
		{"unicode", "caf\u00e9\nna\u00efve\n\U0001F600\n", "cafe\nna\u00efve\n\U0001F601\n", 3,
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-caf\u00e9\n+cafe\n na\u00efve\n-\U0001F600\n+\U0001F601\n"},
		{"one hunk with three lines of context", eight, eightEdited, 3,
			"--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n-h\n+H\n"},
		{"two hunks with one line of context", eight, eightEdited, 1,
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n"},
		{"no context", eight, eightEdited, 0, "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n@@ -8 +8 @@\n-h\n+H\n"},
		{"far apart changes", lines(20, nil), lines(20, map[int]string{2: "two\n", 18: "eighteen\n"}), 3,
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l1\n-l2\n+two\n l3\n l4\n l5\n@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+eighteen\n l19\n l20\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Unified("a/f", "b/f", tt.a, tt.b, tt.context)); diff != "" {
				t.Errorf("Unified(%q, %q, %d) mismatch (-want +got):\n%s", tt.a, tt.b, tt.context, diff)
			}
		})
	}
}

// TestUnifiedRange is CPython's test_range_format_unified.
func TestUnifiedRange(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		start, stop int
		want        string
	}{{3, 3, "3,0"}, {3, 4, "4"}, {3, 5, "4,2"}, {3, 6, "4,3"}, {0, 0, "0,0"}} {
		if got := unifiedRange(tt.start, tt.stop); got != tt.want {
			t.Errorf("unifiedRange(%d, %d) = %q, want %q", tt.start, tt.stop, got, tt.want)
		}
	}
}

// BenchmarkUnified diffs a 5 000-line file with three changed lines.
func BenchmarkUnified(b *testing.B) {
	var a strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "\tvalue%d := compute(req.Field%d, %d)\n", i, i%13, i)
	}
	old := a.String()
	new := strings.Replace(old, "value10 :=", "v10 :=", 1)
	new = strings.Replace(new, "value2500 :=", "v2500 :=", 1)
	new = strings.Replace(new, "value4990 :=", "v4990 :=", 1)
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		if Unified("a/f", "b/f", old, new, 3) == "" {
			b.Fatal("no diff")
		}
	}
}
