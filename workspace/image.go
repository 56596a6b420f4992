package workspace

import (
	"bytes"
	"fmt"
	"net/http"
)

// MaxImageBytes is the largest image hermes-acp sends to a model (a
// prompt's attachment or vision_analyze's): 15 MiB,
// which base64 turns into hermes-agent's 20 MiB ceiling for a vision
// payload (no major provider accepts more).
const MaxImageBytes = 15 << 20

// ImageFormats names the formats [CheckImage] accepts, for messages.
const ImageFormats = "PNG, JPEG, GIF or WebP"

// SniffImage returns the MIME type of the image format of data:
// "image/png", "image/jpeg", "image/gif" or "image/webp", or "" when data
// is none of them. The bytes decide, not a file name or a declared type.
func SniffImage(data []byte) string {
	// RIFF....WEBP: checked here as well, as the standard sniffer's WebP
	// signature has changed between Go releases.
	if len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")) {
		return "image/webp"
	}
	switch mime := http.DetectContentType(data); mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return mime
	}
	return ""
}

// CheckImage checks an image before it is sent to a model: it must be
// PNG, JPEG, GIF or WebP and at most [MaxImageBytes]. It returns the
// image's MIME type, or an error whose message says in plain words what is
// wrong, for the user or the model.
func CheckImage(data []byte) (mime string, err error) {
	switch {
	case len(data) == 0:
		return "", fmt.Errorf("the image is empty")
	case len(data) > MaxImageBytes:
		return "", fmt.Errorf("the image is %s; the limit is %s", SizeText(int64(len(data))), SizeText(MaxImageBytes))
	}
	mime = SniffImage(data)
	if mime == "" {
		got := http.DetectContentType(data)
		return "", fmt.Errorf("the image is not %s (its content looks like %s)", ImageFormats, got)
	}
	return mime, nil
}

// SizeText writes a byte count for people: "812 bytes", "48.2 KB",
// "3.1 MB" (1 KB = 1024 bytes).
func SizeText(n int64) string { return humanSize(n) }
