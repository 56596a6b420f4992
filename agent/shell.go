package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// Permission option ids of a dangerous-command approval: hermes's, plus
// ours for a command prefix.
const (
	optCmdOnce       = "allow_once"
	optCmdSession    = "allow_session"
	optCmdAlways     = "allow_always"
	optCmdPrefix     = "allow_prefix"
	optCmdDeny       = "deny"
	optCmdDenyAlways = "deny_always"
)

// How a dangerous command was approved (CommandApproval.Approval).
const (
	ApprovedOnce      = "once"
	ApprovedSession   = "session"
	ApprovedAlways    = "always"
	ApprovedAllowlist = "allowlist"
	ApprovedOff       = "approvals off"
)

// CommandApproval is the decision on a command (see [Env.ApproveCommand]).
type CommandApproval struct {
	Allowed bool
	// Message is what the model reads when the command may not run.
	Message  string
	Hardline bool
	// Approval says how a dangerous command was approved (Approved*); ""
	// when it was not dangerous.
	Approval    string
	Description string
}

// allowlist is the agent's command_allowlist: the configuration's entries
// plus those the user added with "allow always", shared by its sessions.
type allowlist struct {
	entries []string
	save    func(entry string) error
}

// ApproveCommand decides whether command may run (hermes's
// check_all_command_guards, tools/approval.py): the hardline floor refuses
// it whatever the approvals; a command no pattern finds dangerous runs; a
// dangerous one runs when approvals.mode is off, when the allowlist or the
// session's approvals cover it, or when the user allows it in a permission
// request shown on tool call callID. A timeout (approvals.timeout), a
// cancelled turn, an unknown answer or a failed request deny. The session's
// mode never waives the check: dont_ask is about edits.
func (e *Env) ApproveCommand(ctx context.Context, callID, command string) CommandApproval {
	s := e.s
	v := danger.Check(command)
	if v.Hardline {
		s.log.Warn("command refused by the hardline floor", "session", s.id, "finding", v.Description)
		return CommandApproval{Hardline: true, Message: danger.HardlineMessage(v), Description: v.Description}
	}
	if !v.Dangerous {
		return CommandApproval{Allowed: true}
	}
	allowed := func(how string) CommandApproval {
		return CommandApproval{Allowed: true, Approval: how, Description: v.Description}
	}
	if s.a.opts.ApprovalsOff {
		return allowed(ApprovedOff)
	}
	if danger.Allowed(command, v, s.a.allowlistEntries()) {
		return allowed(ApprovedAllowlist)
	}
	s.mu.Lock()
	sessionOK := slices.Contains(s.cmdApproved, v.Key)
	s.mu.Unlock()
	if sessionOK {
		return allowed(ApprovedSession)
	}

	denied := CommandApproval{Message: danger.DeniedMessage(), Description: v.Description}
	prefix, hasPrefix := danger.Prefix(command)
	options := []acp.PermissionOption{
		{OptionID: optCmdOnce, Name: "Allow once", Kind: acp.AllowOnce},
		// ACP has no session kind; hermes marks it allow_always too.
		{OptionID: optCmdSession, Name: "Allow for session", Kind: acp.AllowAlways},
		{OptionID: optCmdAlways, Name: "Allow always", Kind: acp.AllowAlways},
	}
	if hasPrefix {
		options = append(options, acp.PermissionOption{OptionID: optCmdPrefix, Name: "Always allow commands starting with `" + prefix + "`", Kind: acp.AllowAlways})
	}
	options = append(options,
		acp.PermissionOption{OptionID: optCmdDeny, Name: "Deny", Kind: acp.RejectOnce},
		acp.PermissionOption{OptionID: optCmdDenyAlways, Name: "Deny always", Kind: acp.RejectAlways})

	if t := s.tracker(callID); t != nil {
		t.announce(acp.StatusPending, nil, nil)
	}
	title := clipTitle(v.Description + ": " + command)
	text := v.Description + "\n$ " + command
	upd := acp.ToolCallUpdate{
		ToolCallID: callID,
		Title:      &title,
		Kind:       acp.KindExecute,
		Status:     acp.StatusPending,
		Content:    []acp.ToolCallContent{acp.TextContentItem(text)},
		RawInput:   map[string]any{"command": command, "description": v.Description},
	}
	pctx, cancel, timeout := s.approvalContext(ctx)
	defer cancel()
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{SessionID: s.id, ToolCall: upd, Options: options})
	switch {
	case err != nil && ctx.Err() != nil:
		return denied
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("command approval timed out: denied", "session", s.id, "after", timeout)
		denied.Message += fmt.Sprintf(" (No answer within %s: silence is not consent.)", timeout.Round(time.Second))
		return denied
	case err != nil:
		s.log.Warn("command permission request failed: denied", "session", s.id, "error", err)
		return denied
	case res.Outcome.Cancelled:
		return denied
	}
	back := func() {
		if t := s.tracker(callID); t != nil {
			t.restoreTitle(acp.StatusInProgress)
		}
	}
	switch res.Outcome.OptionID {
	case optCmdOnce:
		back()
		return allowed(ApprovedOnce)
	case optCmdSession:
		s.approveForSession(v.Key)
		back()
		return allowed(ApprovedSession)
	case optCmdAlways:
		s.approveForSession(v.Key)
		s.a.addToAllowlist(v.Key)
		back()
		return allowed(ApprovedAlways)
	case optCmdPrefix:
		if !hasPrefix {
			return denied
		}
		s.a.addToAllowlist(danger.PrefixEntry(prefix))
		back()
		return allowed(ApprovedAlways)
	}
	// deny, deny_always (which persists nothing, as hermes) and answers
	// that were not offered.
	return denied
}

// approveForSession records that the session allows commands with the
// danger key for the rest of its life.
func (s *Session) approveForSession(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.cmdApproved, key) {
		s.cmdApproved = append(s.cmdApproved, key)
	}
}

// allowlistEntries returns the command allowlist.
func (a *Agent) allowlistEntries() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.allow.entries
}

// addToAllowlist adds entry to the command allowlist of every session and
// saves it in the configuration file, where it survives a restart.
func (a *Agent) addToAllowlist(entry string) {
	a.mu.Lock()
	if slices.Contains(a.allow.entries, entry) {
		a.mu.Unlock()
		return
	}
	a.allow.entries = append(slices.Clip(a.allow.entries), entry)
	save := a.allow.save
	a.mu.Unlock()
	if save == nil {
		return
	}
	if err := save(entry); err != nil {
		a.log.Warn("could not save the command allowlist; the approval holds until the agent exits", "entry", entry, "error", err)
		a.notice(fmt.Sprintf("Could not save %q to command_allowlist in the configuration file (%v): the approval holds until the agent exits.", entry, err))
	}
}

// clipTitle keeps a title under about 120 characters.
func clipTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > 117 {
		return string(r[:117]) + "..."
	}
	return t
}
