package testpdf

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
)

// TestZlibRepeat: the stream of a repeated chunk inflates to exactly the
// chunk n times, and its checksum is right (zlib's reader checks it at
// the end).
func TestZlibRepeat(t *testing.T) {
	t.Parallel()
	chunk := bytes.Repeat([]byte("(AAAA) Tj\n"), 7000)
	for _, n := range []int{1, 2, 5, 70000 / len(chunk) * 3} {
		zr, err := zlib.NewReader(bytes.NewReader(zlibRepeat(chunk, n)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !bytes.Equal(got, bytes.Repeat(chunk, n)) {
			t.Errorf("n=%d: inflated to %d bytes, want %d copies of the chunk", n, len(got), n)
		}
	}
}

// TestBombIsSmall: a bomb is well under a five-hundredth of what it
// inflates to.
func TestBombIsSmall(t *testing.T) {
	t.Parallel()
	if b := Bomb(Text, 64, 2); len(b) > 128<<20/500 {
		t.Errorf("a 128 MiB text bomb is %d bytes", len(b))
	}
}
