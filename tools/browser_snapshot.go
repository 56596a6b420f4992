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

var _ = register(registry.Entry{
	Name:        browserSnapshotName,
	Toolset:     browserToolset,
	Emoji:       "📸",
	Description: browserSnapshotDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"full": map[string]any{
				"type":        "boolean",
				"description": "If true, returns complete page content. If false (default), returns compact view with interactive elements only.",
				"default":     false,
			},
		},
		"required": []any{},
	},
	Check:    browserCheck,
	Kind:     registry.KindRead,
	ReadOnly: true,
	Title: func(args map[string]any) string {
		if full, _ := args["full"].(bool); full {
			return "snapshot (full)"
		}
		return "snapshot"
	},
	Preview: browserPreview,
	Render:  browserRender,
}, handle(browserSnapshot))

//go:embed browser_snapshot.md
var browserSnapshotDescription string

type browserSnapshotParams struct {
	Full bool `json:"full"`
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

func browserSnapshot(ctx context.Context, s *session, _ *registry.Call, p *browserSnapshotParams) (registry.Result, error) {
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	snap, err := b.Snapshot(ctx, p.Full)
	if err != nil {
		return s.browserError(err, ""), nil
	}
	return registry.OK(browserSnapshotResult{Success: true, Snapshot: snap.Text, ElementCount: snap.Elements,
		URL: snap.URL, Title: snap.Title, PendingDialogs: snap.Dialogs}), nil
}
