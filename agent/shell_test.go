package agent_test

import (
	"context"
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

// approvalRecorder is a "run" tool that asks the agent whether its command
// may run and records the decisions (the real terminal tool does the same
// before running anything).
type approvalRecorder struct {
	mu        sync.Mutex
	decisions []agent.CommandApproval
}

func (r *approvalRecorder) tools() []envTool {
	return []envTool{{
		entry: registry.Entry{
			Name: "run", Toolset: "test", Kind: registry.KindExecute,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}},
			Title:  func(args map[string]any) string { s, _ := args["command"].(string); return "run: " + s },
		},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				cmd, _ := c.String("command")
				d := env.ApproveCommand(ctx, c.ID, agent.CommandRequest{Command: cmd})
				r.mu.Lock()
				r.decisions = append(r.decisions, d)
				r.mu.Unlock()
				if !d.Allowed {
					return registry.Error(d.Message), nil
				}
				return registry.OK(map[string]string{"ran": cmd, "approval": d.Approval}), nil
			}
		},
	}}
}

func (r *approvalRecorder) last(t *testing.T) agent.CommandApproval {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.decisions) == 0 {
		t.Fatal("the tool never ran")
	}
	return r.decisions[len(r.decisions)-1]
}

// runModel asks for one "run" call per prompt, with the prompt's text as
// the command, then ends the turn.
func runModel() *fakeModel {
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
		return toolReply(model.ToolCall{ID: id, Name: "run", Arguments: fmt.Sprintf(`{"command":%q}`, last.Content)}), nil
	}}
}

func optionIDs(req acp.RequestPermissionRequest) []string {
	var ids []string
	for _, o := range req.Options {
		ids = append(ids, o.OptionID)
	}
	return ids
}

func TestCommandApprovalOptionsAndRequest(t *testing.T) {
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools()})
	sid := h.newSession("")

	// hermes's order, with "always" narrowed to the exact command, plus the
	// prefix entry that keeps the dangerous part.
	cmd := "rm -rf build"
	v := danger.Check(cmd)
	if !v.Dangerous || v.Hardline {
		t.Fatalf("the test needs a dangerous, approvable command: %+v", v)
	}
	h.prompt(sid, cmd)
	perms := h.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(perms))
	}
	p := perms[0]
	want := []string{"allow_once", "allow_session", "allow_always", "allow_prefix", "deny", "deny_always"}
	if got := optionIDs(p); !slices.Equal(got, want) {
		t.Errorf("options = %v, want %v", got, want)
	}
	names := map[string]string{}
	for _, o := range p.Options {
		names[o.OptionID] = o.Name
	}
	if names["allow_always"] != "Always allow this exact command" || names["allow_prefix"] != "Always allow `rm -rf build/*`" {
		t.Errorf("always options = %q / %q, want the exact command and `rm -rf build/*` (never `rm`)", names["allow_always"], names["allow_prefix"])
	}
	if p.ToolCall.Kind != acp.KindExecute || p.ToolCall.Status != acp.StatusPending {
		t.Errorf("permission tool call kind/status = %q/%q, want execute/pending", p.ToolCall.Kind, p.ToolCall.Status)
	}
	// The title is the command; the body the reason, and nothing twice.
	if p.ToolCall.Title == nil || *p.ToolCall.Title != cmd {
		t.Errorf("permission title = %v, want the command %q", p.ToolCall.Title, cmd)
	}
	if got := commandPermissionText(p); got != "Needs approval: recursive delete." {
		t.Errorf("permission content = %q, want the reason alone", got)
	}
	if d := rec.last(t); !d.Allowed || d.Approval != agent.ApprovedOnce {
		t.Errorf("decision = %+v, want allowed once (the fake editor picks allow_once)", d)
	}

	// With shell operators there is no prefix to offer: exactly hermes's.
	h.prompt(sid, "cd sub && "+cmd)
	perms = h.editor.Permissions()
	want = []string{"allow_once", "allow_session", "allow_always", "deny", "deny_always"}
	if got := optionIDs(perms[len(perms)-1]); !slices.Equal(got, want) {
		t.Errorf("options with operators = %v, want %v", got, want)
	}

	// A compound command shows every danger, each once.
	compound := "rm -rf build && git push --force origin main"
	h.prompt(sid, compound)
	perms = h.editor.Permissions()
	last := perms[len(perms)-1]
	wantText := "Needs approval:\n- recursive delete\n- git force push (rewrites remote history)"
	if got := commandPermissionText(last); got != wantText {
		t.Errorf("compound content = %q, want %q", got, wantText)
	}
	if last.ToolCall.Title == nil || *last.ToolCall.Title != compound {
		t.Errorf("compound title = %v", last.ToolCall.Title)
	}
	// A long command is cut in the title and shown whole once, in the body.
	long := "rm -rf build-" + strings.Repeat("x", 200)
	h.prompt(sid, long)
	perms = h.editor.Permissions()
	last = perms[len(perms)-1]
	if last.ToolCall.Title == nil || len(*last.ToolCall.Title) > 120 || !strings.HasSuffix(*last.ToolCall.Title, "...") {
		t.Errorf("long title = %v, want it cut to 120 characters", last.ToolCall.Title)
	}
	if got := commandPermissionText(last); strings.Count(got, long) != 1 || !strings.HasPrefix(got, "Needs approval: recursive delete.") {
		t.Errorf("long content = %q, want the reason and the whole command once", got)
	}
}

func commandPermissionText(p acp.RequestPermissionRequest) string {
	if len(p.ToolCall.Content) != 1 || p.ToolCall.Content[0].Content == nil || p.ToolCall.Content[0].Content.Text == nil {
		return fmt.Sprintf("%+v", p.ToolCall.Content)
	}
	return p.ToolCall.Content[0].Content.Text.Text
}

func TestCommandApprovalAnswers(t *testing.T) {
	cmd := "rm -rf build"
	for _, tc := range []struct {
		answer       acp.PermissionOutcome
		allowed      bool
		approval     string
		asksNextTime bool
	}{
		{acp.PermissionOutcome{OptionID: "allow_once"}, true, agent.ApprovedOnce, true},
		{acp.PermissionOutcome{OptionID: "allow_session"}, true, agent.ApprovedSession, false},
		{acp.PermissionOutcome{OptionID: "deny"}, false, "", true},
		{acp.PermissionOutcome{OptionID: "deny_always"}, false, "", true}, // persists nothing, as hermes
		{acp.PermissionOutcome{Cancelled: true}, false, "", true},
		{acp.PermissionOutcome{OptionID: "not-offered"}, false, "", true},
	} {
		name := tc.answer.OptionID
		if tc.answer.Cancelled {
			name = "cancelled"
		}
		t.Run(name, func(t *testing.T) {
			rec := &approvalRecorder{}
			h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(),
				perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome { return tc.answer }})
			sid := h.newSession("")
			h.prompt(sid, cmd)
			d := rec.last(t)
			if d.Allowed != tc.allowed || d.Approval != tc.approval {
				t.Fatalf("decision = %+v, want allowed=%v approval=%q", d, tc.allowed, tc.approval)
			}
			if !tc.allowed && d.Message != danger.DeniedMessage() {
				t.Errorf("the model reads %q, want hermes's %q", d.Message, danger.DeniedMessage())
			}
			// The same danger again, in the same session.
			h.prompt(sid, "rm -rf dist")
			asked := len(h.editor.Permissions()) == 2
			if asked != tc.asksNextTime {
				t.Errorf("asked again = %v, want %v", asked, tc.asksNextTime)
			}
			// A new session never inherits a session approval.
			other := h.newSession("")
			before := len(h.editor.Permissions())
			h.prompt(other, cmd)
			if len(h.editor.Permissions()) != before+1 {
				t.Error("a new session did not ask")
			}
		})
	}
}

func TestCommandApprovalTimeoutDenies(t *testing.T) {
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(),
		opts:  agent.Options{ApprovalTimeout: 50e6},
		stall: func(m string) bool { return m == "session/request_permission" }})
	sid := h.newSession("")
	h.prompt(sid, "rm -rf build")
	d := rec.last(t)
	if d.Allowed || !strings.Contains(d.Message, "silence is not consent") || !strings.HasPrefix(d.Message, danger.DeniedMessage()) {
		t.Errorf("decision = %+v, want denied with hermes's message and the timeout", d)
	}
}

func TestCommandAllowAlwaysIsSavedAndHonoured(t *testing.T) {
	var saved []string
	var mu sync.Mutex
	save := func(e string) error { mu.Lock(); saved = append(saved, e); mu.Unlock(); return nil }
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{SaveAllowlist: save},
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			return acp.PermissionOutcome{OptionID: "allow_always"}
		}})
	sid := h.newSession("")
	cmd := "rm -rf build"
	h.prompt(sid, cmd)
	if d := rec.last(t); !d.Allowed || d.Approval != agent.ApprovedAlways {
		t.Fatalf("decision = %+v, want allowed always", d)
	}
	if !slices.Equal(saved, []string{cmd}) {
		t.Fatalf("saved = %q, want the exact command %q", saved, cmd)
	}
	// Every session of this agent runs the same command without asking;
	// another command with the same danger still asks.
	h.prompt(h.newSession(""), cmd)
	if n := len(h.editor.Permissions()); n != 1 {
		t.Errorf("permission requests = %d, want 1 (always covers other sessions)", n)
	}
	h.prompt(h.newSession(""), "rm -rf src")
	if n := len(h.editor.Permissions()); n != 2 {
		t.Errorf("permission requests = %d, want 2: the exact entry does not cover rm -rf src", n)
	}
	rec2 := &approvalRecorder{}
	h2 := newHarness(t, runModel(), harnessOptions{bound: rec2.tools(), opts: agent.Options{CommandAllowlist: saved}})
	h2.prompt(h2.newSession(""), cmd)
	if n := len(h2.editor.Permissions()); n != 0 {
		t.Errorf("after a restart: permission requests = %d, want 0", n)
	}
	if d := rec2.last(t); !d.Allowed || d.Approval != agent.ApprovedAllowlist {
		t.Errorf("after a restart: decision = %+v, want allowed by the allowlist", d)
	}
}

func TestCommandAllowPrefix(t *testing.T) {
	var saved []string
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{SaveAllowlist: func(e string) error { saved = append(saved, e); return nil }},
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			return acp.PermissionOutcome{OptionID: "allow_prefix"}
		}})
	sid := h.newSession("")
	h.prompt(sid, "rm -rf build")
	if !slices.Equal(saved, []string{"rm -rf build/*"}) {
		t.Fatalf("saved = %q, want [rm -rf build/*]", saved)
	}
	for _, tc := range []struct {
		cmd  string
		asks bool
	}{
		{"rm -rf build/out", false},
		{"rm -rf build", false},
		{"rm -rf src", true},
		{"rm -rf build/../src", true},
		{"rm -rf build/out src", true},
		{"rm -rf build/out; git push --force", true},
	} {
		before := len(h.editor.Permissions())
		h.prompt(sid, tc.cmd)
		if asked := len(h.editor.Permissions()) > before; asked != tc.asks {
			t.Errorf("after `rm -rf build/*`: %q asked = %v, want %v", tc.cmd, asked, tc.asks)
		}
	}

	saved = nil
	h.prompt(sid, "git push --force origin main")
	if !slices.Equal(saved, []string{"git push --force *"}) {
		t.Fatalf("saved = %q, want [git push --force *]", saved)
	}
	before := len(h.editor.Permissions())
	h.prompt(sid, "git push --force origin other")
	if n := len(h.editor.Permissions()); n != before {
		t.Errorf("the prefix does not cover the second push")
	}
	// The prefix never covers a command with operators.
	h.prompt(sid, "git push --force origin main; echo done")
	if n := len(h.editor.Permissions()); n != before+1 {
		t.Errorf("permission requests = %d, want %d: operators are never covered by a prefix", n, before+1)
	}
}

// TestEveryDangerCounts: approving one danger for the session approves
// only that danger; a compound command that has another still asks, and
// the request names only what is still uncovered.
func TestEveryDangerCounts(t *testing.T) {
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(),
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			return acp.PermissionOutcome{OptionID: "allow_session"}
		}})
	sid := h.newSession("")
	h.prompt(sid, "rm -rf build")
	h.prompt(sid, "rm -rf dist")
	if n := len(h.editor.Permissions()); n != 1 {
		t.Fatalf("permission requests = %d, want 1: the session approved recursive deletes", n)
	}
	h.prompt(sid, "rm -rf out && git push --force origin main")
	perms := h.editor.Permissions()
	if len(perms) != 2 {
		t.Fatalf("permission requests = %d, want 2: the force push is another danger", len(perms))
	}
	if got := commandPermissionText(perms[1]); got != "Needs approval: git force push (rewrites remote history)." {
		t.Errorf("second request = %q, want only the force push", got)
	}
	// An allowlist entry covers only its own danger too.
	rec2 := &approvalRecorder{}
	h2 := newHarness(t, runModel(), harnessOptions{bound: rec2.tools(), opts: agent.Options{CommandAllowlist: []string{"recursive delete"}},
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			return acp.PermissionOutcome{OptionID: "deny"}
		}})
	sid2 := h2.newSession("")
	h2.prompt(sid2, "rm -rf build")
	if d := rec2.last(t); !d.Allowed || d.Approval != agent.ApprovedAllowlist {
		t.Errorf("rm -rf build with the key allowed = %+v", d)
	}
	h2.prompt(sid2, "rm -rf build; git reset --hard")
	if d := rec2.last(t); d.Allowed || len(h2.editor.Permissions()) != 1 {
		t.Errorf("the key entry covered git reset --hard too: %+v", d)
	}
}

func TestCommandHardlineAndModes(t *testing.T) {
	// approvals.mode off approves everything but the hardline floor.
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{ApprovalsOff: true}})
	sid := h.newSession("")
	h.prompt(sid, "rm -rf build")
	if d := rec.last(t); !d.Allowed || d.Approval != agent.ApprovedOff {
		t.Errorf("approvals off: %+v, want allowed (approvals off)", d)
	}
	h.prompt(sid, "rm -rf /")
	if d := rec.last(t); d.Allowed || !d.Hardline || !strings.Contains(d.Message, "BLOCKED (hardline)") {
		t.Errorf("hardline under approvals off: %+v, want refused by the floor", d)
	}
	if n := len(h.editor.Permissions()); n != 0 {
		t.Errorf("permission requests = %d, want 0", n)
	}

	// dont_ask is about edits: a dangerous command still asks; a safe one
	// never does.
	rec2 := &approvalRecorder{}
	h2 := newHarness(t, runModel(), harnessOptions{bound: rec2.tools()})
	sid2 := h2.newSession("")
	if err := h2.editor.Call(h2.ctx(), "session/set_mode", &acp.SetSessionModeRequest{SessionID: sid2, ModeID: agent.ModeDontAsk}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	h2.prompt(sid2, "go test ./...")
	if d := rec2.last(t); !d.Allowed || d.Approval != "" {
		t.Errorf("safe command: %+v, want allowed without approval", d)
	}
	h2.prompt(sid2, "rm -rf build")
	if n := len(h2.editor.Permissions()); n != 1 {
		t.Errorf("dont_ask: permission requests = %d, want 1", n)
	}
}

// TestAllowlistCommand: /allowlist lists the stored entries with what each
// covers, /context shows them, and /allowlist remove takes one out of every
// session and out of the configuration file; the command asks again.
func TestAllowlistCommand(t *testing.T) {
	var removed []string
	rec := &approvalRecorder{}
	h := newHarness(t, runModel(), harnessOptions{bound: rec.tools(), opts: agent.Options{
		CommandAllowlist: []string{"rm -rf build/*", "recursive delete", "git push --force origin main"},
		RemoveAllowlist:  func(e string) error { removed = append(removed, e); return nil },
	}, perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
		return acp.PermissionOutcome{OptionID: "deny"}
	}})
	sid := h.newSession("")
	h.prompt(sid, "/allowlist")
	txt := agentText(h, sid)
	for _, want := range []string{
		"Command allowlist (3)",
		"1. `rm -rf build/*` — matching commands, for: recursive delete",
		"2. `recursive delete` — every command with this danger",
		"3. `git push --force origin main` — this exact command, for: git force push (rewrites remote history)",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("/allowlist = %q, want it to hold %q", txt, want)
		}
	}
	h.prompt(sid, "/context")
	if txt := agentText(h, sid); !strings.Contains(txt, "Command allowlist (3): `rm -rf build/*`, `recursive delete`, `git push --force origin main`") {
		t.Errorf("/context = %q, want the entries", txt[strings.LastIndex(txt, "Conversation:"):])
	}
	h.prompt(sid, "rm -rf src")
	if d := rec.last(t); !d.Allowed || d.Approval != agent.ApprovedAllowlist {
		t.Fatalf("rm -rf src with the key allowed = %+v", d)
	}
	h.prompt(sid, "/allowlist remove 2")
	if !slices.Equal(removed, []string{"recursive delete"}) {
		t.Errorf("removed from the file = %q", removed)
	}
	if txt := agentText(h, sid); !strings.Contains(txt, "Removed `recursive delete` from the command allowlist") {
		t.Errorf("reply = %q", txt)
	}
	h.prompt(sid, "rm -rf src")
	if d := rec.last(t); d.Allowed || len(h.editor.Permissions()) != 1 {
		t.Errorf("rm -rf src after the removal = %+v, want it to ask (and be denied)", d)
	}
	h.prompt(sid, "/allowlist remove `rm -rf build/*`")
	h.prompt(sid, "/allowlist remove 9")
	if txt := agentText(h, sid); !strings.Contains(txt, "There is no entry 9: the command allowlist has 1.") {
		t.Errorf("reply to a bad number = %q", txt)
	}
	if !slices.Equal(removed, []string{"recursive delete", "rm -rf build/*"}) {
		t.Errorf("removed = %q", removed)
	}
}
