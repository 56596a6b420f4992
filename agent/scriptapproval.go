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

// execute_code scripts are approved like commands (issue 24): the
// commands a static look finds in the script are judged by the danger
// check one by one, and in the default mode every script is shown and
// asked, since a script can run commands and change files without each
// step being asked. The script still runs in the sandbox in every mode.

// Approval keys of a script's findings that are not danger patterns.
const (
	// scriptKey is the whole script, asked in the default mode (hermes
	// keys it by the tool's name).
	scriptKey = "python script"
	// hiddenKey is a command the static look cannot read: built at run
	// time, or run through something it does not follow.
	hiddenKey = "command hidden by expansion"
)

// scriptDescription is hermes-agent's words for the whole-script approval.
const scriptDescription = "Python script (execute_code): it can run commands and change files without each step being asked"

// ScriptCommand is one command a script runs, as the static look found it
// (the tools' ScriptCommand).
type ScriptCommand struct {
	Line int
	// Call is what runs it ("os.system", "subprocess.run").
	Call string
	// Text is the command, readable; Check the same for the danger check.
	Text, Check string
	// Hidden: not written as literals; Why says what hides it.
	Hidden bool
	Why    string
	// Tool: it goes through the terminal tool (hermes_tools.terminal),
	// which approves it again when the script calls it.
	Tool bool
}

// ScriptRequest is a script the model wants to run.
type ScriptRequest struct {
	Code     string
	Commands []ScriptCommand
	// Where names the terminal backend it runs on ("" for this machine).
	Where string
	// ConfinesNetwork and ConfinesCredentials say which sandbox grants
	// mean something where it runs (as CommandRequest's).
	ConfinesNetwork, ConfinesCredentials bool
}

// finding is one reason a script needs approval.
type finding struct {
	key, desc string
}

// ApproveScript decides whether an execute_code script may run, on tool
// call callID. The hardline floor refuses a script in which any command
// it runs (hermes_tools.terminal calls included) is on it, whatever the
// mode. Otherwise the script asks when the session is in the default mode
// (every script), or when a command it runs is dangerous — a danger
// pattern the allowlist and the session's approvals do not cover — or
// hidden (not written as literals: the check cannot see it, so it fails
// closed), in every mode; approvals.mode: off asks nothing. The
// permission request shows the script as code and, for each command, its
// line, what runs it and the verdict. "Allow for session" approves the
// request's keys (the danger patterns, hidden commands, and in the
// default mode scripts) for the session's later scripts.
//
// The script runs as one command of the terminal sandbox: the grants the
// commands it runs want (the needs of the programs the danger check knows:
// npm install, git push …) are decided for the whole script as for a
// command — terminal.network / terminal.credentials, the session's
// grants, or asked in the same request ("Run with the network", for the
// session, without, or deny), in every mode. A hermes_tools.terminal
// command asks for its own when it runs.
func (e *Env) ApproveScript(ctx context.Context, callID string, req ScriptRequest) CommandApproval {
	s := e.s
	var findings []finding
	add := func(key, desc string) {
		if !slices.ContainsFunc(findings, func(f finding) bool { return f.key == key }) {
			findings = append(findings, finding{key, desc})
		}
	}
	verdicts := make([]string, len(req.Commands))
	allow := s.a.allowlistEntries()
	var wanted danger.Needs
	for i, c := range req.Commands {
		v := danger.Verdict{}
		if c.Check != "" {
			v = danger.Options{Dir: s.ws.Cwd(), Roots: s.ws.Roots()}.Check(c.Check)
		}
		if !c.Tool {
			wanted = wanted.Or(v.Needs)
		}
		if v.Hardline {
			s.log.Warn("script refused by the hardline floor", "session", s.id, "finding", v.Reasons(), "line", c.Line)
			msg := danger.HardlineMessage(v) + fmt.Sprintf(" (The script runs it on line %d, with %s: %s)", c.Line, c.Call, c.Text)
			return CommandApproval{Hardline: true, Message: msg, Description: v.Reasons()}
		}
		switch {
		case c.Tool:
			verdicts[i] = "through the terminal tool, which asks again when it runs it"
			if v.Dangerous {
				verdicts[i] = v.Reasons() + "; " + verdicts[i]
			}
			continue
		case c.Hidden:
			verdicts[i] = "the command it runs is hidden by expansion: " + c.Why
			if v.Dangerous {
				verdicts[i] = v.Reasons() + "; " + verdicts[i]
			}
			add(hiddenKey, "a command hidden by expansion")
		case v.Dangerous && len(danger.Uncovered(c.Check, v, allow, nil)) == 0:
			verdicts[i] = v.Reasons() + " (allowed by command_allowlist)"
		case v.Dangerous:
			// every danger counts: each uncovered rule is a finding of its own
			verdicts[i] = v.Reasons()
			for _, r := range danger.Uncovered(c.Check, v, allow, nil) {
				add(r.Key, r.Key)
			}
		default:
			verdicts[i] = "no danger found"
		}
	}
	if asksBeforeEdits(s.Mode()) {
		findings = append([]finding{{scriptKey, scriptDescription}}, findings...)
	}
	allowed := s.allowed.allowedKeys()
	findings = slices.DeleteFunc(findings, func(f finding) bool { return slices.Contains(allowed, f.key) })
	descs := make([]string, len(findings))
	for i, f := range findings {
		descs[i] = f.desc
	}
	wanted = danger.Needs{Network: wanted.Network && req.ConfinesNetwork, Credentials: wanted.Credentials && req.ConfinesCredentials}
	granted, wantGrants, note := s.commandGrants(wanted)
	granted = danger.Needs{Network: granted.Network && req.ConfinesNetwork, Credentials: granted.Credentials && req.ConfinesCredentials}
	allowedWith := func(how string, g danger.Needs) CommandApproval {
		d := CommandApproval{Allowed: true, Approval: how, Network: g.Network, Credentials: g.Credentials, GrantNote: note}
		if how != "" {
			d.Description = strings.Join(descs, "; ")
		}
		return d
	}
	// The findings ask unless approvals are off; the grants ask when
	// commandGrants leaves them pending.
	asking := len(findings) > 0 && !s.a.opts.ApprovalsOff
	how := "" // how the findings are covered without asking
	if len(findings) > 0 && s.a.opts.ApprovalsOff {
		how = ApprovedOff
	}
	if !asking && !wantGrants.Any() {
		return allowedWith(how, granted)
	}
	// how the findings are approved by the answer
	answered := func(h string) string {
		if !asking {
			return how
		}
		return h
	}
	if !asking {
		findings = nil
	}

	denied := CommandApproval{Message: scriptDeniedMessage, Description: strings.Join(descs, "; ")}
	title := clipTitle("Run Python script: " + firstLine(req.Code))
	raw := map[string]any{"code": req.Code, "commands": scriptRaw(req.Commands, verdicts), "reasons": findingDescs(findings)}
	if wantGrants.Network {
		raw["network"] = true
	}
	if wantGrants.Credentials {
		raw["credentials"] = true
	}
	upd := acp.ToolCallUpdate{
		ToolCallID: callID,
		Title:      &title,
		Kind:       acp.KindExecute,
		Status:     acp.StatusPending,
		Content:    []acp.ToolCallContent{acp.TextContentItem(scriptPermissionText(req, findings, verdicts, wantGrants))},
		RawInput:   raw,
	}
	options := []acp.PermissionOption{
		{OptionID: optCmdOnce, Name: "Allow once", Kind: acp.AllowOnce},
		{OptionID: optCmdSession, Name: "Allow for session", Kind: acp.AllowAlways},
		{OptionID: optCmdDeny, Name: "Deny", Kind: acp.RejectOnce},
	}
	if wantGrants.Any() {
		options = commandAsk{pending: make([]danger.Rule, len(findings)), grants: wantGrants}.grantOptions()
	}
	if t := s.tracker(callID); t != nil {
		t.announce(acp.StatusPending, nil, nil)
	}
	pctx, cancel, timeout := s.approvalContext(ctx)
	defer cancel()
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{SessionID: s.id, ToolCall: upd, Options: options})
	switch {
	case err != nil && ctx.Err() != nil:
		return denied
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("script approval timed out: denied", "session", s.id, "after", timeout)
		denied.Message += fmt.Sprintf(" (No answer within %s: silence is not consent.)", timeout.Round(time.Second))
		return denied
	case err != nil:
		s.log.Warn("script permission request failed: denied", "session", s.id, "error", err)
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
	with := granted.Or(wantGrants)
	switch res.Outcome.OptionID {
	case optCmdOnce:
		back()
		d := allowedWith(answered(ApprovedOnce), with)
		d.Asked = wantGrants.Any()
		return d
	case optCmdSession:
		for _, f := range findings {
			s.approveForSession(f.key)
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
		d.GrantNote = strings.TrimSpace(d.GrantNote + " The user allowed the script without " + grantWords(wantGrants) + ".")
		return d
	}
	return denied
}

// findingDescs are the findings' descriptions.
func findingDescs(findings []finding) []string {
	out := make([]string, len(findings))
	for i, f := range findings {
		out[i] = f.desc
	}
	return out
}

// scriptDeniedMessage is hermes's denial, for a script.
const scriptDeniedMessage = "BLOCKED: User denied this script. The user has NOT consented to it: nothing of it ran. Do NOT retry it, " +
	"do NOT rephrase it, and do NOT attempt the same outcome via a different script or command. Stop the current " +
	"workflow and wait for the user to respond before taking any further destructive or irreversible action."

// maxShownCode bounds the code a permission request shows.
const maxShownCode = 60_000

// scriptPermissionText is the permission request's text: why it asks, the
// commands with their verdicts, and the script as code.
func scriptPermissionText(req ScriptRequest, findings []finding, verdicts []string, grants danger.Needs) string {
	var b strings.Builder
	if len(findings) > 0 {
		b.WriteString("Asks because: " + strings.Join(findingDescs(findings), "; ") + ".\n")
	}
	if grants.Any() {
		b.WriteString(grantText(grants) + "\n")
	}
	if req.Where != "" {
		b.WriteString("Runs in " + req.Where + ".\n")
	}
	if len(req.Commands) == 0 {
		b.WriteString("\nA static look found no command that it runs.\n")
	} else {
		fmt.Fprintf(&b, "\nCommands it runs (%d):\n", len(req.Commands))
		for i, c := range req.Commands {
			text := c.Text
			if text == "" {
				text = "?"
			}
			fmt.Fprintf(&b, "- line %d, `%s`: %s — %s\n", c.Line, c.Call, inlineCode(text), verdicts[i])
		}
	}
	code := req.Code
	note := ""
	if r := []rune(code); len(r) > maxShownCode {
		code = string(r[:maxShownCode])
		note = fmt.Sprintf("\n(The first %d of %d characters.)", maxShownCode, len(r))
	}
	f := codeFence(code)
	fmt.Fprintf(&b, "\n%spython\n%s\n%s%s", f, strings.TrimRight(code, "\n"), f, note)
	return b.String()
}

// scriptRaw is the commands for the request's rawInput.
func scriptRaw(cmds []ScriptCommand, verdicts []string) []map[string]any {
	out := make([]map[string]any, len(cmds))
	for i, c := range cmds {
		out[i] = map[string]any{"line": c.Line, "call": c.Call, "command": c.Text, "hidden": c.Hidden, "verdict": verdicts[i]}
	}
	return out
}

// codeFence returns a backtick fence longer than any run of backticks in s.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// inlineCode shows s as inline code on one line (newlines as ⏎).
func inlineCode(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:197]) + "..."
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + s + " " + f
	}
	return f + s + f
}
