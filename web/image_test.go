package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFetchImageFollowsThePolicy: vision_analyze's image URLs go through
// the web tools' network policy — a loopback server is refused before any
// connection unless allowed — and the size limit holds.
func TestFetchImageFollowsThePolicy(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 100)...)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/img.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		case "/hop":
			http.Redirect(w, r, "/img.png", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	_, _, err := (&Policy{}).FetchImage(t.Context(), srv.URL+"/img.png", 1<<20)
	if err == nil || !IsRefused(err) || hits.Load() != 0 {
		t.Fatalf("strict policy: err = %v after %d requests, want a refusal before connecting", err, hits.Load())
	}
	open := &Policy{AllowPrivate: true}
	data, mime, err := open.FetchImage(t.Context(), srv.URL+"/hop", 1<<20)
	if err != nil || !bytes.Equal(data, png) || mime != "image/png" {
		t.Fatalf("allowed: %d bytes, %q, %v", len(data), mime, err)
	}
	if _, _, err := open.FetchImage(t.Context(), srv.URL+"/img.png", 50); err == nil || !strings.Contains(err.Error(), "allowed") {
		t.Errorf("over the size limit: err = %v", err)
	}
	if _, _, err := open.FetchImage(t.Context(), srv.URL+"/missing.png", 1<<20); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing image: err = %v", err)
	}
	if _, _, err := open.FetchImage(t.Context(), "ftp://127.0.0.1/x.png", 1<<20); err == nil {
		t.Error("an ftp URL was fetched")
	}
}
