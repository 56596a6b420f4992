package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_get_images lists the page's images: src, alt and natural size,
// without data: URIs.
var _ = register(registry.Entry{
	Name:        "browser_get_images",
	Toolset:     browserToolset,
	Emoji:       "🖼️",
	Description: browserGetImagesDescription,
	Schema:      map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{}},
	Check:       browserCheck,
	Kind:        registry.KindRead,
	ReadOnly:    true,
	Title:       named("browser_get_images"),
	Preview:     browserPreview,
	Render:      browserRender,
}, handle(browserGetImages))

//go:embed browser_get_images.md
var browserGetImagesDescription string

type browserImagesResult struct {
	Success bool            `json:"success"`
	Images  []browser.Image `json:"images"`
	Count   int             `json:"count"`
}

func browserGetImages(ctx context.Context, s *session, _ *registry.Call, _ *browserNoParams) (registry.Result, error) {
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	images, err := b.Images(ctx)
	if err != nil {
		return s.browserError(err, ""), nil
	}
	return registry.OK(browserImagesResult{Success: true, Images: images, Count: len(images)}), nil
}
