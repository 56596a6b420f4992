package lint

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// ErrOutOfRange is returned by the Mapper methods below for an offset or
// position that lies outside the content.
var ErrOutOfRange = errors.New("lint: position out of range")

// The random-access conversions of a Mapper: the product converts
// diagnostics in order with a rangeCursor; tests use these as its oracle.

// LineCount returns the number of lines; it is at least 1 (empty content has
// one empty line).
func (m *Mapper) LineCount() int { return len(m.lineStarts) }

// Position returns the LSP position of byte offset off, 0 <= off <= len(content).
// An offset inside a multi-byte rune maps to the start of that rune; an offset
// inside a line break (the "\n" of "\r\n") maps to the end of the line's text.
func (m *Mapper) Position(off int) (protocol.Position, error) {
	if off < 0 || off > len(m.content) {
		return protocol.Position{}, fmt.Errorf("offset %d of %d bytes: %w", off, len(m.content), ErrOutOfRange)
	}
	return m.position(off), nil
}

// position is Position for an offset already known to be in range.
func (m *Mapper) position(off int) protocol.Position {
	line := m.lineOf(off)
	pos, _ := m.positionFrom(line, m.lineStarts[line], 0, min(off, m.lineEnd(line)))
	return pos
}

// Offset returns the byte offset of an LSP position. As LSP specifies, a
// character past the end of the line means the end of the line; a character
// in the middle of a surrogate pair means the start of that rune. A line past
// the last one is an error.
func (m *Mapper) Offset(p protocol.Position) (int, error) {
	if int64(p.Line) >= int64(len(m.lineStarts)) {
		return 0, fmt.Errorf("line %d of %d: %w", p.Line, len(m.lineStarts), ErrOutOfRange)
	}
	line := int(p.Line)
	end := m.lineEnd(line)
	var units uint32
	i := m.lineStarts[line]
	for i < end && units < p.Character {
		r, size := utf8.DecodeRune(m.content[i:end])
		n := utf16Len(r)
		if units+n > p.Character {
			break
		}
		units += n
		i += size
	}
	return i, nil
}

// Range returns the LSP range of the bytes [start, end).
func (m *Mapper) Range(start, end int) (protocol.Range, error) {
	if start > end {
		return protocol.Range{}, fmt.Errorf("range %d-%d is reversed: %w", start, end, ErrOutOfRange)
	}
	s, err := m.Position(start)
	if err != nil {
		return protocol.Range{}, err
	}
	e, err := m.Position(end)
	if err != nil {
		return protocol.Range{}, err
	}
	return protocol.Range{Start: s, End: e}, nil
}
