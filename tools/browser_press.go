package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_press presses a key on the focused element and waits for a
// navigation it starts (Enter in a form).
var _ = register(registry.Entry{
	Name:        "browser_press",
	Toolset:     browserToolset,
	Emoji:       "⌨️",
	Description: browserPressDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"key": map[string]any{
				"type":        "string",
				"description": "Key to press (e.g., 'Enter', 'Tab', 'Escape', 'ArrowDown')",
			},
		},
		"required": []any{"key"},
	},
	Check:   browserCheck,
	Kind:    registry.KindExecute,
	Title:   named("browser_press"),
	Preview: browserPreview,
	Render:  browserRender,
}, handle(browserPress))

//go:embed browser_press.md
var browserPressDescription string

type browserPressParams struct {
	Key string `json:"key"`
}

type browserPressResult struct {
	Success bool   `json:"success"`
	Pressed string `json:"pressed"`
}

func browserPress(ctx context.Context, s *session, _ *registry.Call, p *browserPressParams) (registry.Result, error) {
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	if err := b.Press(ctx, p.Key); err != nil {
		return s.browserError(err, ""), nil
	}
	return registry.OK(browserPressResult{Success: true, Pressed: p.Key}), nil
}
