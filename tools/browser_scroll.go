package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_scroll scrolls the page by about half a viewport (500 pixels).
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_scroll",
		Toolset:     browserToolset,
		Emoji:       "📜",
		Description: browserScrollDescription,
		Kind:        registry.KindExecute,
		Title:       named("browser_scroll"),
		Preview:     browserPreview,
		Render:      browserRender,
	}, Params: browserScrollParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserScrollParams) (registry.Result, error) {
			return browserScroll(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_scroll.md
var browserScrollDescription string

type browserScrollParams struct {
	Direction string `json:"direction" schema:"required" enum:"up,down" desc:"Direction to scroll"`
}

type browserScrollResult struct {
	Success  bool   `json:"success"`
	Scrolled string `json:"scrolled"`
}

func browserScroll(ctx context.Context, s browserDeps, _ *registry.Call, p *browserScrollParams) (registry.Result, error) {
	if p.Direction != "up" && p.Direction != "down" {
		return registry.Failed(browserFail{Error: fmt.Sprintf("Invalid direction '%s'. Use 'up' or 'down'.", p.Direction)}), nil
	}
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	if err := b.Scroll(ctx, p.Direction == "down"); err != nil {
		return browserError(s, err, ""), nil
	}
	return registry.OK(browserScrollResult{Success: true, Scrolled: p.Direction}), nil
}
