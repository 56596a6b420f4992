package terminal

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxChars is hermes's tool_output.max_bytes: the characters of
// output a foreground command's result keeps.
const DefaultMaxChars = 50_000

// headShare is the part of the kept characters taken from the start of the
// output (error messages often come first); the rest is its end.
const headShare = 0.4

// truncationMarker is hermes's notice between the head and the tail.
const truncationMarker = "\n\n... [OUTPUT TRUNCATED - %d chars omitted out of %d total] ...\n\n"

// Capture keeps the output of a command in bounded memory: all of it while
// it has at most max characters, else its first 40 % and last 60 % of max
// characters, whatever the command prints. Characters are counted as UTF-8
// code points. A Capture is not safe for concurrent use.
type Capture struct {
	max, headMax, tailMax int
	total                 int    // characters written
	full                  []byte // everything, while total <= max
	over                  bool
	head                  []byte      // the first headMax characters, once over
	tail                  *tailBuffer // the last characters, once over
}

// NewCapture returns a Capture keeping max characters (0: DefaultMaxChars).
func NewCapture(max int) *Capture {
	if max <= 0 {
		max = DefaultMaxChars
	}
	head := int(float64(max) * headShare)
	return &Capture{max: max, headMax: head, tailMax: max - head}
}

// Write records p; it never fails.
func (c *Capture) Write(p []byte) (int, error) {
	c.total += countChars(p)
	if c.over {
		c.tail.Write(p)
		return len(p), nil
	}
	c.full = append(c.full, p...)
	if c.total > c.max {
		c.over = true
		c.head = append([]byte(nil), c.full[:prefixBytes(c.full, c.headMax)]...)
		c.tail = newTailBuffer(c.tailMax)
		c.tail.Write(c.full)
		c.full = nil
	}
	return len(p), nil
}

// Total returns the number of characters written.
func (c *Capture) Total() int { return c.total }

// Truncated reports whether characters were left out.
func (c *Capture) Truncated() bool { return c.over }

// String returns the output kept: all of it, or the head, hermes's
// truncation marker and the tail. Invalid UTF-8 becomes U+FFFD.
func (c *Capture) String() string {
	if !c.over {
		return strings.ToValidUTF8(string(c.full), "\uFFFD")
	}
	omitted := c.total - c.headMax - c.tailMax
	return strings.ToValidUTF8(string(c.head), "\uFFFD") + fmt.Sprintf(truncationMarker, omitted, c.total) + c.tail.String()
}

// Truncate returns s cut as a Capture of max characters would keep it
// (hermes's head and tail with its marker); s itself when it fits.
func Truncate(s string, max int) string {
	if max <= 0 {
		max = DefaultMaxChars
	}
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	c := NewCapture(max)
	c.Write([]byte(s))
	return c.String()
}

// countChars counts the code points of UTF-8 text: the bytes that do not
// continue a sequence (an invalid byte counts as one).
func countChars(p []byte) int {
	n := 0
	for _, b := range p {
		if b&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// prefixBytes returns the length of the bytes of p holding its first n
// characters.
func prefixBytes(p []byte, n int) int {
	seen := 0
	for i, b := range p {
		if b&0xC0 != 0x80 {
			if seen == n {
				return i
			}
			seen++
		}
	}
	return len(p)
}

// tailBuffer keeps the last max characters written to it, in memory
// proportional to max.
type tailBuffer struct {
	max   int
	buf   []byte
	chars int
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

// Write appends p, dropping the oldest characters beyond max (in batches).
func (t *tailBuffer) Write(p []byte) (int, error) {
	if n := countChars(p); n > t.max {
		// Only the end of p can survive.
		skip := n - t.max
		p = p[prefixBytes(p, skip):]
		t.buf, t.chars = t.buf[:0], 0
	}
	t.buf = append(t.buf, p...)
	t.chars += countChars(p)
	if t.chars > t.max+t.max/4 {
		t.trim()
	}
	return len(p), nil
}

// trim drops the characters beyond max.
func (t *tailBuffer) trim() {
	if t.chars <= t.max {
		return
	}
	cut := prefixBytes(t.buf, t.chars-t.max)
	n := copy(t.buf, t.buf[cut:])
	t.buf = t.buf[:n]
	t.chars = t.max
}

// Chars returns the number of characters kept.
func (t *tailBuffer) Chars() int {
	t.trim()
	return t.chars
}

// String returns the last max characters written.
func (t *tailBuffer) String() string {
	t.trim()
	return strings.ToValidUTF8(string(t.buf), "\uFFFD")
}
