package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The backends hermes supports, by their configuration names.
const (
	SearXNG   = "searxng"   // a self-hosted SearXNG instance's JSON API (SEARXNG_URL), search only
	Brave     = "brave"     // Brave Search API (BRAVE_SEARCH_API_KEY), search only
	Tavily    = "tavily"    // Tavily (TAVILY_API_KEY), search and extract
	Exa       = "exa"       // Exa (EXA_API_KEY), search
	Firecrawl = "firecrawl" // Firecrawl (FIRECRAWL_API_KEY or a self-hosted FIRECRAWL_API_URL), search and extract
	Native    = "native"    // in-process extraction (no key), the default extract backend
)

// searchOrder is the order in which credentials select a search backend
// when the configuration names none.
var searchOrder = []string{SearXNG, Brave, Tavily, Exa, Firecrawl}

// Default API addresses; the *_API_URL variables override them (a proxy, a
// self-hosted Firecrawl, a test's fake server).
const (
	braveURL     = "https://api.search.brave.com"
	tavilyURL    = "https://api.tavily.com"
	exaURL       = "https://api.exa.ai"
	firecrawlURL = "https://api.firecrawl.dev"
)

// apiTimeout bounds one call of a search or extraction API.
const apiTimeout = 60 * time.Second

// ErrNoSearchBackend is the error of a search with no backend configured;
// its message says how to configure one.
var ErrNoSearchBackend = errors.New("no search backend: set SEARXNG_URL (a SearXNG instance, no key), " +
	"BRAVE_SEARCH_API_KEY, TAVILY_API_KEY, EXA_API_KEY or FIRECRAWL_API_KEY (or FIRECRAWL_API_URL), " +
	"in the environment or $HERMES_HOME/.env")

// Config selects and reaches the search and extraction backends. The zero
// value searches nothing and extracts in process.
type Config struct {
	// Backend is web.backend: the backend of both search and extraction
	// unless SearchBackend or ExtractBackend says otherwise.
	Backend string
	// SearchBackend is web.search_backend; ExtractBackend is
	// web.extract_backend.
	SearchBackend, ExtractBackend string
	// Getenv reads the credentials and addresses (SEARXNG_URL,
	// BRAVE_SEARCH_API_KEY, TAVILY_API_KEY, EXA_API_KEY, FIRECRAWL_API_KEY,
	// FIRECRAWL_API_URL, and the *_API_URL overrides). Nil reads nothing.
	Getenv func(string) string
	// HTTP is the client for the backends' APIs; nil means one with a
	// 60-second timeout. The APIs are configured by the user, so they are
	// not subject to the URL policy (a SearXNG on localhost is common).
	HTTP *http.Client
}

func (c Config) env(k string) string {
	if c.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(c.Getenv(k))
}

func (c Config) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: apiTimeout}
}

// credential returns the variable a backend needs and whether it is set.
func (c Config) credential(backend string) (need string, ok bool) {
	switch backend {
	case SearXNG:
		return "SEARXNG_URL", c.env("SEARXNG_URL") != ""
	case Brave:
		return "BRAVE_SEARCH_API_KEY", c.env("BRAVE_SEARCH_API_KEY") != ""
	case Tavily:
		return "TAVILY_API_KEY", c.env("TAVILY_API_KEY") != ""
	case Exa:
		return "EXA_API_KEY", c.env("EXA_API_KEY") != ""
	case Firecrawl:
		return "FIRECRAWL_API_KEY or FIRECRAWL_API_URL", c.env("FIRECRAWL_API_KEY") != "" || c.env("FIRECRAWL_API_URL") != ""
	}
	return "", false
}

// SearchBackendName returns the search backend: web.search_backend, else
// web.backend (when it can search), else the first of SearXNG, Brave,
// Tavily, Exa and Firecrawl whose credential is set. The error says what
// is missing; it wraps ErrNoSearchBackend when nothing is configured.
func (c Config) SearchBackendName() (string, error) {
	key, name := "web.search_backend", norm(c.SearchBackend)
	if name == "" {
		key, name = "web.backend", norm(c.Backend)
		if name == Native {
			name = "" // an extraction choice; search is detected
		}
	}
	if name != "" {
		need, ok := c.credential(name)
		switch {
		case need == "":
			return "", fmt.Errorf("%s is %q, which is not a search backend (searxng, brave, tavily, exa, firecrawl)", key, name)
		case !ok:
			return "", fmt.Errorf("%s is %s but %s is not set", key, name, need)
		}
		return name, nil
	}
	for _, b := range searchOrder {
		if _, ok := c.credential(b); ok {
			return b, nil
		}
	}
	return "", ErrNoSearchBackend
}

// ExtractBackendName returns the extraction backend: web.extract_backend,
// else web.backend when it is firecrawl or tavily, else native (in
// process, no key).
func (c Config) ExtractBackendName() (string, error) {
	key, name := "web.extract_backend", norm(c.ExtractBackend)
	if name == "" {
		switch b := norm(c.Backend); b {
		case Firecrawl, Tavily:
			key, name = "web.backend", b
		default:
			return Native, nil
		}
	}
	switch name {
	case Native:
		return Native, nil
	case Firecrawl, Tavily:
		if need, ok := c.credential(name); !ok {
			return "", fmt.Errorf("%s is %s but %s is not set", key, name, need)
		}
		return name, nil
	}
	return "", fmt.Errorf("%s is %q, which is not an extraction backend (native, firecrawl, tavily)", key, name)
}

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// SearchResult is one result of a search, ranked from 1.
type SearchResult struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Position    int    `json:"position"`
}

// Search runs query on the configured backend and returns at most limit
// results, ranked.
func (c Config) Search(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	backend, err := c.SearchBackendName()
	if err != nil {
		return nil, err
	}
	var rs []SearchResult
	switch backend {
	case SearXNG:
		rs, err = c.searxng(ctx, query, limit)
	case Brave:
		rs, err = c.brave(ctx, query, limit)
	case Tavily:
		rs, err = c.tavilySearch(ctx, query, limit)
	case Exa:
		rs, err = c.exa(ctx, query, limit)
	case Firecrawl:
		rs, err = c.firecrawlSearch(ctx, query, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("%s search: %w", backend, err)
	}
	if len(rs) > limit {
		rs = rs[:limit]
	}
	for i := range rs {
		rs[i].Position = i + 1
	}
	return rs, nil
}

// base returns the API address: the variable when set, else def.
func (c Config) base(variable, def string) string {
	if v := c.env(variable); v != "" {
		return strings.TrimRight(v, "/")
	}
	return def
}

// call sends one API request and decodes its JSON answer into out.
func (c Config) call(ctx context.Context, method, u string, hdr http.Header, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		if msg != "" {
			return fmt.Errorf("HTTP %s: %s", resp.Status, msg)
		}
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// searxng queries a SearXNG instance's JSON API (the instance must enable
// the json format): GET <SEARXNG_URL>/search?q=…&format=json.
func (c Config) searxng(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	base := strings.TrimRight(c.env("SEARXNG_URL"), "/")
	if !strings.HasSuffix(base, "/search") {
		base += "/search"
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("SEARXNG_URL: %w", err)
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	q.Set("pageno", "1")
	u.RawQuery = q.Encode()
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := c.call(ctx, http.MethodGet, u.String(), nil, nil, &ans); err != nil {
		return nil, err
	}
	var rs []SearchResult
	for _, r := range ans.Results {
		rs = append(rs, SearchResult{Title: r.Title, URL: r.URL, Description: r.Content})
	}
	return rs, nil
}

// brave queries the Brave Search API: GET /res/v1/web/search?q=…&count=…
// with the key in X-Subscription-Token (count is at most 20).
func (c Config) brave(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	u := c.base("BRAVE_SEARCH_API_URL", braveURL) + "/res/v1/web/search?" + url.Values{
		"q": {query}, "count": {strconv.Itoa(min(limit, 20))},
	}.Encode()
	hdr := http.Header{"X-Subscription-Token": {c.env("BRAVE_SEARCH_API_KEY")}}
	var ans struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := c.call(ctx, http.MethodGet, u, hdr, nil, &ans); err != nil {
		return nil, err
	}
	var rs []SearchResult
	for _, r := range ans.Web.Results {
		rs = append(rs, SearchResult{Title: r.Title, URL: r.URL, Description: stripTags(r.Description)})
	}
	return rs, nil
}

// tavilySearch queries Tavily: POST /search with the key in the body (as
// hermes sends it) and as a bearer token (as Tavily's current API wants).
func (c Config) tavilySearch(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	key := c.env("TAVILY_API_KEY")
	body := map[string]any{
		"query": query, "max_results": min(limit, 20),
		"include_raw_content": false, "include_images": false, "api_key": key,
	}
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	hdr := http.Header{"Authorization": {"Bearer " + key}}
	if err := c.call(ctx, http.MethodPost, c.base("TAVILY_API_URL", tavilyURL)+"/search", hdr, body, &ans); err != nil {
		return nil, err
	}
	var rs []SearchResult
	for _, r := range ans.Results {
		rs = append(rs, SearchResult{Title: r.Title, URL: r.URL, Description: r.Content})
	}
	return rs, nil
}

// exa queries Exa: POST /search with the key in x-api-key, asking for
// highlights, which become the description.
func (c Config) exa(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	body := map[string]any{
		"query": query, "numResults": limit, "type": "auto",
		"contents": map[string]any{"highlights": true},
	}
	var ans struct {
		Results []struct {
			Title      string   `json:"title"`
			URL        string   `json:"url"`
			Highlights []string `json:"highlights"`
			Summary    string   `json:"summary"`
			Text       string   `json:"text"`
		} `json:"results"`
	}
	hdr := http.Header{"X-Api-Key": {c.env("EXA_API_KEY")}}
	if err := c.call(ctx, http.MethodPost, c.base("EXA_API_URL", exaURL)+"/search", hdr, body, &ans); err != nil {
		return nil, err
	}
	var rs []SearchResult
	for _, r := range ans.Results {
		desc := strings.Join(r.Highlights, " … ")
		if desc == "" {
			desc = r.Summary
		}
		if desc == "" {
			desc = clip(r.Text, 500)
		}
		rs = append(rs, SearchResult{Title: r.Title, URL: r.URL, Description: desc})
	}
	return rs, nil
}

// firecrawlHeader is Firecrawl's bearer token; a self-hosted instance
// without authentication needs none.
func (c Config) firecrawlHeader() http.Header {
	if k := c.env("FIRECRAWL_API_KEY"); k != "" {
		return http.Header{"Authorization": {"Bearer " + k}}
	}
	return nil
}

// firecrawlSearch queries Firecrawl: POST /v2/search {query, limit}.
func (c Config) firecrawlSearch(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	var ans struct {
		Success bool            `json:"success"`
		Error   string          `json:"error"`
		Data    json.RawMessage `json:"data"`
	}
	body := map[string]any{"query": query, "limit": limit}
	if err := c.call(ctx, http.MethodPost, c.base("FIRECRAWL_API_URL", firecrawlURL)+"/v2/search", c.firecrawlHeader(), body, &ans); err != nil {
		return nil, err
	}
	if !ans.Success && ans.Error != "" {
		return nil, errors.New(ans.Error)
	}
	type item struct {
		Title       string `json:"title"`
		URL         string `json:"url"`
		Description string `json:"description"`
	}
	var items []item
	var v2 struct {
		Web []item `json:"web"`
	}
	// v2 answers {"data":{"web":[…]}}; v1 answered {"data":[…]}.
	if err := json.Unmarshal(ans.Data, &v2); err == nil {
		items = v2.Web
	} else if err := json.Unmarshal(ans.Data, &items); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	var rs []SearchResult
	for _, r := range items {
		rs = append(rs, SearchResult{Title: r.Title, URL: r.URL, Description: r.Description})
	}
	return rs, nil
}

// stripTags removes the <strong> highlighting some APIs put in snippets.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
