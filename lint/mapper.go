package lint

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Mapper converts byte offsets in one content to LSP positions and back. It
// is the only place in hermes-acp's lint that counts UTF-16 code units.
//
// Lines end at "\n", "\r\n" or a lone "\r", as LSP defines them. A character
// is a UTF-16 code unit: a rune outside the Basic Multilingual Plane counts
// two, and each byte of an invalid UTF-8 sequence counts one (it decodes to
// U+FFFD). A Mapper is immutable after [NewMapper] and safe for concurrent use;
// it keeps a reference to the content, which the caller must not modify.
type Mapper struct {
	content []byte
	// lineStarts[i] is the byte offset where line i starts; lineStarts[0] is 0.
	// When the content ends with a line break, the last entry is len(content)
	// (the empty last line).
	lineStarts []int
}

// NewMapper returns a Mapper for content. It scans the content once for line
// breaks.
func NewMapper(content []byte) *Mapper {
	starts := make([]int, 1, bytes.Count(content, []byte{'\n'})+2)
	if bytes.IndexByte(content, '\r') < 0 {
		// The common case: only "\n" breaks lines.
		return &Mapper{content: content, lineStarts: appendNewlines(starts, content, 1)}
	}
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(content) && content[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return &Mapper{content: content, lineStarts: starts}
}

// lineOf returns the line holding byte offset off (0 <= off <= len).
func (m *Mapper) lineOf(off int) int {
	// The first line start greater than off is on the next line.
	return sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > off }) - 1
}

// lineEnd returns the offset where line's text ends, before its line break.
func (m *Mapper) lineEnd(line int) int {
	if line+1 >= len(m.lineStarts) {
		return len(m.content)
	}
	end := m.lineStarts[line+1]
	if end > 0 && m.content[end-1] == '\n' {
		end--
	}
	if end > m.lineStarts[line] && m.content[end-1] == '\r' {
		end--
	}
	return end
}

// positionFrom returns the position of off on line (off at most the line's
// end), counting UTF-16 units from offset from, a rune start on the line at
// most off, up to which units have been counted; and the offset where it
// stopped counting: off, or the start of the rune that holds off.
func (m *Mapper) positionFrom(line, from int, units uint32, off int) (protocol.Position, int) {
	i := from
	for i < off {
		c := m.content[i]
		if c < utf8.RuneSelf {
			units++
			i++
			continue
		}
		r, size := utf8.DecodeRune(m.content[i:])
		if i+size > off {
			break // off is inside this rune: round down to its start
		}
		units += utf16Len(r)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: units}, i
}

// ClampedRange returns the LSP range of the bytes [start, end) of the
// content, clamped into it and ordered: 0-based lines, UTF-16 characters, an offset
// inside a rune rounded down to its start. Other packages that report
// problems in byte offsets (the Go type check) use it, so that positions
// are counted in one place.
func (m *Mapper) ClampedRange(start, end int) protocol.Range {
	return newRangeCursor(m).clampedRange(start, end)
}

// rangeCursor maps the ranges of one content's findings, in order of their
// starts, counting each line's characters once rather than once per finding
// (a minified line can carry thousands of them): starts and ends each go on
// from where the last one stopped. It is not safe for concurrent use.
type rangeCursor struct {
	m          *Mapper
	start, end lineCursor
}

// lineCursor remembers where a mapping stopped counting: its line (-1
// before the first), offset and position.
type lineCursor struct {
	line, at int
	pos      protocol.Position
}

// newRangeCursor returns a cursor over m's content.
func newRangeCursor(m *Mapper) *rangeCursor {
	return &rangeCursor{m: m, start: lineCursor{line: -1}, end: lineCursor{line: -1}}
}

// clampedRange is [Mapper.Range] with start and end first clamped into the
// content and ordered; the linters use it so that no diagnostic can be out
// of range.
func (c *rangeCursor) clampedRange(start, end int) protocol.Range {
	n := len(c.m.content)
	start = max(0, min(start, n))
	end = max(start, min(end, n))
	return protocol.Range{Start: c.m.positionAt(&c.start, start), End: c.m.positionAt(&c.end, end)}
}

// positionAt maps off, going on from where lc stopped when that is on the
// same line and not after off, and leaves lc where this mapping stopped.
func (m *Mapper) positionAt(lc *lineCursor, off int) protocol.Position {
	line := m.lineOf(off)
	off = min(off, m.lineEnd(line))
	from, units := m.lineStarts[line], uint32(0)
	if line == lc.line && off >= lc.at {
		from, units = lc.at, lc.pos.Character
	}
	lc.pos, lc.at = m.positionFrom(line, from, units, off)
	lc.line = line
	return lc.pos
}

// appendNewlines appends to dst the offset of every "\n" in content, plus
// add, in order. It tests eight bytes at a time: lines are short, so one
// bytes.IndexByte call per line would cost more.
func appendNewlines(dst []int, content []byte, add int) []int {
	const ones, low7 = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	i := 0
	for ; i+8 <= len(content); i += 8 {
		w := binary.LittleEndian.Uint64(content[i:]) ^ ('\n' * ones) // "\n" bytes become 0
		// The high bit of each byte of z is set exactly when the byte of w
		// is 0 (no carry crosses bytes).
		z := ^((w&low7 + low7) | w | low7)
		for ; z != 0; z &= z - 1 {
			dst = append(dst, i+bits.TrailingZeros64(z)/8+add)
		}
	}
	for ; i < len(content); i++ {
		if content[i] == '\n' {
			dst = append(dst, i+add)
		}
	}
	return dst
}

// utf16Len returns the number of UTF-16 code units that encode r.
func utf16Len(r rune) uint32 {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
