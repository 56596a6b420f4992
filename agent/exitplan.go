package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
)

// exit_plan_mode ends plan mode (issue #28), as the Claude adapter's
// ExitPlanMode does: the model calls it with its plan; the user sees the
// plan (the call's summary and the session's todo list) in a
// session/request_permission whose options are the modes to go on in,
// approves it by picking one — the session switches to that mode and
// tells the editor — or keeps planning, which the model reads as a clear
// refusal. It is offered only while the session is in plan mode.

// exitPlanModeName is the tool's name.
const exitPlanModeName = "exit_plan_mode"

// planToolset is the toolset of exit_plan_mode; every session enables it.
const planToolset = "plan_mode"

//go:embed exit_plan_mode.md
var exitPlanModeDescription string

// errNotPlanning is why exit_plan_mode is not offered outside plan mode.
var errNotPlanning = errors.New("only in plan mode")

type exitPlanParams struct {
	Plan string `json:"plan"`
}

// exitPlanResult is what the model reads when the user approved.
type exitPlanResult struct {
	Approved bool   `json:"approved"`
	Mode     string `json:"mode"`
	Message  string `json:"message"`
}

func exitPlanModeEntry() registry.Entry {
	return registry.Entry{
		Name:        exitPlanModeName,
		Toolset:     planToolset,
		Emoji:       "📝",
		Description: strings.TrimSpace(exitPlanModeDescription),
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"plan": map[string]any{
					"type":        "string",
					"description": "The plan to approve, in Markdown: what you will change and how you will check it. May be omitted when the todo list says it all.",
				},
			},
		},
		Kind:     registry.KindSwitchMode,
		ReadOnly: true, // it changes only the session's mode: plan mode runs it
		Title:    func(map[string]any) string { return "Exit plan mode" },
		Preview:  func(args map[string]any) string { return strings.TrimSpace(str(args, "plan")) },
		Render:   exitPlanRender,
	}
}

// exitPlanModeTool is the exit_plan_mode entry bound to session s: offered
// while s is in plan mode.
func (s *Session) exitPlanModeTool() registry.Entry {
	e := exitPlanModeEntry()
	e.Check = registry.NewCheck(func() error {
		if s.Mode() != ModePlan {
			return errNotPlanning
		}
		return nil
	})
	e.Handler = func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		var p exitPlanParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		return s.exitPlanMode(ctx, call.ID, p)
	}
	return e
}

// Option names of the plan approval, by the mode each one switches to.
var planOptions = []acp.PermissionOption{
	{OptionID: ModeAcceptEdits, Name: "Yes, and auto-accept workspace edits", Kind: acp.AllowAlways},
	{OptionID: ModeDefault, Name: "Yes, and manually approve edits", Kind: acp.AllowOnce},
	{OptionID: ModeDontAsk, Name: "Yes, and don't ask before edits", Kind: acp.AllowAlways},
	{OptionID: ModePlan, Name: "No, keep planning", Kind: acp.RejectOnce},
}

// exitPlanMode asks the user to approve the plan and switches to the mode
// they choose. The error is the turn's cancellation, nothing else.
func (s *Session) exitPlanMode(ctx context.Context, callID string, p exitPlanParams) (registry.Result, error) {
	if mode := s.Mode(); mode != ModePlan {
		return registry.Errorf("Not in Plan mode: the session is in %s mode, so there is no plan to approve. Go on with the task.", modeName(mode)), nil
	}
	s.mu.Lock()
	items := append([]todoItem(nil), s.plan...)
	s.mu.Unlock()
	text := planText(strings.TrimSpace(p.Plan), items)
	if text == "" {
		return registry.Errorf("Nothing to approve: write the plan with todo (or pass it as plan), then call %s again.", exitPlanModeName), nil
	}
	title := "Ready to code?"
	upd := acp.ToolCallUpdate{ToolCallID: callID, Title: &title, Kind: acp.KindSwitchMode, Status: acp.StatusPending,
		Content: []acp.ToolCallContent{acp.TextContentItem(text)}}
	pctx, cancel, timeout := s.approvalContext(ctx)
	defer cancel()
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{SessionID: s.id, ToolCall: upd, Options: planOptions})
	stillPlanning := " You are still in Plan mode: only read-only tools run."
	switch {
	case err != nil && ctx.Err() != nil:
		return registry.Result{}, ctx.Err() // the turn was cancelled
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return registry.Errorf("The user did not answer within %s, so the plan was not approved.%s Wait for the user's message.", timeout, stillPlanning), nil
	case err != nil:
		s.log.Warn("permission request failed", "session", s.id, "error", err)
		return registry.Errorf("The plan could not be shown to the user (%v), so it was not approved.%s", err, stillPlanning), nil
	case res.Outcome.Cancelled:
		return registry.Errorf("The user dismissed the plan without approving it.%s Wait for the user's message.", stillPlanning), nil
	}
	mode := res.Outcome.OptionID
	switch {
	case mode == ModePlan:
		return registry.Errorf("The user did not approve the plan and wants to keep planning.%s Ask what to change (or wait for the user's message), revise the plan with todo and call %s again.", stillPlanning, exitPlanModeName), nil
	case !validMode(mode):
		return registry.Errorf("The editor answered with an unknown option %q, so the plan was not approved.%s", mode, stillPlanning), nil
	}
	s.setMode(mode, true) // current_mode_update and config_option_update
	return registry.OK(exitPlanResult{Approved: true, Mode: mode,
		Message: fmt.Sprintf("The user approved your plan and switched to %s mode. You can now start: carry out the plan and keep the todo list up to date.", modeName(mode))}), nil
}

// planText is what the user approves: the model's summary, then the todo
// list as a checklist.
func planText(summary string, items []todoItem) string {
	var b strings.Builder
	b.WriteString(summary)
	if len(items) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		for _, it := range items {
			fmt.Fprintf(&b, "- %s %s\n", todoIcon(it.Status), it.Content)
		}
	}
	return strings.TrimSpace(b.String())
}

// exitPlanRender says how the request ended.
func exitPlanRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(exitPlanResult)
	if !ok {
		return ""
	}
	return fmt.Sprintf("Plan approved — mode: %s.", modeName(res.Mode))
}
