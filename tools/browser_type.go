package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_type replaces the text of an input field (by ref) with new text,
// as typed input.
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_type",
		Toolset:     browserToolset,
		Emoji:       "⌨️",
		Description: browserTypeDescription,
		Kind:        registry.KindExecute,
		Title:       named("browser_type"),
		Preview:     browserPreview,
		Render:      browserRender,
	}, Params: browserTypeParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserTypeParams) (registry.Result, error) {
			return browserType(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_type.md
var browserTypeDescription string

type browserTypeParams struct {
	Ref  string `json:"ref" schema:"required" desc:"The element reference from the snapshot (e.g., '@e3')"`
	Text string `json:"text" schema:"required" desc:"The text to type into the field"`
}

type browserTypeResult struct {
	Success bool   `json:"success"`
	Typed   string `json:"typed"`
	Element string `json:"element"`
}

func browserType(ctx context.Context, s browserDeps, _ *registry.Call, p *browserTypeParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	ref := atRef(p.Ref)
	if err := b.Type(ctx, ref, p.Text); err != nil {
		return browserError(s, err, ref), nil
	}
	return registry.OK(browserTypeResult{Success: true, Typed: p.Text, Element: ref}), nil
}
