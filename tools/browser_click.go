package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_click clicks the element of a ref from the latest snapshot and
// waits for a navigation the click starts.
var _ = register(registry.Entry{
	Name:        "browser_click",
	Toolset:     browserToolset,
	Emoji:       "👆",
	Description: browserClickDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"ref": map[string]any{
				"type":        "string",
				"description": "The element reference from the snapshot (e.g., '@e5', '@e12')",
			},
		},
		"required": []any{"ref"},
	},
	Check:   browserCheck,
	Kind:    registry.KindExecute,
	Title:   named("browser_click"),
	Preview: browserPreview,
	Render:  browserRender,
}, handle(browserClick))

//go:embed browser_click.md
var browserClickDescription string

type browserRefParams struct {
	Ref string `json:"ref"`
}

type browserClickResult struct {
	Success        bool             `json:"success"`
	Clicked        string           `json:"clicked"`
	PendingDialogs []browser.Dialog `json:"pending_dialogs,omitempty"`
}

func browserClick(ctx context.Context, s *session, _ *registry.Call, p *browserRefParams) (registry.Result, error) {
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	ref := atRef(p.Ref)
	if err := b.Click(ctx, ref); err != nil {
		return s.browserError(err, ref), nil
	}
	return registry.OK(browserClickResult{Success: true, Clicked: ref, PendingDialogs: dialogsOf(b)}), nil
}
