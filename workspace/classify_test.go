package workspace

import (
	"bytes"
	"testing"
)

func TestIsBinaryExt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"photo.PNG", true},
		{"a/b/c.jpeg", true},
		{"clip.mp4", true},
		{"song.flac", true},
		{"x.tar", true},
		{"x.tar.gz", true},
		{"app.exe", true},
		{"lib.so", true},
		{"report.docx", true},
		{"font.woff2", true},
		{"Main.class", true},
		{"data.sqlite3", true},
		{"design.psd", true},
		{"bun.lockb", true},
		{"blob.dat", true},
		{"paper.pdf", false},
		{"main.go", false},
		{"README", false},
		{"notes.txt", false},
		{".gitignore", false},
		{"image.svg", false},
		{"dir.png/file.txt", false},
	} {
		if got := IsBinaryExt(tc.name); got != tc.want {
			t.Errorf("IsBinaryExt(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIsImageExt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"a.png", true}, {"a.JPG", true}, {"a.jpeg", true}, {"a.gif", true},
		{"a.webp", true}, {"a.bmp", true}, {"favicon.ico", true},
		{"a.tiff", false}, {"a.svg", false}, {"a.pdf", false}, {"a.txt", false}, {"png", false},
	} {
		if got := IsImageExt(tc.name); got != tc.want {
			t.Errorf("IsImageExt(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestLooksBinary(t *testing.T) {
	t.Parallel()
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "hello world, this is UTF-16 text" {
		utf16 = append(utf16, byte(r), 0)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"text", []byte("package main\n\nfunc main() {}\r\n\tx := 1\n"), false},
		{"utf8", []byte("héllo — wörld ✓\n"), false},
		{"elf header", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00"), true},
		{"utf16 with bom is text", utf16, false},
		{"utf16 without bom", utf16[2:], true},
		{"exactly 30 percent", append(bytes.Repeat([]byte{1}, 3), bytes.Repeat([]byte{'a'}, 7)...), false},
		{"just over 30 percent", append(bytes.Repeat([]byte{1}, 31), bytes.Repeat([]byte{'a'}, 69)...), true},
		{"whitespace controls are text", bytes.Repeat([]byte("\n\r\t"), 100), false},
		{"binary after the sample is ignored", append(bytes.Repeat([]byte{'a'}, 1000), bytes.Repeat([]byte{0}, 5000)...), false},
		{"binary within the sample", append(bytes.Repeat([]byte{0}, 400), bytes.Repeat([]byte{'a'}, 5000)...), true},
	} {
		if got := LooksBinary(tc.in); got != tc.want {
			t.Errorf("LooksBinary(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
