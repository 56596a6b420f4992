package web

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/internal/testpdf"
)

// decodeChildEnv makes the test binary run DecodeMain (see TestMain): the
// Isolated decoder of these tests starts the test binary itself.
const decodeChildEnv = "HERMES_WEB_TEST_DECODE_CHILD=1"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == DecodeCommand && os.Getenv("HERMES_WEB_TEST_DECODE_CHILD") == "1" {
		os.Exit(DecodeMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func isolated(t *testing.T) Isolated {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Isolated{Exe: exe, Env: []string{decodeChildEnv}}
}

func TestDecodersReadDocuments(t *testing.T) {
	t.Parallel()
	page := []byte(`<!doctype html><html><head><title>T</title></head><body><article><h1>Head</h1><p>Body text of the article, long enough to be kept.</p></article></body></html>`)
	for name, d := range map[string]Decoder{"in process": InProcess{}, "isolated": isolated(t)} {
		got, err := d.Decode(t.Context(), DecodeJob{Kind: KindPDF, URL: "https://x.example/a.pdf"}, testpdf.Minimal("Hello from a PDF"))
		if err != nil || got.Content != "Hello from a PDF" || got.Cut != "" {
			t.Errorf("%s: PDF = %+v, %v", name, got, err)
		}
		got, err = d.Decode(t.Context(), DecodeJob{Kind: KindHTML, URL: "https://x.example/", ContentType: "text/html"}, page)
		if err != nil || got.Title != "T" || !strings.Contains(got.Content, "Body text of the article") {
			t.Errorf("%s: HTML = %+v, %v", name, got, err)
		}
		if _, err := d.Decode(t.Context(), DecodeJob{Kind: KindPDF}, []byte("%PDF-1.4\ngarbage")); err == nil || !strings.Contains(err.Error(), "PDF") {
			t.Errorf("%s: a malformed PDF = %v, want a PDF error", name, err)
		}
	}
}

// TestDecoderBudgets: a PDF bomb is cut at the text limit, refused when it
// exceeds the memory budget, and stopped at the context's end; the caller
// never holds more than the text limit.
func TestDecoderBudgets(t *testing.T) {
	t.Parallel()
	iso := isolated(t)
	text := testpdf.Bomb(testpdf.Text, 1, 4096) // 4 GiB of text operators
	ops := testpdf.Bomb(testpdf.Ops, 32, 512)
	for name, d := range map[string]Decoder{"in process": InProcess{}, "isolated": iso} {
		got, err := d.Decode(t.Context(), DecodeJob{Kind: KindPDF, MaxText: 1 << 20}, text)
		if err != nil || len(got.Content) > 1<<20 || len(got.Content) < 1<<19 || !strings.Contains(got.Cut, "longer than 1 MiB") {
			t.Errorf("%s: text bomb = %d bytes, cut %q, %v; want 1 MiB and the limit", name, len(got.Content), got.Cut, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		start := time.Now()
		got, err = d.Decode(ctx, DecodeJob{Kind: KindPDF}, ops) // 16 GiB of operators
		cancel()
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("%s: the operator bomb took %s with a 2s deadline", name, took)
		}
		switch {
		case err != nil && errors.Is(err, context.DeadlineExceeded):
		case err == nil && strings.Contains(got.Cut, "stopped"):
		default:
			t.Errorf("%s: operator bomb = %q cut %q, %v; want stopped at the deadline", name, got.Content, got.Cut, err)
		}
	}
	got, err := iso.Decode(t.Context(), DecodeJob{Kind: KindPDF, Memory: 128 << 20}, testpdf.Bomb(testpdf.Token, 1, 4096)) // one 4 GiB token
	if err == nil || !strings.Contains(err.Error(), "ran out of its 128 MiB memory budget") {
		t.Errorf("token bomb = %d bytes, cut %q, %v; want refused at the memory budget", len(got.Content), got.Cut, err)
	}
	// The caller's context ends the child at once.
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = iso.Decode(ctx, DecodeJob{Kind: KindPDF}, ops)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled decode = %v after %s, want cancelled at once", err, time.Since(start))
	}
}
