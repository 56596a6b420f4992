package workspace_test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// encoded returns a 2×2 image in the standard library's encoders' formats.
func encoded(t *testing.T) map[string][]byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	out := map[string][]byte{}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	out["image/png"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	out["image/jpeg"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	out["image/gif"] = bytes.Clone(b.Bytes())
	// A lossless WebP header (RIFF size WEBP VP8L …): the sniffer looks only
	// at the container.
	out["image/webp"] = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
	return out
}

func TestCheckImageFormats(t *testing.T) {
	t.Parallel()
	for want, data := range encoded(t) {
		got, err := workspace.CheckImage(data)
		if err != nil || got != want {
			t.Errorf("CheckImage(%s) = %q, %v; want %q", want, got, err, want)
		}
	}
}

func TestCheckImageRefusals(t *testing.T) {
	t.Parallel()
	bmp := append([]byte("BM"), make([]byte, 60)...)
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>`)
	big := append(bytes.Clone(encoded(t)["image/png"]), make([]byte, workspace.MaxImageBytes)...)
	for _, tc := range []struct {
		name string
		data []byte
		want []string
	}{
		{"empty", nil, []string{"empty"}},
		{"bmp", bmp, []string{"not PNG, JPEG, GIF or WebP", "image/bmp"}},
		{"svg", svg, []string{"not PNG, JPEG, GIF or WebP", "text/"}},
		{"text", []byte("hello"), []string{"not PNG, JPEG, GIF or WebP", "text/plain"}},
		{"too large", big, []string{"15.0 MB", "the limit is 15.0 MB"}},
	} {
		_, err := workspace.CheckImage(tc.data)
		if err == nil {
			t.Errorf("CheckImage(%s) = nil error, want a refusal", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("CheckImage(%s) = %q, want it to contain %q", tc.name, err, w)
			}
		}
	}
}
