package workspace

import (
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
