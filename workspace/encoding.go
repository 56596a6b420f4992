package workspace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// The text encodings the file tools read and write. A file is decoded to
// UTF-8 text for the model and the diff, and the edited text is encoded back
// into the file's own encoding, so that every byte an edit does not touch is
// written back unchanged.

// EncodingKind is the family of a file's text encoding.
type EncodingKind int

// The encodings [DetectEncoding] recognises.
const (
	// UTF8 is UTF-8, with or without a byte order mark.
	UTF8 EncodingKind = iota
	// UTF16LE is little-endian UTF-16 that starts with a byte order mark.
	UTF16LE
	// UTF16BE is big-endian UTF-16 that starts with a byte order mark.
	UTF16BE
	// Legacy is any other content, read as an 8-bit encoding in which
	// every byte is one character: windows-1252 (of which Latin-1 is a
	// subset for every printable character). Each of the 256 byte values
	// decodes to its own character and encodes back to the same byte.
	Legacy
)

// Byte order marks.
const (
	bomUTF16LE = "\xff\xfe"
	bomUTF16BE = "\xfe\xff"
)

// Encoding is the text encoding of one file's content, as [DetectEncoding]
// found it. The zero value is UTF-8 without a byte order mark.
type Encoding struct {
	Kind EncodingKind
	// BOM reports a UTF-8 byte order mark; UTF-16 always has one and a
	// legacy file never does (its first bytes are ordinary characters).
	BOM bool
}

// ErrBinary marks content the file tools refuse to treat as text (see
// [IsBinary]).
var ErrBinary = errors.New("binary file")

// ErrNotReversible marks content whose decoded text would not encode back
// to the same bytes, such as UTF-16 with an odd length or an unpaired
// surrogate: editing it would change bytes the edit did not touch.
var ErrNotReversible = errors.New("content cannot be decoded and re-encoded byte for byte")

// UnrepresentableError reports text that the file's encoding cannot hold:
// writing it would replace characters. It is returned by [Encoding.Encode].
type UnrepresentableError struct {
	Encoding Encoding
	// Rune is the first character that cannot be encoded, or
	// utf8.RuneError for invalid UTF-8.
	Rune rune
	// Line is the 1-based line of the text where Rune is.
	Line int
}

func (e *UnrepresentableError) Error() string {
	if e.Rune == utf8.RuneError {
		return fmt.Sprintf("line %d of the new text is not valid UTF-8 and cannot be written in %s", e.Line, e.Encoding)
	}
	return fmt.Sprintf("the character %q (U+%04X) on line %d cannot be written in %s, the file's encoding",
		string(e.Rune), e.Rune, e.Line, e.Encoding)
}

// DetectEncoding returns the encoding of content, a whole file: UTF-16 LE
// or BE when it starts with that byte order mark, UTF-8 (noting a byte order
// mark) when it is valid UTF-8, and [Legacy] otherwise. Content that merely
// starts with a UTF-8 BOM but is not valid UTF-8 after it is Legacy.
func DetectEncoding(content []byte) Encoding {
	switch {
	case bytes.HasPrefix(content, []byte(bomUTF16LE)):
		return Encoding{Kind: UTF16LE}
	case bytes.HasPrefix(content, []byte(bomUTF16BE)):
		return Encoding{Kind: UTF16BE}
	case utf8.Valid(content):
		return Encoding{Kind: UTF8, BOM: bytes.HasPrefix(content, []byte(utf8BOM))}
	}
	return Encoding{Kind: Legacy}
}

// DetectEncodingHead is [DetectEncoding] for the first bytes of a file too
// large to hold: a UTF-8 sequence cut off at the end of head does not make
// it Legacy. Invalid UTF-8 further on is not seen.
func DetectEncodingHead(head []byte) Encoding {
	return DetectEncoding(cutIncompleteRune(head))
}

// cutIncompleteRune returns head, the first bytes of a longer content,
// without a UTF-8 sequence cut off at its end (UTF-16 content, which starts
// with its BOM, is returned as it is).
func cutIncompleteRune(head []byte) []byte {
	if bytes.HasPrefix(head, []byte(bomUTF16LE)) || bytes.HasPrefix(head, []byte(bomUTF16BE)) {
		return head
	}
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				return head[:i]
			}
			break
		}
	}
	return head
}

// IsUTF8 reports plain UTF-8 without a byte order mark, the encoding that
// needs no note to the model.
func (e Encoding) IsUTF8() bool { return e.Kind == UTF8 && !e.BOM }

// String names the encoding for people and models: "UTF-8",
// "UTF-8 with BOM", "UTF-16LE with BOM", "UTF-16BE with BOM" or
// "windows-1252 (Latin-1)".
func (e Encoding) String() string {
	switch e.Kind {
	case UTF16LE:
		return "UTF-16LE with BOM"
	case UTF16BE:
		return "UTF-16BE with BOM"
	case Legacy:
		return "windows-1252 (Latin-1)"
	}
	if e.BOM {
		return "UTF-8 with BOM"
	}
	return "UTF-8"
}

// Note is the sentence read_file adds for a file that is not UTF-8, or ""
// for UTF-8 (with or without a BOM, which edits keep).
func (e Encoding) Note() string {
	switch {
	case e.Kind == UTF8:
		return ""
	case e.Kind == Legacy:
		return "This file is not valid UTF-8: it is shown decoded as windows-1252 (Latin-1), one character per byte. " +
			"Edits keep that encoding and every byte they do not change; new text must use only characters " +
			"windows-1252 can hold (no emoji, CJK or other scripts)."
	}
	return "This file is encoded as " + e.String() + "; it is shown as text and edits keep that encoding."
}

// Decode returns content, in encoding e, as UTF-8 text without its byte
// order mark. It fails with [ErrNotReversible] when [Encoding.Encode] of the
// result would not give back content exactly.
func (e Encoding) Decode(content []byte) (string, error) {
	var text string
	switch e.Kind {
	case UTF8:
		if !utf8.Valid(content) {
			return "", fmt.Errorf("decode %s: %w", e, ErrNotReversible)
		}
		if e.BOM {
			content = bytes.TrimPrefix(content, []byte(utf8BOM))
		}
		return string(content), nil
	case Legacy:
		var b strings.Builder
		b.Grow(len(content) + len(content)/8)
		for _, c := range content {
			b.WriteRune(legacyDecode(c))
		}
		text = b.String()
	case UTF16LE, UTF16BE:
		body := content[min(2, len(content)):]
		if len(body)%2 != 0 {
			return "", fmt.Errorf("decode %s: odd number of bytes: %w", e, ErrNotReversible)
		}
		units := make([]uint16, len(body)/2)
		order := e.byteOrder()
		for i := range units {
			units[i] = order.Uint16(body[2*i:])
		}
		text = string(utf16.Decode(units))
	}
	back, err := e.Encode(text)
	if err != nil || !bytes.Equal(back, content) {
		return "", fmt.Errorf("decode %s: %w", e, ErrNotReversible)
	}
	return text, nil
}

// Encode returns text, UTF-8 without a byte order mark, in encoding e with
// e's byte order mark. It fails with an [*UnrepresentableError] when text
// holds a character e cannot encode (or, for a non-UTF-8 encoding, invalid
// UTF-8); UTF-8 text is passed through as it is.
func (e Encoding) Encode(text string) ([]byte, error) {
	switch e.Kind {
	case UTF8:
		if e.BOM {
			return append([]byte(utf8BOM), text...), nil
		}
		return []byte(text), nil
	case Legacy:
		out := make([]byte, 0, len(text))
		for i, r := range text {
			b, ok := legacyEncode(r)
			if !ok {
				return nil, &UnrepresentableError{Encoding: e, Rune: r, Line: 1 + strings.Count(text[:i], "\n")}
			}
			out = append(out, b)
		}
		return out, nil
	}
	order := e.byteOrder()
	out := make([]byte, 2, 2+2*len(text))
	order.PutUint16(out, 0xfeff)
	for i, r := range text {
		if r == utf8.RuneError && !strings.HasPrefix(text[i:], "\ufffd") {
			return nil, &UnrepresentableError{Encoding: e, Rune: r, Line: 1 + strings.Count(text[:i], "\n")}
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = order.AppendUint16(order.AppendUint16(out, uint16(r1)), uint16(r2))
			continue
		}
		out = order.AppendUint16(out, uint16(r))
	}
	return out, nil
}

// legacyDecode is windows-1252 as the WHATWG Encoding Standard defines it:
// the five bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
// 0x9D), which x/text's table turns into U+FFFD, decode to the C1 control
// of the same number, so that every byte has its own character.
func legacyDecode(c byte) rune {
	if r := charmap.Windows1252.DecodeByte(c); r != utf8.RuneError {
		return r
	}
	return rune(c)
}

// legacyEncode is the inverse of legacyDecode; ok is false for a character
// windows-1252 cannot hold.
func legacyEncode(r rune) (byte, bool) {
	switch r {
	case 0x81, 0x8d, 0x8f, 0x90, 0x9d:
		return byte(r), true
	case utf8.RuneError:
		return 0, false
	}
	return charmap.Windows1252.EncodeRune(r)
}

// byteOrder is the byte order of a UTF-16 encoding.
func (e Encoding) byteOrder() interface {
	binary.ByteOrder
	binary.AppendByteOrder
} {
	if e.Kind == UTF16BE {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// NewReader returns a reader of r's bytes, in encoding e, decoded to UTF-8,
// for streaming a file too large to hold. A UTF-16 byte order mark is
// dropped; a UTF-8 one is kept (read_file drops it from line 1).
func (e Encoding) NewReader(r io.Reader) io.Reader {
	switch e.Kind {
	case Legacy:
		// x/text's decoder shows the five undefined bytes as U+FFFD;
		// this reader is for display only.
		return charmap.Windows1252.NewDecoder().Reader(r)
	case UTF16LE:
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Reader(r)
	case UTF16BE:
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Reader(r)
	}
	return r
}

// IsBinary reports whether the file named name, whose content starts with
// head, is binary for the file tools, as read_file decides: one of hermes's
// binary extensions ([IsBinaryExt], images included) or content that
// [LooksBinary]. read_file refuses such a file and the editing tools refuse
// to change it.
func IsBinary(name string, head []byte) bool {
	return IsBinaryExt(name) || LooksBinary(head)
}

// FileText is a file's content decoded for editing: its text and the
// encoding to write it back in.
type FileText struct {
	// Text is the content as UTF-8 without a byte order mark.
	Text string
	// Encoding is the file's encoding.
	Encoding Encoding
}

// DecodeFile decodes content, the whole current content of the file named
// name, for editing. It fails with an error wrapping [ErrBinary] for a file
// [IsBinary] refuses, and with one wrapping [ErrNotReversible] for content
// that would not encode back byte for byte.
func DecodeFile(name string, content []byte) (FileText, error) {
	if IsBinary(name, content) {
		return FileText{}, fmt.Errorf("%s: %w", name, ErrBinary)
	}
	enc := DetectEncoding(content)
	text, err := enc.Decode(content)
	if err != nil {
		return FileText{}, err
	}
	return FileText{Text: text, Encoding: enc}, nil
}
