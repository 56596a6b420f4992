package tools

import (
	"context"
	"strings"
	"testing"
)

// TestSearchMatcherStopsOnCancel checks that matching inside one large file
// stops when the context is done, for the literal, prefiltered and plain
// regular expression paths.
func TestSearchMatcherStopsOnCancel(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("needle in a haystack\n", 50_000))
	for _, pattern := range []string{"needle", "need[l]e", "^n.*k$"} {
		m, err := searchCompile(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if n := m.count(context.Background(), data); n != 50_000 {
			t.Fatalf("count(%q) = %d, want 50000", pattern, n)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if n := len(m.lines(ctx, data)); n >= searchCheckEvery {
			t.Errorf("lines(%q) with a cancelled ctx = %d lines, want fewer than %d", pattern, n, searchCheckEvery)
		}
		if n := m.count(ctx, data); n >= searchCheckEvery {
			t.Errorf("count(%q) with a cancelled ctx = %d, want fewer than %d", pattern, n, searchCheckEvery)
		}
	}
}
