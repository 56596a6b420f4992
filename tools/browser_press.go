package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_press presses a key on the focused element and waits for a
// navigation it starts (Enter in a form).
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_press",
		Toolset:     browserToolset,
		Emoji:       "⌨️",
		Description: browserPressDescription,
		Kind:        registry.KindExecute,
		Title:       named("browser_press"),
		Preview:     browserPreview,
		Render:      browserRender,
	}, Params: browserPressParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserPressParams) (registry.Result, error) {
			return browserPress(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_press.md
var browserPressDescription string

type browserPressParams struct {
	Key string `json:"key" schema:"required" desc:"Key to press (e.g., 'Enter', 'Tab', 'Escape', 'ArrowDown')"`
}

type browserPressResult struct {
	Success bool   `json:"success"`
	Pressed string `json:"pressed"`
}

func browserPress(ctx context.Context, s browserDeps, _ *registry.Call, p *browserPressParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	if err := b.Press(ctx, p.Key); err != nil {
		return browserError(s, err, ""), nil
	}
	return registry.OK(browserPressResult{Success: true, Pressed: p.Key}), nil
}
