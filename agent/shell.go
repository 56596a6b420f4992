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
	// Network and Credentials: the model asks to run it with the
	// machine's network, and with the credential places (the terminal
	// sandbox's grants; see agent/grants.go). The danger check adds the
	// needs of the programs it knows.
	Network, Credentials bool
	// ConfinesNetwork and ConfinesCredentials say which grants mean
	// something where the command runs (false for a Docker or SSH
	// backend and with the sandbox off): the others are never asked for.
	ConfinesNetwork, ConfinesCredentials bool
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
	// Network and Credentials are the sandbox grants the command runs
	// with; Asked says the user was asked for them, and GrantNote what
	// the model must know of one it wanted and does not have.
	Network, Credentials bool
	Asked                bool
	GrantNote            string
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
//
// The same request asks for the terminal sandbox's grants the command
// wants (req's, and the needs of the programs the danger check knows:
// git push, npm install …) unless terminal.network / terminal.credentials
// decide them (on, off), the session allows them already, or approvals are
// off (see agent/grants.go): "Run with the network" once or for the
// session, "Run without", or "Deny".
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
	wanted := v.Needs.Or(danger.Needs{Network: req.Network, Credentials: req.Credentials})
	wanted = danger.Needs{Network: wanted.Network && req.ConfinesNetwork, Credentials: wanted.Credentials && req.ConfinesCredentials}
	granted, wantGrants, note := s.commandGrants(wanted)
	granted = danger.Needs{Network: granted.Network && req.ConfinesNetwork, Credentials: granted.Credentials && req.ConfinesCredentials}
	allowedWith := func(how string, g danger.Needs) CommandApproval {
		d := CommandApproval{Allowed: true, Approval: how, Network: g.Network, Credentials: g.Credentials, GrantNote: note}
		if how != "" {
			d.Description = v.Reasons()
		}
		return d
	}
	allowed := func(how string) CommandApproval { return allowedWith(how, granted) }
	// how the dangers are covered without asking ("" when none)
	how := ""
	var pending []danger.Rule
	switch {
	case !v.Dangerous:
	case s.a.opts.ApprovalsOff:
		how = ApprovedOff
	default:
		entries := s.a.allowlistEntries()
		sessionKeys := s.allowed.allowedKeys()
		if len(danger.Uncovered(command, v, entries, nil)) == 0 {
			how = ApprovedAllowlist
		} else if pending = danger.Uncovered(command, v, entries, sessionKeys); len(pending) == 0 {
			how = ApprovedSession
		}
	}
	if len(pending) == 0 && !wantGrants.Any() {
		return allowed(how)
	}

	// approvals.mode: smart — the reviewer model first (agent/smartapproval.go).
	reviewed := ""
	if len(pending) > 0 && s.a.opts.ApprovalsSmart {
		reviewed = s.smartReview(ctx, command, rulesText(pending))
		if reviewed == smartApprove && !wantGrants.Any() {
			return allowed(ApprovedSmart)
		}
		if reviewed == smartApprove {
			pending = nil // the grants are the user's to give
		}
	}

	ask := newCommandAsk(command, v, pending)
	ask.grants = wantGrants
	ask.smartDenied = reviewed == smartDeny
	if t := s.tracker(callID); t != nil {
		t.announce(acp.StatusPending, nil, nil)
	}
	denied := CommandApproval{Message: danger.DeniedMessage(), Description: v.Reasons()}
	pctx, cancel, timeout := s.approvalContext(ctx)
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
		denied.Message += permissionFailed(err)
		return denied
	case res.Outcome.Cancelled:
		return denied
	}
	back := func() {
		if t := s.tracker(callID); t != nil {
			t.restoreTitle(acp.StatusInProgress)
		}
	}
	// how a dangerous command is approved by the answer
	answered := func(h string) string {
		if len(pending) == 0 {
			return how
		}
		return h
	}
	with := granted.Or(wantGrants)
	switch res.Outcome.OptionID {
	case optCmdOnce:
		back()
		d := allowedWith(answered(ApprovedOnce), with)
		d.Asked = wantGrants.Any()
		return d
	case optCmdSession:
		if ask.smartDenied {
			return denied // not offered: the reviewer denied it
		}
		for _, r := range pending {
			s.approveForSession(r.Key)
		}
		s.grantForSession(wantGrants)
		back()
		d := allowedWith(answered(ApprovedSession), with)
		d.Asked = wantGrants.Any()
		return d
	case optCmdWithout:
		if !wantGrants.Any() {
			return denied
		}
		back()
		d := allowedWith(answered(ApprovedOnce), granted)
		d.Asked = true
		d.GrantNote = strings.TrimSpace(d.GrantNote + " The user allowed the command without " + grantWords(wantGrants) + ".")
		return d
	case optCmdAlways:
		if wantGrants.Any() || ask.smartDenied {
			return denied // not offered with grants
		}
		s.a.addToAllowlist(strings.TrimSpace(command))
		back()
		return allowed(ApprovedAlways)
	case optCmdPrefix:
		if ask.prefix == "" || wantGrants.Any() || ask.smartDenied {
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
	// grants are the sandbox grants asked for with it (agent/grants.go).
	grants danger.Needs
	// smartDenied: the reviewer model of approvals.mode: smart denied the
	// command; the user may still allow it, once.
	smartDenied bool
}

// rulesText joins the keys of rules for the reviewer model.
func rulesText(rules []danger.Rule) string {
	keys := make([]string, len(rules))
	for i, r := range rules {
		keys[i] = r.Key
	}
	return strings.Join(keys, "; ")
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
	if a.smartDenied {
		b.WriteString("The smart-approval reviewer denied this command. ")
	}
	switch len(a.pending) {
	case 0:
	case 1:
		b.WriteString("Needs approval: " + a.pending[0].Key + ".")
	default:
		b.WriteString("Needs approval:")
		for _, r := range a.pending {
			b.WriteString("\n- " + r.Key)
		}
	}
	if a.grants.Any() {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(grantText(a.grants))
	}
	if title != strings.Join(strings.Fields(a.command), " ") {
		b.WriteString("\n\n```sh\n" + a.command + "\n```")
	}
	reasons := make([]any, len(a.pending))
	for i, r := range a.pending {
		reasons[i] = r.Key
	}
	raw := map[string]any{"command": a.command, "reasons": reasons}
	if a.grants.Network {
		raw["network"] = true
	}
	if a.grants.Credentials {
		raw["credentials"] = true
	}
	return acp.ToolCallUpdate{
		ToolCallID: callID,
		Title:      &title,
		Kind:       acp.KindExecute,
		Status:     acp.StatusPending,
		Content:    []acp.ToolCallContent{acp.TextContentItem(b.String())},
		RawInput:   raw,
	}
}

// options are hermes's answers, with "always allow" narrowed to the exact
// command, plus the prefix entry when there is one.
func (a commandAsk) options() []acp.PermissionOption {
	if a.smartDenied && !a.grants.Any() {
		// hermes: overriding the reviewer's DENY is once or not at all.
		return []acp.PermissionOption{
			{OptionID: optCmdOnce, Name: "Allow once", Kind: acp.AllowOnce},
			{OptionID: optCmdDeny, Name: "Deny", Kind: acp.RejectOnce},
		}
	}
	if a.grants.Any() {
		return a.grantOptions()
	}
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

// grantOptions are the answers of a request that asks for sandbox grants
// (with dangers or without): with them once or for the session, without
// them, or not at all. "Always" entries are not offered: the allowlist
// covers dangers, and terminal.network or terminal.credentials: on grants
// for good.
func (a commandAsk) grantOptions() []acp.PermissionOption {
	w := grantWords(a.grants)
	once, session, without := "Run with "+w, "Run with "+w+" for this session", "Run without "+w
	if len(a.pending) > 0 {
		once, session, without = "Allow once, with "+w, "Allow for this session, with "+w, "Allow once, without "+w
	}
	options := []acp.PermissionOption{{OptionID: optCmdOnce, Name: once, Kind: acp.AllowOnce}}
	if !a.smartDenied {
		options = append(options, acp.PermissionOption{OptionID: optCmdSession, Name: session, Kind: acp.AllowAlways})
	}
	return append(options,
		acp.PermissionOption{OptionID: optCmdWithout, Name: without, Kind: acp.AllowOnce},
		acp.PermissionOption{OptionID: optCmdDeny, Name: "Deny", Kind: acp.RejectOnce})
}

// approveForSession records that the session allows the danger key for
// the rest of its life (each danger on its own: a later command with
// another danger still asks).
func (s *Session) approveForSession(key string) {
	s.allowed.allowKey(key)
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
		a.notice(Notice{Severity: acp.NoticeWarning, Title: titleAllowlist,
			Text: fmt.Sprintf("Could not save %q to command_allowlist in the configuration file (%v): the approval holds until the agent exits.", entry, err)})
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
