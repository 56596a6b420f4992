package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/internal/diff"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Permission option ids of an edit approval.
const (
	optAllowEdit    = "allow"
	optAllowSession = "allow_session"
	optReject       = "reject"
)

// ApproveEdit shows the changes of tool call callID as diffs on the tool call
// and decides whether they may be made: automatically by the session's mode
// (accept_edits: inside the workspace roots or the temp folder; dont_ask:
// anywhere allowed), except that .git and .ssh components and .env* and id_*
// files always ask; otherwise by asking the user with
// session/request_permission, whose summary includes the Go type check of
// the call (Env.CheckTypes) when it finishes within its budget. A timeout (approvals.timeout), a cancelled
// turn, an unknown answer or a failed request all deny; the decision says
// which, and the tool tells its model.
func (e *Env) ApproveEdit(ctx context.Context, callID string, changes []workspace.Change, lints []lint.Result) workspace.Decision {
	s := e.s
	if len(changes) == 0 {
		return workspace.Decision{Denial: workspace.DenyNoChange}
	}
	content, locations := editContent(changes)
	t := s.tracker(callID)
	if t != nil {
		if !t.announce(acp.StatusPending, content, locations) {
			t.update(acp.StatusPending, content)
		}
	}
	if e.autoApproved(changes) {
		if t != nil {
			t.noteApproved(changes)
			t.update(acp.StatusInProgress, nil)
		}
		return workspace.Decision{Approved: true}
	}
	// The user is asked: the prompt includes the Go type check when it is
	// ready within its budget.
	lints = s.typeChecks.get(callID).proposal(ctx, changes, lints)
	summary, meta := lintSummary(changes, lints)
	title := "Approve edit: " + changeTitle(changes)
	if t != nil {
		title = t.label + title // a delegated child's edit says whose it is
	}
	upd := acp.ToolCallUpdate{
		ToolCallID: callID,
		Title:      &title,
		Kind:       acp.KindEdit,
		Status:     acp.StatusPending,
		Content:    append([]acp.ToolCallContent{}, content...),
		Locations:  locations,
	}
	if summary != "" {
		upd.Content = append(upd.Content, acp.TextContentItem(summary))
	}
	if meta != nil {
		upd.Meta = acp.Meta{"hermes": map[string]any{"lint": meta}}
	}
	if t != nil && t.parent != "" { // a delegated child's: name the delegate_task call too
		var m acp.Meta
		if meta != nil {
			m = acp.Meta{"lint": meta}
		}
		upd.Meta = t.hermesMeta(m)
	}
	pctx, cancel, timeout := s.approvalContext(ctx)
	defer cancel()
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  upd,
		Options: []acp.PermissionOption{
			{OptionID: optAllowEdit, Name: "Allow edit", Kind: acp.AllowOnce},
			{OptionID: optAllowSession, Name: "Allow all edits this session", Kind: acp.AllowAlways},
			{OptionID: optReject, Name: "Reject", Kind: acp.RejectOnce},
		},
	})
	deny := func(d workspace.Denial, detail string) workspace.Decision {
		return workspace.Decision{Denial: d, Detail: detail}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return deny(workspace.DenyTurnCancelled, "")
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return deny(workspace.DenyTimeout, timeout.Round(time.Second).String())
	case err != nil:
		s.a.log.Warn("permission request failed", "session", s.id, "error", err)
		return deny(workspace.DenyRequestFailed, err.Error())
	case res.Outcome.Cancelled:
		return deny(workspace.DenyEditorCancelled, "")
	}
	switch res.Outcome.OptionID {
	case optAllowEdit:
	case optAllowSession:
		s.setMode(ModeAcceptEdits, true)
	case optReject:
		return deny(workspace.DenyRejected, "")
	default:
		return deny(workspace.DenyUnknownOption, res.Outcome.OptionID)
	}
	if t != nil {
		t.noteApproved(changes)
		t.update(acp.StatusInProgress, nil)
	}
	return workspace.Decision{Approved: true}
}

// noteApproved remembers the files of approved changes: a delegated child's
// result lists the files its successful calls changed.
func (t *toolCallTracker) noteApproved(changes []workspace.Change) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range changes {
		for _, p := range []workspace.Path{c.Path, c.MoveTo} {
			if p.IsZero() {
				continue
			}
			name := p.Abs()
			if p.Root() == t.s.ws.Cwd() && !p.IsRoot() {
				name = p.Rel()
			}
			if !slices.Contains(t.changed, name) {
				t.changed = append(t.changed, name)
			}
		}
	}
}

// autoApproved applies the session's mode to the changes: every target must
// qualify.
func (e *Env) autoApproved(changes []workspace.Change) bool {
	mode := e.s.Mode()
	if asksBeforeEdits(mode) {
		return false
	}
	ws := e.s.ws
	for _, c := range changes {
		for _, p := range []workspace.Path{c.Path, c.MoveTo} {
			if p.IsZero() {
				continue
			}
			if workspace.IsSensitiveForApproval(p) {
				return false
			}
			if mode == ModeAcceptEdits && !ws.InRoots(p) && !ws.InTempDir(p) {
				return false
			}
		}
	}
	return true
}

// editContent turns changes into ACP diffs and follow-along locations.
func editContent(changes []workspace.Change) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	var content []acp.ToolCallContent
	var locs []acp.ToolCallLocation
	for _, c := range changes {
		target := c.Path
		if c.Kind == workspace.ChangeMove && !c.MoveTo.IsZero() {
			target = c.MoveTo
			content = append(content, acp.TextContentItem(fmt.Sprintf("Move %s → %s", c.Path.Abs(), c.MoveTo.Abs())))
		}
		old := c.Old
		if c.Kind == workspace.ChangeCreate {
			old = nil
		}
		content = append(content, acp.ToolCallContent{Diff: &acp.Diff{Path: target.Abs(), OldText: old, NewText: c.New}})
		line := firstChangedLine(old, c.New)
		loc := acp.ToolCallLocation{Path: target.Abs()}
		if line > 0 {
			loc.Line = &line
		}
		locs = append(locs, loc)
	}
	return content, locs
}

// firstChangedLine returns the 1-based line where old and new first differ
// (1 for a new file).
func firstChangedLine(old *string, new string) int {
	if old == nil {
		return 1
	}
	return diff.FirstChangedLine(*old, new)
}

func changeTitle(changes []workspace.Change) string {
	if len(changes) == 1 {
		c := changes[0]
		if c.Kind == workspace.ChangeMove && !c.MoveTo.IsZero() {
			return c.Path.Abs() + " → " + c.MoveTo.Abs()
		}
		return c.Path.Abs()
	}
	names := make([]string, 0, len(changes))
	for _, c := range changes {
		names = append(names, filepath.Base(c.Path.Abs()))
	}
	return fmt.Sprintf("%d files (%s)", len(changes), strings.Join(names, ", "))
}

// lintSummary is the one-line lint summary of the proposed content and the
// _meta.hermes.lint object of the permission request.
func lintSummary(changes []workspace.Change, lints []lint.Result) (string, any) {
	var lines []string
	var metas []lint.Meta
	for i, c := range changes {
		if i >= len(lints) || c.Kind == workspace.ChangeDelete {
			continue
		}
		r := lints[i]
		if r.Skipped || r.Language == lint.LanguageNone {
			continue
		}
		target := c.Path
		if c.Kind == workspace.ChangeMove && !c.MoveTo.IsZero() {
			target = c.MoveTo
		}
		sum := r.Summary()
		if len(changes) > 1 {
			sum = filepath.Base(target.Abs()) + ": " + sum
		}
		lines = append(lines, sum)
		metas = append(metas, r.Meta(lint.URI(target.URI())))
	}
	if len(metas) == 0 {
		return "", nil
	}
	return "Lint of the proposed content: " + strings.Join(lines, "; "), mergeMeta(metas)
}

// mergeMeta combines per-file lint metas into one _meta.hermes.lint object.
func mergeMeta(metas []lint.Meta) lint.Meta {
	if len(metas) == 1 {
		return metas[0]
	}
	out := lint.Meta{Status: "ok", Diagnostics: []lint.FileDiagnostics{}}
	for _, m := range metas {
		out.Introduced += m.Introduced
		out.Preexisting += m.Preexisting
		out.Diagnostics = append(out.Diagnostics, m.Diagnostics...)
		switch {
		case m.Status == "error":
			out.Status = "error"
		case m.Status == "skipped" && out.Status == "ok" && len(metas) == 1:
			out.Status = "skipped"
		}
	}
	return out
}
