package search

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatcher(t *testing.T) {
	t.Parallel()
	text := "func main() {\n\tctx := context.Background()\nFUNC Upper\n\nKelvin \u212a and long \u017f\n" +
		"tab\there\r\nlast line no newline"
	patterns := []string{
		"func", "main() {", "", "ctx", "(?i)func", "(?i)kelvin k", "(?i)long s", `\t`, `^FUNC`, `newline$`,
		`here$`, `here\r$`, "c(on)+text", "(?i)UPPER|main", `\w+\.Background`, "x{2,}", "^$", "a.b", `\bmain\b`,
		"(?i)ctx := CONTEXT", "line no", "(?i)é", "n\x00",
	}
	lines := strings.Split(text, "\n")
	for _, p := range patterns {
		m, err := compilePattern(p)
		if err != nil {
			t.Fatalf("compilePattern(%q) = %v", p, err)
		}
		re := regexp.MustCompile(p)
		var want []int
		for i, l := range lines {
			if re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		var got []int
		for _, l := range m.lines(context.Background(), []byte(text)) {
			got = append(got, l.no)
			if line := text[l.start:l.end]; line != lines[l.no-1] {
				t.Errorf("compilePattern(%q) line %d = %q, want %q", p, l.no, line, lines[l.no-1])
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("compilePattern(%q) matching lines mismatch (-want +got):\n%s", p, diff)
		}
		if n := m.count(context.Background(), []byte(text)); n != len(want) {
			t.Errorf("compilePattern(%q).count = %d, want %d", p, n, len(want))
		}
		if m.any(context.Background(), []byte(text)) != (len(want) > 0) {
			t.Errorf("compilePattern(%q).any = %v, want %v", p, !(len(want) > 0), len(want) > 0)
		}
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add("abc", "xx abc\nABC\n")
	f.Add("(?i)straße", "STRASSE\nstraße\nSTRAßE\n")
	f.Add("(?i)k+", "\u212a\nk\n")
	f.Add("a|b", "a\nb\nc")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		re, err := regexp.Compile(pattern)
		m, merr := compilePattern(pattern)
		if (err != nil) != (merr != nil) {
			t.Fatalf("compilePattern(%q) error %v, regexp error %v", pattern, merr, err)
		}
		if err != nil {
			return
		}
		// The model: a text has one line per newline-terminated piece plus
		// a last unterminated one; an empty text has no lines.
		if strings.HasSuffix(text, "\n") {
			text += "x"
		}
		var want []int
		for i, l := range strings.Split(text, "\n") {
			if text != "" && re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		var got []int
		for _, l := range m.lines(context.Background(), []byte(text)) {
			got = append(got, l.no)
		}
		if !slicesEqualInts(want, got) {
			t.Fatalf("compilePattern(%q) on %q matched lines %v, want %v", pattern, text, got, want)
		}
	})
}

func slicesEqualInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern   string
		bare      bool
		rel, name string
		want      bool
	}{
		{"*.go", false, "a/b/c.go", "c.go", true},
		{"*.go", false, "a/b/c.gox", "c.gox", false},
		{"a/*.go", false, "a/c.go", "c.go", true},
		{"a/*.go", false, "a/b/c.go", "c.go", false},
		{"a/**/*.go", false, "a/b/c/d.go", "d.go", true},
		{"a/**/*.go", false, "a/d.go", "d.go", true},
		{"**/*.go", false, "x/y.go", "y.go", true},
		{"**/b/*.go", false, "a/b/y.go", "y.go", true},
		{"/a/*.go", false, "a/y.go", "y.go", true},
		{"*.{ts,tsx}", false, "x.tsx", "x.tsx", true},
		{"*.{ts,tsx}", false, "x.js", "x.js", false},
		{"{a,b{c,d}}.txt", false, "bd.txt", "bd.txt", true},
		{"!*.go", false, "x.go", "x.go", false},
		{"!*.go", false, "x.md", "x.md", true},
		{"config", true, "src/MyConfig.yaml", "MyConfig.yaml", true},
		{"config", false, "src/config", "config", true},
		{"config", false, "src/myconfig", "myconfig", false},
		{"", true, "x", "x", true},
		{"test_*.py", true, "t/test_a.py", "test_a.py", true},
		{"test_*.py", true, "t/mytest_a.py", "mytest_a.py", false},
	}
	for _, tc := range tests {
		g, err := compileGlob(tc.pattern, tc.bare)
		if err != nil {
			t.Fatalf("compileGlob(%q) = %v", tc.pattern, err)
		}
		if got := g.match(tc.rel, tc.name); got != tc.want {
			t.Errorf("compileGlob(%q, bare %v).match(%q) = %v, want %v", tc.pattern, tc.bare, tc.rel, got, tc.want)
		}
	}
}

// TestMatcherStopsOnCancel checks that matching inside one large file
// stops when the context is done, for the literal, prefiltered and plain
// regular expression paths.
func TestMatcherStopsOnCancel(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("needle in a haystack\n", 50_000))
	for _, pattern := range []string{"needle", "need[l]e", "^n.*k$"} {
		m, err := compilePattern(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if n := m.count(context.Background(), data); n != 50_000 {
			t.Fatalf("count(%q) = %d, want 50000", pattern, n)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if n := len(m.lines(ctx, data)); n >= checkEvery {
			t.Errorf("lines(%q) with a cancelled ctx = %d lines, want fewer than %d", pattern, n, checkEvery)
		}
		if n := m.count(ctx, data); n >= checkEvery {
			t.Errorf("count(%q) with a cancelled ctx = %d, want fewer than %d", pattern, n, checkEvery)
		}
	}
}
