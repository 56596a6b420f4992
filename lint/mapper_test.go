package lint

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func TestMapperPosition(t *testing.T) {
	t.Parallel()
	pos := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	for _, tc := range []struct {
		name    string
		content string
		off     int
		want    protocol.Position
	}{
		{"start", "abc", 0, pos(0, 0)},
		{"ascii", "abc", 2, pos(0, 2)},
		{"end without newline", "abc", 3, pos(0, 3)},
		{"empty", "", 0, pos(0, 0)},
		{"second line", "ab\ncd", 4, pos(1, 1)},
		{"at newline", "ab\ncd", 2, pos(0, 2)},
		{"after final newline", "ab\n", 3, pos(1, 0)},
		{"crlf second line", "ab\r\ncd", 5, pos(1, 1)},
		{"crlf at cr", "ab\r\ncd", 2, pos(0, 2)},
		{"crlf inside break", "ab\r\ncd", 3, pos(0, 2)},
		{"lone cr", "ab\rcd", 4, pos(1, 1)},
		{"cjk is one unit, three bytes", "日本x", 6, pos(0, 2)},
		{"emoji is two units, four bytes", "😀x", 4, pos(0, 2)},
		{"inside a rune rounds down", "日本", 4, pos(0, 1)},
		{"invalid byte is one unit", "\xffx", 1, pos(0, 1)},
		{"encoded U+FFFD is one unit", "\uFFFDx", 3, pos(0, 1)},
		{"mixed line", "a😀日\nb😀c", 14, pos(1, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewMapper([]byte(tc.content)).Position(tc.off)
			if err != nil || got != tc.want {
				t.Errorf("Position(%q, %d) = %v, %v; want %v", tc.content, tc.off, got, err, tc.want)
			}
		})
	}
}

func TestMapperOffset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		content    string
		line, char uint32
		want       int
	}{
		{"start", "abc", 0, 0, 0},
		{"second line", "ab\ncd", 1, 1, 4},
		{"past line end clamps (LSP)", "ab\ncd", 0, 9, 2},
		{"past crlf line end clamps", "ab\r\ncd", 0, 9, 2},
		{"emoji", "😀x", 0, 2, 4},
		{"inside surrogate pair rounds down", "😀x", 0, 1, 0},
		{"empty last line", "ab\n", 1, 0, 3},
		{"lone cr", "ab\rcd", 1, 2, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := protocol.Position{Line: tc.line, Character: tc.char}
			got, err := NewMapper([]byte(tc.content)).Offset(p)
			if err != nil || got != tc.want {
				t.Errorf("Offset(%q, %v) = %d, %v; want %d", tc.content, p, got, err, tc.want)
			}
		})
	}
}

func TestMapperErrors(t *testing.T) {
	t.Parallel()
	m := NewMapper([]byte("ab\ncd"))
	if _, err := m.Position(-1); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Position(-1) error = %v, want ErrOutOfRange", err)
	}
	if _, err := m.Position(6); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Position(6) error = %v, want ErrOutOfRange", err)
	}
	if _, err := m.Offset(protocol.Position{Line: 2}); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Offset(line 2) error = %v, want ErrOutOfRange", err)
	}
	if _, err := m.Range(3, 1); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Range(3, 1) error = %v, want ErrOutOfRange", err)
	}
	r, err := m.Range(1, 4)
	want := protocol.Range{Start: protocol.Position{Line: 0, Character: 1}, End: protocol.Position{Line: 1, Character: 1}}
	if err != nil || r != want {
		t.Errorf("Range(1, 4) = %v, %v; want %v", r, err, want)
	}
	if got := m.LineCount(); got != 2 {
		t.Errorf("LineCount() = %d, want 2", got)
	}
}

// FuzzMapper checks that every offset maps to a position inside the content
// and back: exactly, unless the offset is inside a rune or inside a "\r\n",
// where it comes back at the rune's start or the line's end.
func FuzzMapper(f *testing.F) {
	for _, s := range []string{"", "abc", "a\nb", "a\r\nb\rc\n", "日本😀\n\xff\xfe", "\r\n\r\n", "😀"} {
		f.Add([]byte(s))
	}
	for _, fx := range readFixtures(f) {
		f.Add(fx.after)
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		m := NewMapper(content)
		for off := 0; off <= len(content); off++ {
			p, err := m.Position(off)
			if err != nil {
				t.Fatalf("Position(%d) of %d bytes: %v", off, len(content), err)
			}
			back, err := m.Offset(p)
			if err != nil {
				t.Fatalf("Offset(Position(%d) = %v): %v", off, p, err)
			}
			if back > off {
				t.Fatalf("Offset(Position(%d) = %v) = %d, past the offset", off, p, back)
			}
			exact := !validRuneAt(content, off)
			inCRLF := off > 0 && off < len(content) && content[off-1] == '\r' && content[off] == '\n'
			if exact && !inCRLF && back != off {
				t.Fatalf("Offset(Position(%d) = %v) = %d, want %d", off, p, back, off)
			}
			if p2, _ := m.Position(back); p2 != p {
				t.Fatalf("Position(Offset(%v)) = %v, want %v", p, p2, p)
			}
		}
		assertCursorMatches(t, m, content)
	})
}

// assertCursorMatches checks that a rangeCursor maps ranges as the Mapper
// does, for ranges in the order of their starts whose ends go back and
// forth: [i, i+k) for every offset i and k cycling through 0..4, each range
// twice.
func assertCursorMatches(t *testing.T, m *Mapper, content []byte) {
	t.Helper()
	c := newRangeCursor(m)
	for i := 0; i <= len(content)+1; i++ {
		for range 2 {
			start, end := i, i+i%5
			want, err := m.Range(min(start, len(content)), min(end, len(content)))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.clampedRange(start, end); got != want {
				t.Fatalf("cursor range [%d, %d) of %q = %v, want %v", start, end, content, got, want)
			}
		}
	}
}

func TestRangeCursor(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "a\nb", "a\r\nb\rc\n", "日本😀\n\xff\xfe", "\r\n\r\n", "😀x😀", strings.Repeat("é\xffa😀", 50)} {
		assertCursorMatches(t, NewMapper([]byte(s)), []byte(s))
	}
}

// validRuneAt reports whether off is inside (not at the start of) a valid
// multi-byte rune; such offsets round down to the rune's start.
func validRuneAt(content []byte, off int) bool {
	for start := off - 1; start >= 0 && start >= off-3; start-- {
		if r, size := utf8.DecodeRune(content[start:]); !(r == utf8.RuneError && size == 1) && start+size > off {
			return true
		}
	}
	return false
}

func TestAppendNewlines(t *testing.T) {
	t.Parallel()
	// Newlines at every position of a 20-byte buffer, next to bytes that a
	// sloppy zero-byte test would take for "\n" (0x0b, 0x8a, 0x09, 0xff).
	for _, fill := range []byte{'a', 0x0b, 0x8a, 0x09, 0xff, 0x00} {
		for n := range 21 {
			for _, pos := range [][]int{{}, {0}, {n - 1}, {0, 7, 8, 9, 15, 16, 19}, {3, 4}} {
				content := bytes.Repeat([]byte{fill}, n)
				var want []int
				for _, p := range pos {
					if p >= 0 && p < n && content[p] != '\n' {
						content[p] = '\n'
					}
				}
				for i, c := range content {
					if c == '\n' {
						want = append(want, i+2)
					}
				}
				if got := appendNewlines(nil, content, 2); !slices.Equal(got, want) {
					t.Errorf("appendNewlines(%q, 2) = %v, want %v", content, got, want)
				}
			}
		}
	}
}
