package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_click clicks the element of a ref from the latest snapshot and
// waits for a navigation the click starts.
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_click",
		Toolset:     browserToolset,
		Emoji:       "👆",
		Description: browserClickDescription,
		Kind:        registry.KindExecute,
		Title:       named("browser_click"),
		Preview:     browserPreview,
		Render:      browserRender,
	}, Params: browserRefParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserRefParams) (registry.Result, error) {
			return browserClick(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_click.md
var browserClickDescription string

type browserRefParams struct {
	Ref string `json:"ref" schema:"required" desc:"The element reference from the snapshot (e.g., '@e5', '@e12')"`
}

type browserClickResult struct {
	Success        bool             `json:"success"`
	Clicked        string           `json:"clicked"`
	PendingDialogs []browser.Dialog `json:"pending_dialogs,omitempty"`
}

func browserClick(ctx context.Context, s browserDeps, _ *registry.Call, p *browserRefParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	ref := atRef(p.Ref)
	if err := b.Click(ctx, ref); err != nil {
		return browserError(s, err, ref), nil
	}
	return registry.OK(browserClickResult{Success: true, Clicked: ref, PendingDialogs: dialogsOf(b)}), nil
}
