package main_test

// The official ACP TypeScript SDK plays an editor while the scripted model
// searches the web, reads the page it found and answers
// (conformance/web.mjs): web_search asks a fake SearXNG this test serves
// (SEARXNG_URL), web_extract reads an article page this test serves on
// 127.0.0.1 — which the URL policy refuses by default, so the agent's
// config.yaml sets web.allow_private_urls: true. No traffic leaves loopback.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const webE2EArticle = `<!DOCTYPE html><html><head><title>Go by Example: Channels</title></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a> · <a href="/subscribe">Subscribe</a></nav>
<div class="ad">Sponsored: cheap widgets</div>
<article><h1>Channels</h1>
<p>Channels are the pipes that connect concurrent goroutines. You can send values into channels from one goroutine and receive those values into another goroutine.</p>
<p>Create a new channel with make(chan val-type). Channels are typed by the values they convey.</p>
<pre><code>messages := make(chan string)
go func() { messages &lt;- "ping" }()</code></pre>
</article><footer>© Example</footer></body></html>`

func TestTypeScriptSDKWeb(t *testing.T) {
	t.Parallel()
	requireNode(t)
	var mu sync.Mutex
	var queries, fetched []string
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetched = append(fetched, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, webE2EArticle)
	}))
	defer page.Close()
	pageURL := page.URL + "/channels"
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"results":[{"url":%q,"title":"Go by Example: Channels","content":"Channels are the pipes that connect concurrent goroutines.","engine":"duckduckgo","score":1.0}],"answers":[],"suggestions":[]}`,
			r.URL.Query().Get("q"), pageURL)
	}))
	defer searx.Close()

	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("web:\n  allow_private_urls: true  # the test's page is on 127.0.0.1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sdkRun{script: filepath.Join("conformance", "web.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 90*time.Second, "HERMES_HOME="+home, "SEARXNG_URL="+searx.URL, "WEB_E2E_PAGE_URL="+pageURL)
	if conns := r.transcriptOf(t); len(conns["web"]) == 0 { // every agent line validates against the schema
		t.Error("no web connection in the transcript")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(queries) != 1 || !strings.HasPrefix(queries[0], "/search?") || !strings.Contains(queries[0], "q=go+channels+tutorial") || !strings.Contains(queries[0], "format=json") {
		t.Errorf("SearXNG saw %q, want one /search?q=go+channels+tutorial&format=json", queries)
	}
	if len(fetched) != 1 || fetched[0] != "/channels" {
		t.Errorf("the page server saw %q, want one GET /channels", fetched)
	}
}
