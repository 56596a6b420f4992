package fuzzy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// similarLines returns n lines alike enough that every pair of them needs a
// full similarity ratio: the hostile input of the similarity strategies.
func similarLines(prefix string, n, mod int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\t%s%d := compute(a, b, %d) // step\n", prefix, i, i%mod)
	}
	return b.String()
}

// blockAnchorTrap returns lines alternating between "{" and one constant
// line: every window of an even length from an even line starts with "{"
// and ends with the constant line, so each is a block_anchor candidate.
func blockAnchorTrap(lines int) string {
	var b strings.Builder
	for i := range lines {
		if i%2 == 0 {
			b.WriteString("{\n")
		} else {
			b.WriteString("\tz := compute(alpha, beta, gamma, delta, 1) // one step }\n")
		}
	}
	return b.String()
}

// blockAnchorTrapPattern is a 400-line old_string whose first and last
// lines are those of blockAnchorTrap and whose middle is 398 other lines.
func blockAnchorTrapPattern() string {
	var o strings.Builder
	o.WriteString("{\n")
	for i := range 398 {
		fmt.Fprintf(&o, "\tqueue%d.flush(%d)\n", i, i%5)
	}
	o.WriteString("\tz := compute(alpha, beta, gamma, delta, 1) // one step }")
	return o.String()
}

func TestReplaceLimits(t *testing.T) {
	t.Parallel()
	bigFile := similarLines("x", 20000, 7)
	tests := []struct {
		name    string
		content string
		old     string
		want    []string // substrings of the error
	}{
		{
			name:    "old_string over the line limit",
			content: bigFile,
			old:     similarLines("y", 2000, 5),
			want:    []string{"Could not find a match for old_string", "old_string is 2001 lines", "limited to old_string of 400 lines and 32 KiB", "Use a smaller unique snippet", "V4A patch (mode='patch')"},
		},
		{
			name:    "old_string over the byte limit",
			content: "a\nb\n",
			old:     "q" + strings.Repeat("z", 40<<10) + "\nr",
			want:    []string{"old_string is 2 lines (40.0 KiB)", "limited to"},
		},
		{
			name:    "file over the byte limit",
			content: strings.Repeat("0123456789abcdef\n", 200_000),
			old:     "foo\nbar",
			want:    []string{"the file is 3.2 MiB", "files of 2 MiB"},
		},
		{
			name:    "too many block_anchor places",
			content: blockAnchorTrap(1240),
			old:     blockAnchorTrapPattern(),
			want:    []string{"421 places in the file start and end with the first and last lines of old_string", "block_anchor matching is limited to 262144 characters", "V4A patch"},
		},
		{
			name:    "too many line pairs",
			content: bigFile,
			old:     similarLines("y", 150, 5),
			want:    []string{"old_string is 151 lines and the file 20001 lines (3020151 line pairs)", "500000 line pairs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Replace(context.Background(), tt.content, tt.old, "new", false)
			var pe *Error
			if !errors.As(err, &pe) || !pe.NotFound {
				t.Fatalf("Replace = %+v, %v; want a not-found *Error", got.Strategy, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(pe.Msg, w) {
					t.Errorf("Replace error %q lacks %q", pe.Msg, w)
				}
			}
			if pe.Hint != "" {
				t.Errorf("Replace error has a hint of %d bytes; over the limits it should have none", len(pe.Hint))
			}
		})
	}
}

// TestReplaceUnderLimitsUnchanged checks that an input under the limits
// still gets the similarity strategies and no limit note.
func TestReplaceUnderLimitsUnchanged(t *testing.T) {
	t.Parallel()
	content := "func a() {\n\tx := 1\n\ty := 2\n}\n"
	got, err := Replace(context.Background(), content, "func a() {\n\tx := 10\n\ty := 2\n}", "func a() {}", false)
	if err != nil || got.Strategy != strategyBlockAnchor {
		t.Fatalf("Replace = %+v, %v; want a block_anchor match", got, err)
	}
	_, err = Replace(context.Background(), content, "nothing\nlike\nthis", "x", false)
	var pe *Error
	if !errors.As(err, &pe) || pe.Msg != msgNotFound {
		t.Fatalf("Replace(miss) error = %v; want exactly %q", err, msgNotFound)
	}
}

// TestReplaceCheapStrategiesOverLimits checks that the linear
// strategies still match an old_string far over the limits.
func TestReplaceCheapStrategiesOverLimits(t *testing.T) {
	t.Parallel()
	content := similarLines("x", 20000, 7)
	lines := strings.SplitAfter(content, "\n")
	exact := strings.Join(lines[5000:6000], "")
	trimmed := strings.ReplaceAll(exact, "\t", "    ")
	for _, tt := range []struct {
		name, old, strategy string
	}{
		{"exact", exact, strategyExact},
		{"line_trimmed", strings.TrimSuffix(trimmed, "\n"), strategyLineTrimmed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if similarityLimit(content, tt.old) == "" {
				t.Fatalf("the input is under the limits; the test needs it over")
			}
			got, err := Replace(context.Background(), content, tt.old, "\treplaced := true\n", false)
			if err != nil {
				t.Fatalf("Replace(%s) error: %v", tt.name, err)
			}
			if got.Strategy != tt.strategy || got.Count != 1 || !strings.Contains(got.Content, "replaced := true") {
				t.Errorf("Replace(%s) = strategy %s, count %d; want %s, 1, replaced", tt.name, got.Strategy, got.Count, tt.strategy)
			}
		})
	}
}

// tripCtx is a context that reports Canceled from its trip-th call to Err
// on: a cancel that arrives while Replace is running, at a point that
// does not depend on timing.
type tripCtx struct {
	context.Context
	calls atomic.Int64
	trip  int64
}

func (c *tripCtx) Err() error {
	if c.calls.Add(1) >= c.trip {
		return context.Canceled
	}
	return nil
}

func TestReplaceCancel(t *testing.T) {
	t.Parallel()
	// Under the limits (96 × 5 001 line pairs), nowhere exact, and so alike
	// that context_aware compares every window for long.
	content := similarLines("x", 5000, 7)
	old := similarLines("y", 95, 5)
	if similarityLimit(content, old) != "" {
		t.Fatalf("the input is over the limits; the test needs it under")
	}
	t.Run("cancelled before", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := Replace(ctx, content, old, "new", false)
		if !errors.Is(err, context.Canceled) || got.Content != "" {
			t.Fatalf("Replace(cancelled ctx) = %q, %v; want no content and context.Canceled", got.Content, err)
		}
	})
	for _, trip := range []int64{
		10,   // during the linear strategies
		200,  // inside block_anchor or context_aware
		2000, // deep in context_aware
	} {
		t.Run(fmt.Sprintf("cancelled at look %d", trip), func(t *testing.T) {
			t.Parallel()
			ctx := &tripCtx{Context: context.Background(), trip: trip}
			got, err := Replace(ctx, content, old, "new", false)
			if !errors.Is(err, context.Canceled) || got.Content != "" {
				t.Fatalf("Replace = %q, %v; want no content and context.Canceled", got.Content, err)
			}
			// After the cancel, the strategy in progress stops at its next
			// look and Replace looks once more to return: no more work.
			if n := ctx.calls.Load(); n > trip+2 {
				t.Errorf("Replace looked at ctx %d times after the cancel; want it to stop at once", n-trip)
			}
		})
	}
}

// naiveOccurrences is lineOccurrences by comparing every window.
func naiveOccurrences(text, pat []string) []int {
	var out []int
	for i := 0; len(pat) > 0 && i+len(pat) <= len(text); i++ {
		if slices.Equal(text[i:i+len(pat)], pat) {
			out = append(out, i)
		}
	}
	return out
}

func TestLineOccurrences(t *testing.T) {
	t.Parallel()
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	for _, tt := range []struct{ text, pat string }{
		{"a,a,a,a", "a,a"},
		{"a,b,a,b,a,b", "a,b,a"},
		{"a,a,b,a,a,a,b", "a,a,b"},
		{"x,y,z", "y"},
		{"x,y", "x,y,z"},
		{"a,b,c", ""},
		{"a,b,a,a,b,a,b,a,a,b", "a,b,a,a,b"},
	} {
		text, pat := split(tt.text), split(tt.pat)
		got := lineOccurrences(context.Background(), text, pat)
		if want := naiveOccurrences(text, pat); !slices.Equal(got, want) {
			t.Errorf("lineOccurrences(%q, %q) = %v, want %v", tt.text, tt.pat, got, want)
		}
	}
}

// FuzzLineOccurrences checks lineOccurrences against the window-by-window
// scan on texts over a small alphabet, where borders and overlaps abound.
func FuzzLineOccurrences(f *testing.F) {
	f.Add([]byte("aaaa"), []byte("aa"))
	f.Add([]byte("abaababaab"), []byte("abaab"))
	f.Fuzz(func(t *testing.T, text, pat []byte) {
		lines := func(b []byte) []string {
			out := make([]string, len(b))
			for i, c := range b {
				out[i] = string(rune('a' + c%3))
			}
			return out
		}
		tl, pl := lines(text), lines(pat)
		got := lineOccurrences(context.Background(), tl, pl)
		if want := naiveOccurrences(tl, pl); !slices.Equal(got, want) {
			t.Fatalf("lineOccurrences(%v, %v) = %v, want %v", tl, pl, got, want)
		}
	})
}
