package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_scroll scrolls the page by about half a viewport (500 pixels).
var _ = register(registry.Entry{
	Name:        "browser_scroll",
	Toolset:     browserToolset,
	Emoji:       "📜",
	Description: browserScrollDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"direction": map[string]any{
				"type":        "string",
				"enum":        []any{"up", "down"},
				"description": "Direction to scroll",
			},
		},
		"required": []any{"direction"},
	},
	Check:   browserCheck,
	Kind:    registry.KindExecute,
	Title:   named("browser_scroll"),
	Preview: browserPreview,
	Render:  browserRender,
}, handle(browserScroll))

//go:embed browser_scroll.md
var browserScrollDescription string

type browserScrollParams struct {
	Direction string `json:"direction"`
}

type browserScrollResult struct {
	Success  bool   `json:"success"`
	Scrolled string `json:"scrolled"`
}

func browserScroll(ctx context.Context, s *session, _ *registry.Call, p *browserScrollParams) (registry.Result, error) {
	if p.Direction != "up" && p.Direction != "down" {
		return registry.Failed(browserFail{Error: fmt.Sprintf("Invalid direction '%s'. Use 'up' or 'down'.", p.Direction)}), nil
	}
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	if err := b.Scroll(ctx, p.Direction == "down"); err != nil {
		return s.browserError(err, ""), nil
	}
	return registry.OK(browserScrollResult{Success: true, Scrolled: p.Direction}), nil
}
