package tools

import (
	"context"
	_ "embed"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_dialog accepts or dismisses the JavaScript dialog (alert,
// confirm, prompt, beforeunload) that blocks the page.
// browserDialogName is the tool's name, for the other browser tools' hints.
const browserDialogName = "browser_dialog"

var _ = declare(registry.Tool[browserDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        browserDialogName,
		Toolset:     browserToolset,
		Emoji:       "💬",
		Description: browserDialogDescription,
		Kind:        registry.KindExecute,
		Title: func(args map[string]any) string {
			if a, ok := args["action"].(string); ok && a != "" {
				return "dialog: " + a
			}
			return browserDialogName
		},
		Preview: browserPreview,
		Render:  browserRender,
	}, Params: browserDialogParams{}},
	New: func(d browserDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserDialogParams) (registry.Result, error) {
			return browserDialogTool(ctx, d, call, p)
		})
	},
	SharedCheck: browserDeps.BrowserCheck,
})

//go:embed browser_dialog.md
var browserDialogDescription string

type browserDialogParams struct {
	Action     string "json:\"action\" schema:\"required\" enum:\"accept,dismiss\" desc:\"'accept' clicks OK / returns the prompt text. 'dismiss' clicks Cancel / returns null from prompt(). For ``beforeunload`` dialogs: 'accept' allows the navigation, 'dismiss' keeps the page.\""
	PromptText string "json:\"prompt_text\" desc:\"Response string for a ``prompt()`` dialog. Ignored for other dialog types. Defaults to empty string.\""
	DialogID   string "json:\"dialog_id\" desc:\"Specific dialog to respond to, from ``browser_snapshot.pending_dialogs[].id``. Required only when multiple dialogs are queued.\""
}

type browserDialogResult struct {
	Success bool           `json:"success"`
	Action  string         `json:"action"`
	Dialog  browser.Dialog `json:"dialog"`
}

func browserDialogTool(ctx context.Context, s browserDeps, _ *registry.Call, p *browserDialogParams) (registry.Result, error) {
	if p.Action != "accept" && p.Action != "dismiss" {
		return registry.Failed(browserFail{Error: "action must be 'accept' or 'dismiss'"}), nil
	}
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	d, err := b.AnswerDialog(ctx, p.Action == "accept", p.PromptText, p.DialogID)
	if err != nil {
		return browserError(s, err, ""), nil
	}
	return registry.OK(browserDialogResult{Success: true, Action: p.Action, Dialog: d}), nil
}
