package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_vision screenshots the visible page (with annotate, the refs
// drawn on it as [N] labels) and asks the vision model the question. The
// screenshot goes in the result's data, for the editor to show.
var _ = declare(registry.Tool[browserVisionDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_vision",
		Toolset:     browserToolset,
		Emoji:       "👁️",
		Description: browserVisionDescription,
		Kind:        registry.KindRead,
		ReadOnly:    true,
		Title: func(args map[string]any) string {
			if q, ok := args["question"].(string); ok && q != "" {
				return "analyze page: " + firstLine(q, 50)
			}
			return "browser_vision"
		},
		Preview: browserPreview,
		Render:  browserRender,
	}, Params: browserVisionParams{}},
	New: func(d browserVisionDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserVisionParams) (registry.Result, error) {
			return browserVision(ctx, d, call, p)
		})
	},
	SharedCheck: browserVisionDeps.BrowserCheck,
})

//go:embed browser_vision.md
var browserVisionDescription string

type browserVisionParams struct {
	Question string `json:"question" schema:"required" desc:"What you want to know about the page visually. Be specific about what you're looking for."`
	Annotate bool   `json:"annotate" schema:"default=false" desc:"If true, overlay numbered [N] labels on interactive elements. Each [N] maps to ref @eN for subsequent browser commands. Useful for QA and spatial reasoning about page layout."`
}

type browserVisionResult struct {
	Success     bool                 `json:"success"`
	Analysis    string               `json:"analysis"`
	Annotations []browser.Annotation `json:"annotations,omitempty"`
}

// screenshot is a tool result's image, for the editor (ACP image content on
// the tool call). It is the result's Data.
type screenshot struct {
	MIME string
	Data []byte
}

// ToolCallImage returns the image to show on the tool call.
func (s screenshot) ToolCallImage() (mime string, data []byte) { return s.MIME, s.Data }

func browserVision(ctx context.Context, s browserVisionDeps, _ *registry.Call, p *browserVisionParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	png, notes, err := b.Screenshot(ctx, p.Annotate)
	if err != nil {
		return browserError(s, err, ""), nil
	}
	shot := screenshot{MIME: "image/png", Data: png}
	vision := s.BrowserVision()
	if vision == nil {
		r := registry.Failed(browserFail{Error: "No vision model is configured, so the screenshot could not be analysed; it is shown to the user in the editor."})
		r.Data = shot
		return r, nil
	}
	analysis, err := vision(ctx, png, shot.MIME, p.Question)
	if err != nil {
		r := registry.Failed(browserFail{Error: "Error during vision analysis: " + err.Error()})
		r.Data = shot
		return r, nil
	}
	if analysis == "" {
		analysis = "Vision analysis returned no content."
	}
	return registry.Result{Value: browserVisionResult{Success: true, Analysis: analysis, Annotations: notes}, Data: shot}, nil
}

// browserVisionDeps is what browser_vision uses of its session besides
// the browser: the model that answers questions about the screenshot.
type browserVisionDeps interface {
	browserDeps
	// BrowserVision answers question about an image; nil: no vision
	// model is configured (the screenshot is still shown).
	BrowserVision() func(ctx context.Context, image []byte, mime, question string) (string, error)
}
