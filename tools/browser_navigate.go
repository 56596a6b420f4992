package tools

import (
	"context"
	_ "embed"
	"errors"
	"strings"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_navigate opens a URL in the session's browser (started on first
// use), after the session's URL rules, waits for the load and the network
// to be quiet, and returns hermes's result with a compact snapshot, so the
// model can act without a separate snapshot.
// browserNavigateName is the tool's name, for the other browser tools' hints.
const browserNavigateName = "browser_navigate"

var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        browserNavigateName,
		Toolset:     browserToolset,
		Emoji:       "🌐",
		Description: browserNavigateDescription,
		Kind:        registry.KindFetch,
		Title: func(args map[string]any) string {
			if u, ok := args["url"].(string); ok && u != "" {
				return u
			}
			return browserNavigateName
		},
		Preview: browserPreview,
		Render:  browserRender,
	}, Params: browserNavigateParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserNavigateParams) (registry.Result, error) {
			return browserNavigate(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_navigate.md
var browserNavigateDescription string

type browserNavigateParams struct {
	URL string `json:"url" schema:"required" desc:"The URL to navigate to (e.g., 'https://example.com')"`
}

// browserNavigateResult is hermes's navigate result.
type browserNavigateResult struct {
	Success        bool             `json:"success"`
	URL            string           `json:"url"`
	Title          string           `json:"title"`
	Snapshot       string           `json:"snapshot,omitempty"`
	ElementCount   int              `json:"element_count"`
	PendingDialogs []browser.Dialog `json:"pending_dialogs,omitempty"`
	// BlockedRequests are the page's requests the URL policy refused while
	// it loaded (hermes-acp's addition).
	BlockedRequests []browser.Refusal `json:"blocked_requests,omitempty"`
}

func browserNavigate(ctx context.Context, s browserDeps, _ *registry.Call, p *browserNavigateParams) (registry.Result, error) {
	url := strings.TrimSpace(p.URL)
	if url == "" {
		return registry.Failed(browserFail{Error: "url is required"}), nil
	}
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	nav, snap, err := b.NavigateAndSnapshot(ctx, url)
	var blocked *browser.BlockedError
	if err != nil && (nav.URL == "" || errors.As(err, &blocked)) {
		return browserError(s, err, ""), nil
	}
	// A snapshot that failed after the navigation leaves it out.
	return registry.OK(browserNavigateResult{Success: true, URL: nav.URL, Title: nav.Title, Snapshot: snap.Text,
		ElementCount: snap.Elements, PendingDialogs: nav.Dialogs, BlockedRequests: nav.Blocked}), nil
}
