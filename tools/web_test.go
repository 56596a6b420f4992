package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// webStubResolver answers host names from a table: no test resolves a
// real name or sends traffic beyond loopback.
type webStubResolver map[string]string

func (r webStubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func webSession(w *Web) *session { return newSession(Deps{Web: w}) }

func runWeb(t *testing.T, s *session, name string, args map[string]any) registry.Result {
	t.Helper()
	r, err := runBuiltin(context.Background(), s, "call-1", name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkIsError(t, name, r)
	return r
}

func entryOf(t *testing.T, name string) registry.Entry {
	t.Helper()
	for _, e := range Entries() {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no entry %s", name)
	return registry.Entry{}
}

// TestWebTitles: hermes's §9 title cases and the web tools' editor facts.
func TestWebTitles(t *testing.T) {
	t.Parallel()
	ex, se := entryOf(t, webExtractName), entryOf(t, webSearchName)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"urls": []any{map[string]any{"url": "https://example.com/a"}, map[string]any{"href": "https://example.org/b"}}}, "extract: https://example.com/a (+1)"},
		{map[string]any{"urls": []any{map[string]any{"title": "missing"}}}, "extract: ?"},
		{map[string]any{"urls": []any{"https://go.dev/doc/"}}, "extract: https://go.dev/doc/"},
		{map[string]any{"urls": []any{"https://a.example/", "https://b.example/", "https://c.example/"}}, "extract: https://a.example/ (+2)"},
		{map[string]any{}, "web_extract"},
	}
	for _, tt := range tests {
		if got := ex.Title(tt.args); got != tt.want {
			t.Errorf("web_extract title(%v) = %q, want %q", tt.args, got, tt.want)
		}
	}
	if got := se.Title(map[string]any{"query": "go channels"}); got != "web search: go channels" {
		t.Errorf("web_search title = %q", got)
	}
	for _, e := range []registry.Entry{ex, se} {
		if e.Kind != registry.KindFetch || !e.ReadOnly || !e.Idempotent || !e.ParallelSafe {
			t.Errorf("%s: kind %q read-only %v idempotent %v parallel %v; want fetch, true, true, true", e.Name, e.Kind, e.ReadOnly, e.Idempotent, e.ParallelSafe)
		}
		if got := e.Render(nil, registry.OK(nil)); got != registry.NoRender {
			t.Errorf("%s: a success renders %q, want nothing (hermes shows only failures)", e.Name, got)
		}
	}
	if got := ex.Preview(map[string]any{"urls": []any{"https://example.com/a"}}); got != "" {
		t.Errorf("web_extract preview = %q, want none (hermes: content null)", got)
	}
}

func TestWebSearchAvailability(t *testing.T) {
	t.Parallel()
	check := func(w *Web) error {
		entries, _ := Bind(Deps{Web: w})
		for _, e := range entries {
			if e.Name == webSearchName {
				return e.Check.Err()
			}
		}
		t.Fatal("web_search not bound")
		return nil
	}
	none := &Web{Backends: web.Config{Getenv: func(string) string { return "" }}}
	if err := check(none); err == nil || !strings.Contains(err.Error(), "no search backend: set SEARXNG_URL") {
		t.Errorf("Check without a backend = %v, want the how-to", err)
	}
	brave := &Web{Backends: web.Config{SearchBackend: "brave", Getenv: func(string) string { return "" }}}
	if err := check(brave); err == nil || !strings.Contains(err.Error(), "web.search_backend is brave but BRAVE_SEARCH_API_KEY is not set") {
		t.Errorf("Check with brave and no key = %v", err)
	}
	ok := &Web{Backends: web.Config{Getenv: func(k string) string {
		if k == "SEARXNG_URL" {
			return "http://127.0.0.1:8888"
		}
		return ""
	}}}
	if err := check(ok); err != nil {
		t.Errorf("Check with SEARXNG_URL = %v, want available", err)
	}
	for _, e := range func() []registry.Entry { es, _ := Bind(Deps{Web: none}); return es }() {
		if e.Name == webExtractName && e.Check != nil {
			if err := e.Check.Err(); err != nil {
				t.Errorf("web_extract needs no key, but its Check = %v", err)
			}
		}
	}
}

func TestWebSearchResult(t *testing.T) {
	t.Parallel()
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("q")
		fmt.Fprint(w, `{"results":[{"title":"A","url":"https://a.example/","content":"first"},{"title":"B","url":"https://b.example/","content":"second"},{"title":"C","url":"https://c.example/","content":"third"}]}`)
	}))
	defer srv.Close()
	s := webSession(&Web{Backends: web.Config{Getenv: func(k string) string {
		if k == "SEARXNG_URL" {
			return srv.URL
		}
		return ""
	}}})
	r := runWeb(t, s, webSearchName, map[string]any{"query": "golang generics", "limit": "2"})
	got := registry.Result{Value: r.Value}.Encode()
	want := `{"success":true,"data":{"web":[{"title":"A","url":"https://a.example/","description":"first","position":1},{"title":"B","url":"https://b.example/","description":"second","position":2}]}}`
	if got != want || gotQuery != "golang generics" {
		t.Errorf("web_search = %s (query %q)\nwant %s", got, gotQuery, want)
	}
	r = runWeb(t, webSession(&Web{Backends: web.Config{}}), webSearchName, map[string]any{"query": "x"})
	if msg := r.ErrorMessage(); !strings.HasPrefix(msg, "Error searching web: no search backend") {
		t.Errorf("web_search without backend = %q", msg)
	}
}

func webPageServer(t *testing.T, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func results(t *testing.T, r registry.Result) []map[string]any {
	t.Helper()
	m := resultObject(t, r)
	list, _ := m["results"].([]any)
	var out []map[string]any
	for _, v := range list {
		out = append(out, v.(map[string]any))
	}
	return out
}

func TestWebExtractPages(t *testing.T) {
	t.Parallel()
	srv := webPageServer(t, `<html><head><title>Release notes</title></head><body><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<article><h1>Go 1.26 released</h1><p>The new release brings <code>errors.AsType</code> and a faster garbage collector to every platform we support.</p></article>
<footer>Copyright</footer></body></html>`)
	s := webSession(&Web{Policy: &web.Policy{AllowLoopback: true}})
	r := runWeb(t, s, webExtractName, map[string]any{"urls": []any{srv.URL + "/notes", map[string]any{"url": srv.URL + "/missing"}}})
	rs := results(t, r)
	if len(rs) != 2 {
		t.Fatalf("results = %v, want 2", rs)
	}
	if rs[0]["title"] != "Release notes" || !strings.Contains(rs[0]["content"].(string), "`errors.AsType`") || rs[0]["error"] != nil {
		t.Errorf("first page = %v", rs[0])
	}
	if strings.Contains(rs[0]["content"].(string), "Copyright") {
		t.Errorf("first page keeps the footer: %q", rs[0]["content"])
	}
	if e, _ := rs[1]["error"].(string); !strings.Contains(e, "HTTP 404 Not Found") || rs[1]["content"] != "" {
		t.Errorf("second page = %v, want the 404 error", rs[1])
	}
}

func TestWebExtractRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	policy := &web.Policy{Resolver: webStubResolver{"intranet.example": "10.0.0.5"}}
	s := webSession(&Web{Policy: policy})
	r := runWeb(t, s, webExtractName, map[string]any{"urls": []any{"http://intranet.example/wiki", "http://169.254.169.254/latest/meta-data/"}})
	if !r.IsError {
		t.Error("every URL refused, but IsError = false")
	}
	rs := results(t, r)
	for i, want := range []string{
		"refused: intranet.example resolves to 10.0.0.5, a private address (web.allow_private_urls allows it)",
		"refused: 169.254.169.254 is a cloud metadata address (always refused)",
	} {
		if e, _ := rs[i]["error"].(string); e != want {
			t.Errorf("page %d error = %q, want %q", i, e, want)
		}
	}
	if msg := r.ErrorMessage(); msg != "" {
		t.Errorf("ErrorMessage = %q; the failure is a results object", msg)
	}
	if m := resultObject(t, r); !strings.Contains(m["error"].(string), "all 2 URLs failed") {
		t.Errorf("error = %v", m["error"])
	}
}

// webLongPage is an HTML page whose text is about n characters of
// sentences that number themselves, so a cut shows which part was kept.
func webLongPage(n int) (html, text string) {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Sentence number %06d of the long article about channels. ", i)
	}
	return "<html><body><article><h1>Long</h1><p>" + b.String() + "</p></article></body></html>", b.String()
}

type fakeSummarizer struct {
	mu    sync.Mutex
	calls []string // the instructions of each call
	err   error
}

func (f *fakeSummarizer) summarize(_ context.Context, instructions, text string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, instructions)
	if f.err != nil {
		return "", f.err
	}
	return fmt.Sprintf("SUMMARY of %d characters", len([]rune(text))), nil
}

type fakeSaver struct {
	mu    sync.Mutex
	saved map[string]string
}

func (f *fakeSaver) save(id, content string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.saved == nil {
		f.saved = map[string]string{}
	}
	path := "/results/" + id + ".txt"
	f.saved[path] = content
	return path, nil
}

func TestWebExtractSizes(t *testing.T) {
	t.Parallel()
	short, _ := webLongPage(3_000)
	long, _ := webLongPage(20_000)
	huge, _ := webLongPage(520_000) // over 500 000: six chunks and a merge
	tests := []struct {
		name       string
		page       string
		summarizer *fakeSummarizer
		noSum      bool
		charLimit  any
		wantCalls  int
		check      func(t *testing.T, content string, saved map[string]string)
	}{
		{"short page whole", short, &fakeSummarizer{}, false, nil, 0, func(t *testing.T, c string, saved map[string]string) {
			if !strings.Contains(c, "Sentence number 000000") || strings.Contains(c, "SUMMARY") || len(saved) != 0 {
				t.Errorf("content %q, saved %d files; want the page whole and nothing saved", clipRunes(c, 80), len(saved))
			}
		}},
		{"long page summarised", long, &fakeSummarizer{}, false, nil, 1, func(t *testing.T, c string, saved map[string]string) {
			if !strings.HasPrefix(c, "SUMMARY of ") || !strings.Contains(c, "the full text is saved at /results/call-1_page1.txt (read it with read_file, using offset and limit).") {
				t.Errorf("content = %q", c)
			}
			if full := saved["/results/call-1_page1.txt"]; !strings.Contains(full, "Sentence number 000300") {
				t.Errorf("saved full text lacks the middle of the page (%d chars)", len(full))
			}
		}},
		{"huge page in chunks", huge, &fakeSummarizer{}, false, nil, 7, func(t *testing.T, c string, _ map[string]string) {
			if !strings.HasPrefix(c, "SUMMARY of ") {
				t.Errorf("content = %q", clipRunes(c, 200))
			}
		}},
		{"summaries off: cut to char_limit", long, &fakeSummarizer{}, true, 4000, 0, func(t *testing.T, c string, saved map[string]string) {
			head, tail, ok := strings.Cut(c, "characters omitted")
			if !ok || !strings.Contains(head, "Sentence number 000000") || strings.Contains(c, "Sentence number 000200") {
				t.Errorf("content is not head + note + tail: %q", clipRunes(c, 300))
			}
			if n := runeCount(c); n > 4000+400 {
				t.Errorf("content is %d characters, want about char_limit 4000", n)
			}
			if !strings.Contains(tail, "saved at /results/call-1_page1.txt") || len(saved) != 1 {
				t.Errorf("the note does not say where the full text is: %q", tail)
			}
		}},
		{"summary fails: cut", long, &fakeSummarizer{err: errors.New("model overloaded")}, false, 2000, 1, func(t *testing.T, c string, _ map[string]string) {
			if !strings.Contains(c, "(the summary failed: model overloaded)") || runeCount(c) > 2000+400 {
				t.Errorf("content = %q", clipRunes(c, 300))
			}
		}},
		{"char_limit below the minimum is 2000", long, nil, false, 10, 0, func(t *testing.T, c string, _ map[string]string) {
			if n := runeCount(c); n < 2000 || n > 2000+400 {
				t.Errorf("content is %d characters, want about 2000", n)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := webPageServer(t, tt.page)
			saver := &fakeSaver{}
			w := &Web{Policy: &web.Policy{AllowLoopback: true}, NoSummarize: tt.noSum, SaveResult: saver.save}
			if tt.summarizer != nil {
				w.Summarize = tt.summarizer.summarize
			}
			args := map[string]any{"urls": []any{srv.URL}}
			if tt.charLimit != nil {
				args["char_limit"] = tt.charLimit
			}
			rs := results(t, runWeb(t, webSession(w), webExtractName, args))
			if len(rs) != 1 || rs[0]["error"] != nil {
				t.Fatalf("results = %v", rs)
			}
			calls := 0
			if tt.summarizer != nil {
				calls = len(tt.summarizer.calls)
			}
			if calls != tt.wantCalls {
				t.Errorf("summariser called %d times, want %d", calls, tt.wantCalls)
			}
			tt.check(t, rs[0]["content"].(string), saver.saved)
		})
	}
}

// TestWebExtractFirecrawl: web.extract_backend firecrawl sends the URL to
// Firecrawl's scrape API after the URL policy allowed it.
func TestWebExtractFirecrawl(t *testing.T) {
	t.Parallel()
	var scraped []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		scraped = append(scraped, r.URL.Path)
		mu.Unlock()
		fmt.Fprint(w, `{"success":true,"data":{"markdown":"# Docs\n\nHello.","metadata":{"title":"Docs","sourceURL":"https://docs.example/start"}}}`)
	}))
	defer srv.Close()
	env := map[string]string{"FIRECRAWL_API_KEY": "fc", "FIRECRAWL_API_URL": srv.URL}
	s := webSession(&Web{
		Backends: web.Config{ExtractBackend: "firecrawl", Getenv: func(k string) string { return env[k] }},
		Policy:   &web.Policy{Resolver: webStubResolver{"docs.example": "93.184.216.34", "wiki.corp.example": "192.168.1.20"}},
	})
	rs := results(t, runWeb(t, s, webExtractName, map[string]any{"urls": []any{"https://docs.example/start", "https://wiki.corp.example/"}}))
	if rs[0]["content"] != "# Docs\n\nHello." || rs[0]["title"] != "Docs" {
		t.Errorf("first page = %v", rs[0])
	}
	if e, _ := rs[1]["error"].(string); !strings.Contains(e, "192.168.1.20, a private address") {
		t.Errorf("second page = %v, want refused before Firecrawl sees it", rs[1])
	}
	if len(scraped) != 1 || scraped[0] != "/v2/scrape" {
		t.Errorf("Firecrawl saw %v, want one /v2/scrape", scraped)
	}
}
