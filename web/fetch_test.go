package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"github.com/hermes-acp/hermes-acp/internal/testpdf"
)

// loopbackFetcher fetches from httptest servers (loopback allowed).
func loopbackFetcher(max int64) *Fetcher {
	return &Fetcher{Client: (&Policy{AllowLoopback: true}).Client(0), MaxBytes: max}
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchArticleToMarkdown(t *testing.T) {
	t.Parallel()
	article, err := os.ReadFile("testdata/article.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(article)
	})
	p, err := loopbackFetcher(0).Fetch(context.Background(), srv.URL+"/posts/channels")
	if err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if p.Title != "Understanding Go Channels | Example Blog" && p.Title != "Understanding Go Channels" {
		t.Errorf("Title = %q", p.Title)
	}
	for _, want := range []string{
		"## Unbuffered channels",
		"Channels are the pipes that connect concurrent goroutines.",
		"```\nmessages := make(chan string)",
		`go func() { messages <- "ping" }()`,
		"**unbuffered**",
		"[the select statement](" + srv.URL + "/posts/select)",
	} {
		if !strings.Contains(p.Content, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, p.Content)
		}
	}
	for _, junk := range []string{"BUY CHEAP WIDGETS", "Subscribe to our newsletter", "HostingCo", "All rights reserved", "tracker", "color: red", "<p>", "<article"} {
		if strings.Contains(p.Content, junk) {
			t.Errorf("Markdown keeps %q (navigation, ads, scripts or HTML):\n%s", junk, p.Content)
		}
	}
	if p.Truncated {
		t.Error("Truncated = true for a small page")
	}
}

func TestFetchDecodesCharset(t *testing.T) {
	t.Parallel()
	const russian = "Привет, мир! Каналы соединяют горутины."
	const french = "Élève, garçon, cœur - déjà vu."
	cp1251, err := charmap.Windows1251.NewEncoder().String(russian)
	if err != nil {
		t.Fatal(err)
	}
	latin1, err := charmap.ISO8859_15.NewEncoder().String(french)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ct, body, want string
	}{
		{"header windows-1251", "text/html; charset=windows-1251",
			"<html><body><p>" + cp1251 + "</p></body></html>", russian},
		{"meta windows-1251", "text/html",
			`<html><head><meta charset="windows-1251"></head><body><p>` + cp1251 + "</p></body></html>", russian},
		{"header iso-8859-15 text", "text/plain; charset=iso-8859-15", latin1, french},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ct)
				fmt.Fprint(w, tt.body)
			})
			p, err := loopbackFetcher(0).Fetch(context.Background(), srv.URL)
			if err != nil {
				t.Fatalf("Fetch = %v", err)
			}
			if !strings.Contains(p.Content, tt.want) {
				t.Errorf("Content = %q, want it to contain %q", p.Content, tt.want)
			}
		})
	}
}

// TestFetchCutsAtTheSizeLimit: a 20 MB page is read only up to the limit
// and extracted from what was read.
func TestFetchCutsAtTheSizeLimit(t *testing.T) {
	t.Parallel()
	const total = 20 << 20
	const limit = 1 << 20
	var sent atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		line := bytes.Repeat([]byte("x"), 1023)
		line = append(line, '\n')
		fmt.Fprint(w, "FIRST LINE\n")
		for n := 0; n < total/len(line); n++ {
			if _, err := w.Write(line); err != nil {
				return // the client stopped reading
			}
			sent.Add(int64(len(line)))
		}
		fmt.Fprint(w, "LAST LINE\n")
	})
	p, err := loopbackFetcher(limit).Fetch(context.Background(), srv.URL)
	if err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if !p.Truncated {
		t.Error("Truncated = false for a 20 MB page with a 1 MB limit")
	}
	if len(p.Content) != limit {
		t.Errorf("content is %d bytes, want the limit %d", len(p.Content), limit)
	}
	if !strings.HasPrefix(p.Content, "FIRST LINE\n") || strings.Contains(p.Content, "LAST LINE") {
		t.Errorf("content is not the head of the page")
	}
}

func TestFetchRefusals(t *testing.T) {
	t.Parallel()
	res := newStub(map[string][]string{"intranet.example": {"10.0.0.5"}})
	strict := &Policy{Resolver: res}
	strict.dial = noDial(t)
	f := &Fetcher{Client: strict.Client(0)}
	tests := []struct{ url, want string }{
		{"http://intranet.example/wiki", "fetch http://intranet.example/wiki: refused: intranet.example resolves to 10.0.0.5, a private address (web.allow_private_urls allows it)"},
		{"http://127.0.0.1:8080/admin", "fetch http://127.0.0.1:8080/admin: refused: 127.0.0.1 is a loopback address (web.allow_private_urls allows it)"},
		{"http://169.254.169.254/latest/meta-data/", "refused: 169.254.169.254 is a cloud metadata address (always refused)"},
		{"file:///etc/passwd", "unsupported protocol scheme"},
	}
	for _, tt := range tests {
		_, err := f.Fetch(context.Background(), tt.url)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Fetch(%q) = %v, want %q", tt.url, err, tt.want)
		}
	}
}

// TestFetchRefusesRedirectToLoopback: a public page that redirects to
// 127.0.0.1 is refused at the redirect, before any connection to it.
func TestFetchRefusesRedirectToLoopback(t *testing.T) {
	t.Parallel()
	p, _ := publicServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:6379/", http.StatusFound)
	}))
	_, err := (&Fetcher{Client: p.Client(0)}).Fetch(context.Background(), "http://public.example/")
	want := "redirect to http://127.0.0.1:6379/: refused: 127.0.0.1 is a loopback address"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Fetch = %v, want %q", err, want)
	}
}

func TestFetchHTTPErrorsAndTypes(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		case "/pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(testpdf.Minimal("Hello from a PDF"))
		}
	})
	f := loopbackFetcher(0)
	if _, err := f.Fetch(context.Background(), srv.URL+"/missing"); err == nil || !strings.Contains(err.Error(), "HTTP 404 Not Found") {
		t.Errorf("Fetch 404 = %v, want HTTP 404", err)
	}
	if _, err := f.Fetch(context.Background(), srv.URL+"/image"); err == nil || !strings.Contains(err.Error(), `unsupported content type "image/png"`) {
		t.Errorf("Fetch image = %v, want unsupported content type", err)
	}
	p, err := f.Fetch(context.Background(), srv.URL+"/pdf")
	if err != nil || !strings.Contains(p.Content, "Hello from a PDF") {
		t.Errorf("Fetch PDF = %q, %v; want its text", p.Content, err)
	}
}

func TestExtractMalformedPDF(t *testing.T) {
	t.Parallel()
	if _, err := Extract("https://x.example/a.pdf", []byte("%PDF-1.4\ngarbage"), "application/pdf"); err == nil || !strings.Contains(err.Error(), "PDF") {
		t.Errorf("Extract(bad PDF) = %v, want a PDF error", err)
	}
}
