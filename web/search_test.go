package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorded is a fake API: it checks each request with check and answers
// with the recorded response in testdata/file.
func recorded(t *testing.T, file string, check func(t *testing.T, r *http.Request, body map[string]any)) *httptest.Server {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Body != nil {
			raw, _ := io.ReadAll(r.Body)
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &body); err != nil {
					t.Errorf("request body is not JSON: %q", raw)
				}
			}
		}
		check(t, r, body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func want(t *testing.T, what string, got, want any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

var tourAndExample = []SearchResult{
	{Title: "Channels - A Tour of Go", URL: "https://go.dev/tour/concurrency/2", Position: 1},
	{Title: "Go by Example: Channels", URL: "https://gobyexample.com/channels", Position: 2},
}

func withDescriptions(rs []SearchResult, ds ...string) []SearchResult {
	out := make([]SearchResult, len(ds))
	copy(out, rs)
	for i, d := range ds {
		out[i].Description = d
		out[i].Position = i + 1
	}
	return out
}

func TestSearchSearXNG(t *testing.T) {
	t.Parallel()
	srv := recorded(t, "searxng.json", func(t *testing.T, r *http.Request, _ map[string]any) {
		want(t, "method", r.Method, http.MethodGet)
		want(t, "path", r.URL.Path, "/searx/search")
		want(t, "q", r.URL.Query().Get("q"), "go channels")
		want(t, "format", r.URL.Query().Get("format"), "json")
	})
	c := Config{Getenv: envOf(map[string]string{"SEARXNG_URL": srv.URL + "/searx/"})}
	rs, err := c.Search(context.Background(), "go channels", 2)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "results", rs, withDescriptions(tourAndExample,
		"Channels are a typed conduit through which you can send and receive values.",
		"Channels are the pipes that connect concurrent goroutines."))
}

func TestSearchBrave(t *testing.T) {
	t.Parallel()
	srv := recorded(t, "brave.json", func(t *testing.T, r *http.Request, _ map[string]any) {
		want(t, "method", r.Method, http.MethodGet)
		want(t, "path", r.URL.Path, "/res/v1/web/search")
		want(t, "q", r.URL.Query().Get("q"), "go channels")
		want(t, "count", r.URL.Query().Get("count"), "20") // Brave's maximum
		want(t, "token", r.Header.Get("X-Subscription-Token"), "brave-key")
		want(t, "accept", r.Header.Get("Accept"), "application/json")
	})
	c := Config{Getenv: envOf(map[string]string{"BRAVE_SEARCH_API_KEY": "brave-key", "BRAVE_SEARCH_API_URL": srv.URL})}
	rs, err := c.Search(context.Background(), "go channels", 50)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "results", rs, withDescriptions(tourAndExample,
		"Channels are a typed conduit through which you can send and receive values with the channel operator.",
		"Channels are the pipes that connect concurrent goroutines."))
}

func TestSearchTavily(t *testing.T) {
	t.Parallel()
	srv := recorded(t, "tavily.json", func(t *testing.T, r *http.Request, body map[string]any) {
		want(t, "method", r.Method, http.MethodPost)
		want(t, "path", r.URL.Path, "/search")
		want(t, "auth", r.Header.Get("Authorization"), "Bearer tvly-key")
		want(t, "body", body, map[string]any{
			"query": "go channels", "max_results": 5.0, "include_raw_content": false,
			"include_images": false, "api_key": "tvly-key",
		})
	})
	c := Config{SearchBackend: "Tavily", Getenv: envOf(map[string]string{"TAVILY_API_KEY": "tvly-key", "TAVILY_API_URL": srv.URL + "/", "SEARXNG_URL": "http://unused.invalid"})}
	rs, err := c.Search(context.Background(), "go channels", 5)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "results", rs, withDescriptions(tourAndExample,
		"Channels are a typed conduit through which you can send and receive values with the channel operator, <-.",
		"Channels are the pipes that connect concurrent goroutines."))
}

func TestSearchExa(t *testing.T) {
	t.Parallel()
	srv := recorded(t, "exa.json", func(t *testing.T, r *http.Request, body map[string]any) {
		want(t, "method", r.Method, http.MethodPost)
		want(t, "path", r.URL.Path, "/search")
		want(t, "key", r.Header.Get("X-Api-Key"), "exa-key")
		want(t, "body", body, map[string]any{
			"query": "go channels", "numResults": 3.0, "type": "auto",
			"contents": map[string]any{"highlights": true},
		})
	})
	c := Config{Backend: "exa", Getenv: envOf(map[string]string{"EXA_API_KEY": "exa-key", "EXA_API_URL": srv.URL})}
	rs, err := c.Search(context.Background(), "go channels", 3)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "results", rs, withDescriptions(tourAndExample,
		"Channels are a typed conduit through which you can send and receive values. … By default, sends and receives block until the other side is ready.",
		"Channels are the pipes that connect concurrent goroutines. You can send values into channels from one goroutine and receive those values into another goroutine."))
}

func TestSearchFirecrawl(t *testing.T) {
	t.Parallel()
	srv := recorded(t, "firecrawl_search.json", func(t *testing.T, r *http.Request, body map[string]any) {
		want(t, "method", r.Method, http.MethodPost)
		want(t, "path", r.URL.Path, "/v2/search")
		want(t, "auth", r.Header.Get("Authorization"), "Bearer fc-key")
		want(t, "body", body, map[string]any{"query": "go channels", "limit": 5.0})
	})
	c := Config{Getenv: envOf(map[string]string{"FIRECRAWL_API_KEY": "fc-key", "FIRECRAWL_API_URL": srv.URL})}
	rs, err := c.Search(context.Background(), "go channels", 5)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "results", rs, withDescriptions(tourAndExample,
		"Channels are a typed conduit through which you can send and receive values.",
		"Channels are the pipes that connect concurrent goroutines."))
}

func TestSearchHTTPError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"invalid api key"}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	c := Config{Getenv: envOf(map[string]string{"BRAVE_SEARCH_API_KEY": "bad", "BRAVE_SEARCH_API_URL": srv.URL})}
	_, err := c.Search(context.Background(), "x", 5)
	if err == nil || !strings.Contains(err.Error(), `brave search: HTTP 401 Unauthorized: {"error":"invalid api key"}`) {
		t.Errorf("Search = %v, want the HTTP error with its body", err)
	}
}

func TestSearchBackendName(t *testing.T) {
	t.Parallel()
	all := map[string]string{"SEARXNG_URL": "http://s", "BRAVE_SEARCH_API_KEY": "b", "TAVILY_API_KEY": "t", "EXA_API_KEY": "e", "FIRECRAWL_API_KEY": "f"}
	tests := []struct {
		name                string
		c                   Config
		want, wantErrSubstr string
	}{
		{"nothing", Config{}, "", "no search backend: set SEARXNG_URL"},
		{"detect searxng first", Config{Getenv: envOf(all)}, SearXNG, ""},
		{"detect brave", Config{Getenv: envOf(map[string]string{"BRAVE_SEARCH_API_KEY": "b", "EXA_API_KEY": "e"})}, Brave, ""},
		{"detect tavily before exa", Config{Getenv: envOf(map[string]string{"EXA_API_KEY": "e", "TAVILY_API_KEY": "t"})}, Tavily, ""},
		{"detect self-hosted firecrawl", Config{Getenv: envOf(map[string]string{"FIRECRAWL_API_URL": "http://localhost:3002"})}, Firecrawl, ""},
		{"search_backend wins", Config{SearchBackend: "exa", Backend: "brave", Getenv: envOf(all)}, Exa, ""},
		{"backend next", Config{Backend: "firecrawl", Getenv: envOf(all)}, Firecrawl, ""},
		{"backend native detects", Config{Backend: "native", Getenv: envOf(map[string]string{"TAVILY_API_KEY": "t"})}, Tavily, ""},
		{"named without key", Config{SearchBackend: "brave", Getenv: envOf(map[string]string{"TAVILY_API_KEY": "t"})}, "", "web.search_backend is brave but BRAVE_SEARCH_API_KEY is not set"},
		{"unknown", Config{Backend: "bing"}, "", `web.backend is "bing", which is not a search backend`},
	}
	for _, tt := range tests {
		got, err := tt.c.SearchBackendName()
		if got != tt.want || (err == nil) != (tt.wantErrSubstr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErrSubstr) {
			t.Errorf("%s: SearchBackendName() = %q, %v; want %q, %q", tt.name, got, err, tt.want, tt.wantErrSubstr)
		}
	}
	if _, err := (Config{}).SearchBackendName(); !errors.Is(err, ErrNoSearchBackend) {
		t.Errorf("no configuration: error %v is not ErrNoSearchBackend", err)
	}
}

func TestExtractBackendName(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"FIRECRAWL_API_KEY": "f", "SEARXNG_URL": "http://s"})
	tests := []struct {
		c          Config
		want, errS string
	}{
		{Config{Getenv: env}, Native, ""},
		{Config{Backend: "searxng", Getenv: env}, Native, ""},
		{Config{Backend: "firecrawl", Getenv: env}, Firecrawl, ""},
		{Config{Backend: "firecrawl", ExtractBackend: "native", Getenv: env}, Native, ""},
		{Config{ExtractBackend: "tavily", Getenv: env}, "", "web.extract_backend is tavily but TAVILY_API_KEY is not set"},
		{Config{ExtractBackend: "brave", Getenv: env}, "", "not an extraction backend"},
	}
	for _, tt := range tests {
		got, err := tt.c.ExtractBackendName()
		if got != tt.want || (err == nil) != (tt.errS == "") || err != nil && !strings.Contains(err.Error(), tt.errS) {
			t.Errorf("%+v: ExtractBackendName() = %q, %v; want %q, %q", tt.c, got, err, tt.want, tt.errS)
		}
	}
}

func TestExtractRemoteFirecrawl(t *testing.T) {
	t.Parallel()
	srv := recorded(t, "firecrawl_scrape.json", func(t *testing.T, r *http.Request, body map[string]any) {
		want(t, "method", r.Method, http.MethodPost)
		want(t, "path", r.URL.Path, "/v2/scrape")
		want(t, "auth", r.Header.Get("Authorization"), "Bearer fc-key")
		want(t, "body", body, map[string]any{"url": "https://go.dev/tour/concurrency/2", "formats": []any{"markdown"}, "onlyMainContent": true})
	})
	c := Config{Getenv: envOf(map[string]string{"FIRECRAWL_API_KEY": "fc-key", "FIRECRAWL_API_URL": srv.URL})}
	ps, err := c.ExtractRemote(context.Background(), Firecrawl, []string{"https://go.dev/tour/concurrency/2"})
	if err != nil {
		t.Fatal(err)
	}
	want(t, "pages", ps, []RemotePage{{URL: "https://go.dev/tour/concurrency/2", Title: "Channels - A Tour of Go", Content: "# Channels\n\nChannels are a typed conduit."}})
}

func TestExtractRemoteTavily(t *testing.T) {
	t.Parallel()
	urls := []string{"https://go.dev/tour/concurrency/2", "https://broken.example/x"}
	srv := recorded(t, "tavily_extract.json", func(t *testing.T, r *http.Request, body map[string]any) {
		want(t, "method", r.Method, http.MethodPost)
		want(t, "path", r.URL.Path, "/extract")
		want(t, "body", body, map[string]any{"urls": []any{urls[0], urls[1]}, "include_images": false, "api_key": "tvly-key"})
	})
	c := Config{Getenv: envOf(map[string]string{"TAVILY_API_KEY": "tvly-key", "TAVILY_API_URL": srv.URL})}
	ps, err := c.ExtractRemote(context.Background(), Tavily, urls)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "pages", ps, []RemotePage{
		{URL: urls[0], Title: "Channels - A Tour of Go", Content: "Channels are a typed conduit through which you can send and receive values."},
		{URL: urls[1], Error: "tavily extract: Failed to fetch url"},
	})
}
