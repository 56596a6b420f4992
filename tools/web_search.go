package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"os"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// web_search searches the web with the backend the configuration chooses
// (web.search_backend, else web.backend, else the first credential present
// of SearXNG, Brave, Tavily, Exa and Firecrawl; package web) and returns
// hermes's result: {"success": true, "data": {"web": [{title, url,
// description, position}]}}. It is offered only when a backend is
// configured; the unavailability reason says how to configure one.
var _ = declare(registry.Tool[webDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           webSearchName,
		Toolset:        "web",
		Emoji:          "🔍",
		Description:    webSearchDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindFetch,
		ReadOnly:       true,
		Idempotent:     true,
		ParallelSafe:   true,
		Title:          webSearchTitle,
		Preview:        webSearchPreview,
		Render:         webRender,
	}, Params: webSearchParams{}},
	New: func(d webDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, _ *registry.Call, p *webSearchParams) (registry.Result, error) {
			return webSearch(ctx, d, p)
		})
	},
	Available: webSearchAvailable,
})

//go:embed web_search.md
var webSearchDescription string

const webSearchName = "web_search"

const (
	webSearchDefaultLimit = 5
	webSearchMaxLimit     = 100
)

// webSearchParams are web_search's arguments; the limit is read as hermes
// reads it (a number, or a string of one; 5 otherwise), whatever its type.
type webSearchParams struct {
	Query string `json:"query" schema:"required" desc:"The search query to look up on the web"`
	Limit any    `json:"limit" schema:"type=integer,default=5,minimum=1,maximum=100" desc:"Maximum number of results to return (1-100, default: 5)"`
}

// webDeps is what the web tools use of their session.
type webDeps interface {
	// WebTools is the session's web configuration; nil: no search
	// backend but the environment's credentials, in-process extraction
	// under the strict URL policy, no summaries.
	WebTools() *Web
	// Enabled reports whether the session offers tool: hints name only
	// those.
	Enabled(tool string) bool
}

// webBackends returns the backend configuration of w; without one, the
// process environment's credentials.
func webBackends(w *Web) web.Config {
	if w != nil {
		return w.Backends
	}
	return web.Config{Getenv: os.Getenv}
}

// webSearchAvailable is web_search's availability: a search backend is
// configured.
func webSearchAvailable(d webDeps) error {
	_, err := webBackends(d.WebTools()).SearchBackendName()
	return err
}

func webSearch(ctx context.Context, d webDeps, p *webSearchParams) (registry.Result, error) {
	if p.Query == "" {
		return registry.Error("query is required"), nil
	}
	limit := min(max(readFileInt(p.Limit, webSearchDefaultLimit), 1), webSearchMaxLimit)
	rs, err := webBackends(d.WebTools()).Search(ctx, p.Query, limit)
	if err != nil {
		if ctx.Err() != nil {
			return registry.Result{}, ctx.Err()
		}
		return registry.Errorf("Error searching web: %v", err), nil
	}
	if rs == nil {
		rs = []web.SearchResult{}
	}
	type data struct {
		Web []web.SearchResult `json:"web"`
	}
	return registry.OK(struct {
		Success bool `json:"success"`
		Data    data `json:"data"`
	}{true, data{rs}}), nil
}

// webSearchTitle is "web search: <query>".
func webSearchTitle(args map[string]any) string {
	return titleWithArg("web search: ", args, "query", webSearchName)
}

// webSearchPreview shows the arguments as pretty JSON while the search
// runs (hermes's start content of its polished tools).
func webSearchPreview(args map[string]any) string {
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// webRender shows nothing when a web tool succeeds: hermes's editor
// rendering shows only their failures (the title says what ran).
func webRender(map[string]any, registry.Result) string { return registry.NoRender }
