package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_back goes back one page in the tab's history (after the URL
// rules) and waits for it to load.
var _ = register(registry.Entry{
	Name:        "browser_back",
	Toolset:     browserToolset,
	Emoji:       "◀️",
	Description: browserBackDescription,
	Schema:      map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{}},
	Check:       browserCheck,
	Kind:        registry.KindExecute,
	Title:       named("browser_back"),
	Preview:     browserPreview,
	Render:      browserRender,
}, handle(browserBack))

//go:embed browser_back.md
var browserBackDescription string

type browserNoParams struct{}

type browserBackResult struct {
	Success bool   `json:"success"`
	URL     string `json:"url"`
}

func browserBack(ctx context.Context, s *session, _ *registry.Call, _ *browserNoParams) (registry.Result, error) {
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	nav, err := b.Back(ctx)
	if err != nil {
		return s.browserError(err, ""), nil
	}
	return registry.OK(browserBackResult{Success: true, URL: nav.URL}), nil
}
