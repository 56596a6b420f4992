package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// scriptRecorder is a "script" tool that asks the agent whether a script
// (its code and the commands found in it, as the prompt gives them) may
// run, as execute_code does, and records the decisions.
type scriptRecorder struct {
	mu        sync.Mutex
	decisions []agent.CommandApproval
}

func (r *scriptRecorder) tools() []envTool {
	return []envTool{{
		entry: registry.Entry{
			Name: "script", Toolset: "test", Kind: registry.KindExecute,
			Schema: map[string]any{"type": "object"},
		},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				var req agent.ScriptRequest
				if err := json.Unmarshal([]byte(c.RawArgs), &req); err != nil {
					return registry.Result{}, err
				}
				d := env.ApproveScript(ctx, c.ID, req)
				r.mu.Lock()
				r.decisions = append(r.decisions, d)
				r.mu.Unlock()
				if !d.Allowed {
					return registry.Error(d.Message), nil
				}
				return registry.OK(map[string]string{"approval": d.Approval}), nil
			}
		},
	}}
}

func (r *scriptRecorder) last(t *testing.T) agent.CommandApproval {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.decisions) == 0 {
		t.Fatal("the tool never ran")
	}
	return r.decisions[len(r.decisions)-1]
}

// scriptModel calls "script" with the prompt (a JSON ScriptRequest) as
// its arguments.
func scriptModel() *fakeModel {
	n := 0
	var mu sync.Mutex
	return &fakeModel{reply: func(ctx context.Context, _ int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		last := lastMessage(req)
		if last.Role == model.RoleTool {
			return textReply("done", emit), nil
		}
		mu.Lock()
		n++
		id := fmt.Sprintf("call-%d", n)
		mu.Unlock()
		return toolReply(model.ToolCall{ID: id, Name: "script", Arguments: last.Content}), nil
	}}
}

// script is the prompt for a script with commands.
func script(t *testing.T, code string, cmds ...agent.ScriptCommand) string {
	t.Helper()
	b, err := json.Marshal(agent.ScriptRequest{Code: code, Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func literal(line int, call, cmd string) agent.ScriptCommand {
	return agent.ScriptCommand{Line: line, Call: call, Text: cmd, Check: cmd}
}

func permissionText(p acp.RequestPermissionRequest) string {
	var b strings.Builder
	for _, c := range p.ToolCall.Content {
		if c.Content != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

func setMode(t *testing.T, h *harness, sid, mode string) {
	t.Helper()
	if err := h.editor.Call(h.ctx(), "session/set_mode", &acp.SetSessionModeRequest{SessionID: sid, ModeID: mode}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// In the default mode every script is shown and asked: its code as a
// python block, the commands it runs with their verdicts; "Allow for
// session" covers the next plain script but not a new danger.
func TestScriptApprovalDefaultModeAsks(t *testing.T) {
	rec := &scriptRecorder{}
	answer := "allow_once"
	h := newHarness(t, scriptModel(), harnessOptions{bound: rec.tools(),
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			return acp.PermissionOutcome{OptionID: answer}
		}})
	sid := h.newSession("")
	code := "import os, subprocess\nprint('hi')\nsubprocess.run(['ls', '-l'])\nos.system(cmd)\n"
	h.prompt(sid, script(t, code, literal(3, "subprocess.run", "ls -l"),
		agent.ScriptCommand{Line: 4, Call: "os.system", Hidden: true, Why: "the command is built at run time (cmd)"}))
	perms := h.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(perms))
	}
	p := perms[0]
	if got, want := optionIDs(p), []string{"allow_once", "allow_session", "deny"}; !slices.Equal(got, want) {
		t.Errorf("options = %v, want %v", got, want)
	}
	if p.ToolCall.Title == nil || *p.ToolCall.Title != "Run Python script: import os, subprocess" || p.ToolCall.Kind != acp.KindExecute {
		t.Errorf("title/kind = %v/%q", p.ToolCall.Title, p.ToolCall.Kind)
	}
	text := permissionText(p)
	for _, want := range []string{
		"Asks because: Python script (execute_code): it can run commands and change files without each step being asked; a command hidden by expansion.",
		"- line 3, `subprocess.run`: `ls -l` — no danger found\n",
		"- line 4, `os.system`: `?` — the command it runs is hidden by expansion: the command is built at run time (cmd)\n",
		"```python\n" + strings.TrimRight(code, "\n") + "\n```",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("permission text:\n%s\nwant it to contain %q", text, want)
		}
	}
	if d := rec.last(t); !d.Allowed || d.Approval != agent.ApprovedOnce {
		t.Errorf("decision = %+v, want allowed once", d)
	}

	// Once: the next script asks again; for the session: not, until a
	// script brings a danger the session did not approve.
	answer = "allow_session"
	h.prompt(sid, script(t, "print(1)"))
	h.prompt(sid, script(t, "print(2)"))
	if n := len(h.editor.Permissions()); n != 2 {
		t.Errorf("permission requests = %d, want 2 (the session approval covers the third script)", n)
	}
	if d := rec.last(t); !d.Allowed || d.Approval != "" {
		t.Errorf("decision = %+v, want allowed with nothing left to approve", d)
	}
	h.prompt(sid, script(t, "import os\nos.system('rm -rf build')", literal(2, "os.system", "rm -rf build")))
	perms = h.editor.Permissions()
	if len(perms) != 3 || !strings.Contains(permissionText(perms[2]), "Asks because: "+danger.Check("rm -rf build").Reasons()+".") {
		t.Errorf("a dangerous command after the session approval: %d requests, last %q", len(perms), permissionText(perms[len(perms)-1]))
	}
}

// accept_edits and dont_ask follow the policy for commands: a script asks
// only for a dangerous command (not covered by the allowlist or the
// session) or one hidden by expansion; the hardline floor refuses in every
// mode, hermes_tools.terminal commands included.
func TestScriptApprovalOtherModes(t *testing.T) {
	for _, mode := range []string{agent.ModeAcceptEdits, agent.ModeDontAsk} {
		t.Run(mode, func(t *testing.T) {
			rec := &scriptRecorder{}
			h := newHarness(t, scriptModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{CommandAllowlist: []string{danger.Check("git reset --hard").Keys()[0]}},
				perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
					return acp.PermissionOutcome{OptionID: "deny"}
				}})
			sid := h.newSession("")
			setMode(t, h, sid, mode)
			for _, c := range []struct {
				name    string
				cmds    []agent.ScriptCommand
				asks    bool
				allowed bool
			}{
				{"no commands", nil, false, true},
				{"a safe command", []agent.ScriptCommand{literal(1, "os.system", "ls -la")}, false, true},
				{"an allowlisted danger", []agent.ScriptCommand{literal(1, "os.system", "git reset --hard")}, false, true},
				{"a dangerous terminal() call (asked when it runs)", []agent.ScriptCommand{{Line: 1, Call: "hermes_tools.terminal", Text: "rm -rf build", Check: "rm -rf build", Tool: true}}, false, true},
				{"a dangerous command", []agent.ScriptCommand{literal(1, "os.system", "rm -rf build")}, true, false},
				{"a hidden command", []agent.ScriptCommand{{Line: 1, Call: "subprocess.run", Text: "rm {p}", Check: "rm ${HERMES_PY_VALUE}", Hidden: true, Why: "parts of the command are computed at run time"}}, true, false},
				{"the hardline floor", []agent.ScriptCommand{literal(1, "os.system", "ls"), literal(2, "subprocess.run", "rm -rf /")}, false, false},
				{"the hardline floor through terminal()", []agent.ScriptCommand{{Line: 1, Call: "hermes_tools.terminal", Text: "mkfs.ext4 /dev/sda", Check: "mkfs.ext4 /dev/sda", Tool: true}}, false, false},
			} {
				before := len(h.editor.Permissions())
				h.prompt(sid, script(t, "pass", c.cmds...))
				asked := len(h.editor.Permissions()) > before
				d := rec.last(t)
				if asked != c.asks || d.Allowed != c.allowed {
					t.Errorf("%s: asked %v allowed %v (%+v), want asked %v allowed %v", c.name, asked, d.Allowed, d, c.asks, c.allowed)
				}
				if c.name == "the hardline floor" && (!d.Hardline || !strings.Contains(d.Message, "BLOCKED (hardline)") || !strings.Contains(d.Message, "line 2, with subprocess.run: rm -rf /")) {
					t.Errorf("hardline: %+v, want the floor's message naming the line", d)
				}
				if c.asks && !c.allowed && !strings.HasPrefix(d.Message, "BLOCKED: User denied this script.") {
					t.Errorf("%s: denied with %q", c.name, d.Message)
				}
			}
		})
	}
}

// approvals.mode: off asks nothing (sessions start in dont_ask), but the
// hardline floor still refuses.
func TestScriptApprovalOff(t *testing.T) {
	rec := &scriptRecorder{}
	h := newHarness(t, scriptModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{ApprovalsOff: true}})
	sid := h.newSession("")
	setMode(t, h, sid, agent.ModeDefault)
	h.prompt(sid, script(t, "pass", literal(1, "os.system", "rm -rf build")))
	if d := rec.last(t); !d.Allowed || d.Approval != agent.ApprovedOff {
		t.Errorf("approvals off: %+v, want allowed (approvals off)", d)
	}
	h.prompt(sid, script(t, "pass", literal(1, "os.system", "rm -rf /")))
	if d := rec.last(t); d.Allowed || !d.Hardline {
		t.Errorf("hardline under approvals off: %+v, want refused", d)
	}
	if n := len(h.editor.Permissions()); n != 0 {
		t.Errorf("permission requests = %d, want 0", n)
	}
}

// A script runs as one command of the sandbox: the grants its commands
// want (npm install: the network) are decided as for a command, in every
// mode — asked with the grant answers where the sandbox confines them,
// never where it does not, given without asking by terminal.network: on —
// and a hermes_tools.terminal command asks for its own when it runs.
func TestScriptApprovalGrants(t *testing.T) {
	npm := literal(2, "os.system", "npm install")
	req := func(confines bool, cmds ...agent.ScriptCommand) string {
		b, err := json.Marshal(agent.ScriptRequest{Code: "import os\nos.system('npm install')", Commands: cmds, ConfinesNetwork: confines, ConfinesCredentials: confines})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		name, mode, policy, answer string
		prompt                     func() string
		asks, allowed, network     bool
		options                    []string
	}{
		{"accept_edits, run with the network", agent.ModeAcceptEdits, "", "allow_once", func() string { return req(true, npm) }, true, true, true,
			[]string{"allow_once", "allow_session", "allow_without", "deny"}},
		{"accept_edits, run without", agent.ModeAcceptEdits, "", "allow_without", func() string { return req(true, npm) }, true, true, false, nil},
		{"accept_edits, denied", agent.ModeAcceptEdits, "", "deny", func() string { return req(true, npm) }, true, false, false, nil},
		{"default mode: the script and the network in one request", agent.ModeDefault, "", "allow_once", func() string { return req(true, npm) }, true, true, true,
			[]string{"allow_once", "allow_session", "allow_without", "deny"}},
		{"not confined there (a backend)", agent.ModeAcceptEdits, "", "allow_once", func() string { return req(false, npm) }, false, true, false, nil},
		{"terminal.network: on", agent.ModeAcceptEdits, agent.GrantOn, "deny", func() string { return req(true, npm) }, false, true, true, nil},
		{"terminal.network: off", agent.ModeAcceptEdits, agent.GrantOff, "allow_once", func() string { return req(true, npm) }, false, true, false, nil},
		{"through hermes_tools.terminal", agent.ModeAcceptEdits, "", "deny", func() string {
			return req(true, agent.ScriptCommand{Line: 2, Call: "hermes_tools.terminal", Text: "npm install", Check: "npm install", Tool: true})
		}, false, true, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &scriptRecorder{}
			h := newHarness(t, scriptModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{Network: c.policy},
				perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
					return acp.PermissionOutcome{OptionID: c.answer}
				}})
			sid := h.newSession("")
			setMode(t, h, sid, c.mode)
			h.prompt(sid, c.prompt())
			perms := h.editor.Permissions()
			d := rec.last(t)
			if (len(perms) > 0) != c.asks || d.Allowed != c.allowed || d.Network != c.network {
				t.Fatalf("asked %d, decision %+v; want asked %v, allowed %v, network %v", len(perms), d, c.asks, c.allowed, c.network)
			}
			if c.options != nil {
				if got := optionIDs(perms[0]); !slices.Equal(got, c.options) {
					t.Errorf("options = %v, want %v", got, c.options)
				}
				text := permissionText(perms[0])
				if !strings.Contains(text, "Asks to run with the network:") || !strings.Contains(text, "`npm install`") {
					t.Errorf("permission text:\n%s\nwant the network asked for and the command listed", text)
				}
				if c.mode == agent.ModeDefault && !strings.Contains(text, "Asks because: Python script (execute_code)") {
					t.Errorf("permission text:\n%s\nwant the script's own reason too", text)
				}
				if raw, _ := perms[0].ToolCall.RawInput.(map[string]any); raw["network"] != true {
					t.Errorf("rawInput = %v, want network: true", perms[0].ToolCall.RawInput)
				}
			}
			if c.answer == "allow_without" && !strings.Contains(d.GrantNote, "without the network") {
				t.Errorf("grant note = %q, want the model told it ran without the network", d.GrantNote)
			}
		})
	}

	// For the session: the next script that wants the network asks nothing.
	rec := &scriptRecorder{}
	h := newHarness(t, scriptModel(), harnessOptions{bound: rec.tools(),
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			return acp.PermissionOutcome{OptionID: "allow_session"}
		}})
	sid := h.newSession("")
	setMode(t, h, sid, agent.ModeAcceptEdits)
	h.prompt(sid, req(true, npm))
	h.prompt(sid, req(true, npm))
	if n, d := len(h.editor.Permissions()), rec.last(t); n != 1 || !d.Allowed || !d.Network {
		t.Errorf("after allow for this session: %d requests, decision %+v; want 1 and the network granted", n, d)
	}
}
