package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_get_images lists the page's images: src, alt and natural size,
// without data: URIs.
var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_get_images",
		Toolset:     browserToolset,
		Emoji:       "🖼️",
		Description: browserGetImagesDescription,
		Kind:        registry.KindRead,
		ReadOnly:    true,
		Title:       named("browser_get_images"),
		Preview:     browserPreview,
		Render:      browserRender,
	}, Params: browserNoParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserNoParams) (registry.Result, error) {
			return browserGetImages(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_get_images.md
var browserGetImagesDescription string

type browserImagesResult struct {
	Success bool            `json:"success"`
	Images  []browser.Image `json:"images"`
	Count   int             `json:"count"`
}

func browserGetImages(ctx context.Context, s browserDeps, _ *registry.Call, _ *browserNoParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	images, err := b.Images(ctx)
	if err != nil {
		return browserError(s, err, ""), nil
	}
	return registry.OK(browserImagesResult{Success: true, Images: images, Count: len(images)}), nil
}
