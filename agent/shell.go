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
// ours for a prefix entry.
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

// CommandRequest is a command a tool wants to run.
type CommandRequest struct {
	Command string
	// Workdir is the folder it runs in (absolute, inside the workspace);
	// "" for the session's working folder.
	Workdir string
}

// CommandApproval is the decision on a command (see [Env.ApproveCommand]).
type CommandApproval struct {
	Allowed bool
	// Message is what the model reads when the command may not run.
	Message  string
	Hardline bool
	// Approval says how a dangerous command was approved (Approved*); ""
	// when it was not dangerous.
	Approval string
	// Description names the dangers found, joined ("recursive delete; git
	// force push (rewrites remote history)"); "" when none.
	Description string
}

// allowlist is the agent's command_allowlist: the configuration's entries
// plus those the user added with "always allow", shared by its sessions.
type allowlist struct {
	entries []string
	save    func(entry string) error
	remove  func(entry string) error
}

// ApproveCommand decides whether a command may run (hermes's
// check_all_command_guards, tools/approval.py, with every danger counted):
// the hardline floor refuses it whatever the approvals; a command the
// danger check finds nothing in runs; otherwise it runs when
// approvals.mode is off, or when every danger it has is covered — by an
// allowlist entry (each entry covers only its own dangers), by an earlier
// "allow for this session", or by the user's answer to a permission request
// shown on tool call callID that lists the dangers still uncovered. A
// timeout (approvals.timeout), a cancelled turn, an unknown answer or a
// failed request deny. The session's mode never waives the check: dont_ask
// is about edits.
func (e *Env) ApproveCommand(ctx context.Context, callID string, req CommandRequest) CommandApproval {
	s := e.s
	command := req.Command
	dir := req.Workdir
	if dir == "" {
		dir = s.ws.Cwd()
	}
	v := danger.Options{Dir: dir, Roots: s.ws.Roots()}.Check(command)
	if v.Hardline {
		s.log.Warn("command refused by the hardline floor", "session", s.id, "finding", v.Reasons())
		return CommandApproval{Hardline: true, Message: danger.HardlineMessage(v), Description: v.Reasons()}
	}
	if !v.Dangerous {
		return CommandApproval{Allowed: true}
	}
	allowed := func(how string) CommandApproval {
		return CommandApproval{Allowed: true, Approval: how, Description: v.Reasons()}
	}
	if s.a.opts.ApprovalsOff {
		return allowed(ApprovedOff)
	}
	entries := s.a.allowlistEntries()
	if len(danger.Uncovered(command, v, entries, nil)) == 0 {
		return allowed(ApprovedAllowlist)
	}
	s.mu.Lock()
	sessionKeys := slices.Clone(s.cmdApproved)
	s.mu.Unlock()
	pending := danger.Uncovered(command, v, entries, sessionKeys)
	if len(pending) == 0 {
		return allowed(ApprovedSession)
	}

	ask := newCommandAsk(command, v, pending)
	if t := s.tracker(callID); t != nil {
		t.announce(acp.StatusPending, nil, nil)
	}
	denied := CommandApproval{Message: danger.DeniedMessage(), Description: v.Reasons()}
	timeout := s.a.opts.ApprovalTimeout
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{SessionID: s.id, ToolCall: ask.toolCall(callID), Options: ask.options()})
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
		for _, r := range pending {
			s.approveForSession(r.Key)
		}
		back()
		return allowed(ApprovedSession)
	case optCmdAlways:
		s.a.addToAllowlist(strings.TrimSpace(command))
		back()
		return allowed(ApprovedAlways)
	case optCmdPrefix:
		if ask.prefix == "" {
			return denied
		}
		s.a.addToAllowlist(ask.prefix)
		back()
		return allowed(ApprovedAlways)
	}
	// deny, deny_always (which persists nothing, as hermes) and answers
	// that were not offered.
	return denied
}

// commandAsk is one permission request about a command: the command (the
// title), the dangers it still needs approving (the body, each once), and
// the "always allow" entry narrower than the command itself that it may
// offer.
type commandAsk struct {
	command string
	pending []danger.Rule
	prefix  string // "" when none is offered
}

func newCommandAsk(command string, v danger.Verdict, pending []danger.Rule) commandAsk {
	a := commandAsk{command: strings.TrimSpace(command), pending: pending}
	if e, ok := danger.PrefixEntry(command, v); ok {
		a.prefix = e
	}
	return a
}

// maxTitle is about how long a permission title may be before it is cut.
const maxTitle = 120

// toolCall is the request's tool call: titled with the command; its text
// lists the dangers, and repeats the command only when the title had to
// cut it.
func (a commandAsk) toolCall(callID string) acp.ToolCallUpdate {
	title := clipTitle(a.command)
	var b strings.Builder
	if len(a.pending) == 1 {
		b.WriteString("Needs approval: " + a.pending[0].Key + ".")
	} else {
		b.WriteString("Needs approval:")
		for _, r := range a.pending {
			b.WriteString("\n- " + r.Key)
		}
	}
	if title != strings.Join(strings.Fields(a.command), " ") {
		b.WriteString("\n\n```sh\n" + a.command + "\n```")
	}
	reasons := make([]any, len(a.pending))
	for i, r := range a.pending {
		reasons[i] = r.Key
	}
	return acp.ToolCallUpdate{
		ToolCallID: callID,
		Title:      &title,
		Kind:       acp.KindExecute,
		Status:     acp.StatusPending,
		Content:    []acp.ToolCallContent{acp.TextContentItem(b.String())},
		RawInput:   map[string]any{"command": a.command, "reasons": reasons},
	}
}

// options are hermes's answers, with "always allow" narrowed to the exact
// command, plus the prefix entry when there is one.
func (a commandAsk) options() []acp.PermissionOption {
	options := []acp.PermissionOption{
		{OptionID: optCmdOnce, Name: "Allow once", Kind: acp.AllowOnce},
		// ACP has no session kind; hermes marks it allow_always too.
		{OptionID: optCmdSession, Name: "Allow for this session", Kind: acp.AllowAlways},
		{OptionID: optCmdAlways, Name: "Always allow this exact command", Kind: acp.AllowAlways},
	}
	if a.prefix != "" {
		options = append(options, acp.PermissionOption{OptionID: optCmdPrefix, Name: "Always allow `" + a.prefix + "`", Kind: acp.AllowAlways})
	}
	return append(options,
		acp.PermissionOption{OptionID: optCmdDeny, Name: "Deny", Kind: acp.RejectOnce},
		acp.PermissionOption{OptionID: optCmdDenyAlways, Name: "Deny always", Kind: acp.RejectAlways})
}

// approveForSession records that the session allows the danger key for
// the rest of its life (each danger on its own: a later command with
// another danger still asks).
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

// removeFromAllowlist removes entry from the command allowlist of every
// session and from the configuration file. It reports whether the agent
// held the entry.
func (a *Agent) removeFromAllowlist(entry string) (bool, error) {
	a.mu.Lock()
	i := slices.Index(a.allow.entries, entry)
	if i >= 0 {
		a.allow.entries = slices.Delete(slices.Clone(a.allow.entries), i, i+1)
	}
	remove := a.allow.remove
	a.mu.Unlock()
	if i < 0 {
		return false, nil
	}
	if remove != nil {
		if err := remove(entry); err != nil {
			return true, err
		}
	}
	return true, nil
}

// clipTitle keeps a title under about maxTitle characters.
func clipTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > maxTitle-3 {
		return string(r[:maxTitle-3]) + "..."
	}
	return t
}
