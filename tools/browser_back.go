package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_back goes back one page in the tab's history (after the URL
// rules) and waits for it to load.
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_back",
		Toolset:     browserToolset,
		Emoji:       "◀️",
		Description: browserBackDescription,
		Kind:        registry.KindExecute,
		Title:       named("browser_back"),
		Preview:     browserPreview,
		Render:      browserRender,
	}, Params: browserNoParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserNoParams) (registry.Result, error) {
			return browserBack(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_back.md
var browserBackDescription string

type browserNoParams struct{}

type browserBackResult struct {
	Success bool   `json:"success"`
	URL     string `json:"url"`
}

func browserBack(ctx context.Context, s browserDeps, _ *registry.Call, _ *browserNoParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	nav, err := b.Back(ctx)
	if err != nil {
		return browserError(s, err, ""), nil
	}
	return registry.OK(browserBackResult{Success: true, URL: nav.URL}), nil
}
