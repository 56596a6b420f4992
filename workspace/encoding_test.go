package workspace

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// utf16le and utf16be encode s (ASCII and BMP only) with a byte order mark.
func utf16le(s string) string {
	out := []byte{0xff, 0xfe}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return string(out)
}

func utf16be(s string) string {
	out := []byte{0xfe, 0xff}
	for _, r := range s {
		out = append(out, byte(r>>8), byte(r))
	}
	return string(out)
}

// pngBytes is a real 16×16 PNG image.
func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 16, 16))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDetectAndDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		content string
		want    Encoding
		text    string
	}{
		{"ascii", "hello\n", Encoding{Kind: UTF8}, "hello\n"},
		{"empty", "", Encoding{Kind: UTF8}, ""},
		{"utf-8", "café ü ß 日本\n", Encoding{Kind: UTF8}, "café ü ß 日本\n"},
		{"utf-8 bom", "\xef\xbb\xbfcafé\r\n", Encoding{Kind: UTF8, BOM: true}, "café\r\n"},
		{"utf-16le bom", utf16le("café\r\nß\n"), Encoding{Kind: UTF16LE}, "café\r\nß\n"},
		{"utf-16be bom", utf16be("café\nü"), Encoding{Kind: UTF16BE}, "café\nü"},
		{"latin-1", "caf\xe9 \xfc \xdf\n", Encoding{Kind: Legacy}, "café ü ß\n"},
		{"windows-1252 quotes and euro", "\x93hi\x94 \x80 5\n", Encoding{Kind: Legacy}, "“hi” € 5\n"},
		{"utf-8 bom then latin-1", "\xef\xbb\xbfcaf\xe9", Encoding{Kind: Legacy}, "ï»¿café"},
		{"utf-8 mixed with latin-1", "\xc3\xa9 and \xe9\n", Encoding{Kind: Legacy}, "Ã© and é\n"},
		{"windows-1252 undefined bytes", "\x81\x8d\x8f\x90\x9d", Encoding{Kind: Legacy}, "\u0081\u008d\u008f\u0090\u009d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			enc := DetectEncoding([]byte(tc.content))
			if enc != tc.want {
				t.Fatalf("DetectEncoding(%q) = %v, want %v", tc.content, enc, tc.want)
			}
			text, err := enc.Decode([]byte(tc.content))
			if err != nil || text != tc.text {
				t.Fatalf("Decode(%q) = %q, %v, want %q", tc.content, text, err, tc.text)
			}
			back, err := enc.Encode(text)
			if err != nil || !bytes.Equal(back, []byte(tc.content)) {
				t.Errorf("Encode(Decode(%q)) = %q, %v, want the same bytes", tc.content, back, err)
			}
			if (enc.Note() == "") != (enc.Kind == UTF8) {
				t.Errorf("Note() = %q for %v", enc.Note(), enc)
			}
		})
	}
}

// Every one of the 256 byte values survives a legacy round trip, so a
// non-UTF-8 file is never changed where an edit did not touch it.
func TestLegacyRoundTripsEveryByte(t *testing.T) {
	t.Parallel()
	all := make([]byte, 0, 256)
	for i := range 256 {
		all = append(all, byte(i))
	}
	enc := Encoding{Kind: Legacy}
	text, err := enc.Decode(all)
	if err != nil {
		t.Fatalf("Decode(all bytes): %v", err)
	}
	back, err := enc.Encode(text)
	if err != nil || !bytes.Equal(back, all) {
		t.Errorf("Encode(Decode(all bytes)) = %q, %v; want all 256 bytes back", back, err)
	}
}

func TestDecodeRefusesWhatCannotRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, content string }{
		{"utf-16 odd length", utf16le("ab") + "x"},
		{"utf-16 unpaired surrogate", "\xff\xfe\x00\xd8a\x00"},
	} {
		_, err := DetectEncoding([]byte(tc.content)).Decode([]byte(tc.content))
		if !errors.Is(err, ErrNotReversible) {
			t.Errorf("%s: Decode error = %v, want ErrNotReversible", tc.name, err)
		}
	}
}

func TestEncodeRefusesUnrepresentable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		enc      Encoding
		text     string
		wantRune rune
		wantLine int
	}{
		{Encoding{Kind: Legacy}, "café\nnaïve\nΩmega\n", 'Ω', 3},
		{Encoding{Kind: Legacy}, "ok\n🙂\n", '🙂', 2},
		{Encoding{Kind: Legacy}, "bad \xff byte", 0xfffd, 1},
	} {
		_, err := tc.enc.Encode(tc.text)
		var ue *UnrepresentableError
		if !errors.As(err, &ue) || ue.Rune != tc.wantRune || ue.Line != tc.wantLine {
			t.Errorf("Encode(%q) error = %v, want rune %q on line %d", tc.text, err, tc.wantRune, tc.wantLine)
		}
	}
	// UTF-16 holds every character, astral ones as surrogate pairs.
	enc := Encoding{Kind: UTF16LE}
	b, err := enc.Encode("a🙂")
	if err != nil {
		t.Fatal(err)
	}
	if text, err := enc.Decode(b); err != nil || text != "a🙂" {
		t.Errorf("UTF-16 round trip of an emoji = %q, %v", text, err)
	}
}

func TestIsBinary(t *testing.T) {
	t.Parallel()
	pngData := pngBytes(t)
	for _, tc := range []struct {
		name    string
		content []byte
		want    bool
	}{
		{"logo.png", []byte("not really a png"), true},
		{"logo", pngData, true},
		{"blob", append([]byte("ab"), make([]byte, 40)...), true},
		{"notes.txt", []byte("one NUL \x00 in text\n"), false},
		{"latin1.txt", []byte("caf\xe9\n"), false},
		{"wide.txt", []byte(utf16le("hello\r\nworld\r\n")), false},
		{"empty.txt", nil, false},
	} {
		if got := IsBinary(tc.name, tc.content); got != tc.want {
			t.Errorf("IsBinary(%q, %q) = %v, want %v", tc.name, tc.content[:min(len(tc.content), 12)], got, tc.want)
		}
	}
}

func TestDetectEncodingHead(t *testing.T) {
	t.Parallel()
	head := []byte("abc é")
	head = head[:len(head)-1] // cut inside é
	if got := DetectEncodingHead(head); got.Kind != UTF8 {
		t.Errorf("DetectEncodingHead(%q) = %v, want UTF-8", head, got)
	}
	if got := DetectEncodingHead([]byte("abc \xe9 more")); got.Kind != Legacy {
		t.Errorf("DetectEncodingHead(latin-1) = %v, want legacy", got)
	}
}

// WriteFile writes each kind of file so that the bytes the edit did not
// touch are identical, and refuses what it cannot preserve without writing.
func TestWriteFileKeepsEncoding(t *testing.T) {
	t.Parallel()
	pngData := pngBytes(t)
	for _, tc := range []struct {
		name     string
		file     string
		existing string
		text     string // the new text, UTF-8
		want     string // the bytes on disk afterwards
		wantErr  error
	}{
		{"utf-8", "a.txt", "café\n", "café\nnew\n", "café\nnew\n", nil},
		{"utf-8 bom", "a.txt", "\xef\xbb\xbfcafé\n", "café\nnew\n", "\xef\xbb\xbfcafé\nnew\n", nil},
		{"utf-16le", "a.txt", utf16le("café\r\nx\r\n"), "café\nx\nnew\n", utf16le("café\r\nx\r\nnew\r\n"), nil},
		{"utf-16be", "a.txt", utf16be("über\n"), "über\nΩ\n", utf16be("über\nΩ\n"), nil},
		{"latin-1", "a.txt", "caf\xe9\n\xfc\xdf\n", "café\nüß\nadded\n", "caf\xe9\n\xfc\xdf\nadded\n", nil},
		{"latin-1 new accented line", "a.txt", "caf\xe9\n", "café\nà bientôt\n", "caf\xe9\n\xe0 bient\xf4t\n", nil},
		{"crlf untouched lines", "a.txt", "a\r\nb\nc\r\n", "a\nb\nc\nd\n", "a\r\nb\nc\r\nd\r\n", nil},
		{"latin-1 refuses greek", "a.txt", "caf\xe9\n", "café\nΩ\n", "caf\xe9\n", new(UnrepresentableError)},
		{"latin-1 refuses emoji", "a.txt", "caf\xe9\n", "🙂\n", "caf\xe9\n", new(UnrepresentableError)},
		{"binary by content", "blob", "ab" + strings.Repeat("\x00", 40), "text\n", "ab" + strings.Repeat("\x00", 40), ErrBinary},
		{"binary png", "logo.png", string(pngData), "text\n", string(pngData), ErrBinary},
		{"broken utf-16", "a.txt", utf16le("ab") + "x", "ab\n", utf16le("ab") + "x", ErrNotReversible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			w := openWS(t, dir, nil, Options{})
			abs := filepath.Join(dir, tc.file)
			if err := os.WriteFile(abs, []byte(tc.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := w.Resolve(abs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.WriteFile(p, []byte(tc.text))
			switch want := tc.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("WriteFile: %v", err)
				}
			case *UnrepresentableError:
				if !errors.As(err, &want) {
					t.Fatalf("WriteFile error = %v, want an UnrepresentableError", err)
				}
			default:
				if !errors.Is(err, want) {
					t.Fatalf("WriteFile error = %v, want %v", err, want)
				}
			}
			got, _ := os.ReadFile(abs)
			if string(got) != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}

// A file above the read limit is judged by its first 4 KB; a UTF-8
// character cut at that boundary does not make it Latin-1.
func TestWriteFileLargeUTF8CutMidRune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := openWS(t, dir, nil, Options{MaxFileBytes: 64})
	abs := filepath.Join(dir, "big.txt")
	big := strings.Repeat("a", crlfSample-1) + strings.Repeat("é", 100) // é straddles byte 4096
	if err := os.WriteFile(abs, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := w.Resolve(abs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteFile(p, []byte("né\n")); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	if got, _ := os.ReadFile(abs); string(got) != "né\n" {
		t.Errorf("file = %q, want UTF-8 %q", got, "né\n")
	}
}
