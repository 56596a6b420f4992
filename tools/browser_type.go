package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_type replaces the text of an input field (by ref) with new text,
// as typed input.
var _ = register(registry.Entry{
	Name:        "browser_type",
	Toolset:     browserToolset,
	Emoji:       "⌨️",
	Description: browserTypeDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"ref": map[string]any{
				"type":        "string",
				"description": "The element reference from the snapshot (e.g., '@e3')",
			},
			"text": map[string]any{
				"type":        "string",
				"description": "The text to type into the field",
			},
		},
		"required": []any{"ref", "text"},
	},
	Check:   browserCheck,
	Kind:    registry.KindExecute,
	Title:   named("browser_type"),
	Preview: browserPreview,
	Render:  browserRender,
}, handle(browserType))

//go:embed browser_type.md
var browserTypeDescription string

type browserTypeParams struct {
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

type browserTypeResult struct {
	Success bool   `json:"success"`
	Typed   string `json:"typed"`
	Element string `json:"element"`
}

func browserType(ctx context.Context, s *session, _ *registry.Call, p *browserTypeParams) (registry.Result, error) {
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	ref := atRef(p.Ref)
	if err := b.Type(ctx, ref, p.Text); err != nil {
		return s.browserError(err, ref), nil
	}
	return registry.OK(browserTypeResult{Success: true, Typed: p.Text, Element: ref}), nil
}
