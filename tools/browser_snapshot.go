package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_snapshot returns the page's accessibility tree as text, with refs
// (@e1, @e2…) for its interactive elements, numbered in document order; a
// new snapshot replaces the refs of the previous one.
// browserSnapshotName is the tool's name, for the other browser tools' hints.
const browserSnapshotName = "browser_snapshot"

var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        browserSnapshotName,
		Toolset:     browserToolset,
		Emoji:       "📸",
		Description: browserSnapshotDescription,
		Kind:        registry.KindRead,
		ReadOnly:    true,
		Title: func(args map[string]any) string {
			if full, _ := args["full"].(bool); full {
				return "snapshot (full)"
			}
			return "snapshot"
		},
		Preview: browserPreview,
		Render:  browserRender,
	}, Params: browserSnapshotParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserSnapshotParams) (registry.Result, error) {
			return browserSnapshot(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_snapshot.md
var browserSnapshotDescription string

type browserSnapshotParams struct {
	Full bool `json:"full" schema:"default=false" desc:"If true, returns complete page content. If false (default), returns compact view with interactive elements only."`
}

// browserSnapshotResult is hermes's snapshot result.
type browserSnapshotResult struct {
	Success        bool             `json:"success"`
	Snapshot       string           `json:"snapshot"`
	ElementCount   int              `json:"element_count"`
	URL            string           `json:"url,omitempty"`
	Title          string           `json:"title,omitempty"`
	PendingDialogs []browser.Dialog `json:"pending_dialogs,omitempty"`
}

func browserSnapshot(ctx context.Context, s browserDeps, _ *registry.Call, p *browserSnapshotParams) (registry.Result, error) {
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	snap, err := b.Snapshot(ctx, p.Full)
	if err != nil {
		return browserError(s, err, ""), nil
	}
	return registry.OK(browserSnapshotResult{Success: true, Snapshot: snap.Text, ElementCount: snap.Elements,
		URL: snap.URL, Title: snap.Title, PendingDialogs: snap.Dialogs}), nil
}
