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
)

// grantRecorder is a "run" tool whose command may ask for the network
// ({"command": …, "network": true}) in a sandbox that confines both grants,
// as the terminal tool does on this machine.
type grantRecorder struct {
	approvalRecorder
	confines bool
}

func (r *grantRecorder) tools() []envTool {
	return []envTool{{
		entry: registry.Entry{
			Name: "run", Toolset: "test", Kind: registry.KindExecute,
			Schema: map[string]any{"type": "object", "properties": map[string]any{
				"command": map[string]any{"type": "string"}, "network": map[string]any{"type": "boolean"}, "credentials": map[string]any{"type": "boolean"}}},
		},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				cmd, _ := c.String("command")
				net, _ := c.Args["network"].(bool)
				creds, _ := c.Args["credentials"].(bool)
				d := env.ApproveCommand(ctx, c.ID, agent.CommandRequest{Command: cmd, Network: net, Credentials: creds,
					ConfinesNetwork: r.confines, ConfinesCredentials: r.confines})
				r.mu.Lock()
				r.decisions = append(r.decisions, d)
				r.mu.Unlock()
				if !d.Allowed {
					return registry.Error(d.Message), nil
				}
				return registry.OK(map[string]any{"ran": cmd}), nil
			}
		},
	}}
}

// grantArgsModel calls "run" with the prompt's text as its JSON arguments.
func grantArgsModel() *fakeModel {
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
		return toolReply(model.ToolCall{ID: id, Name: "run", Arguments: last.Content}), nil
	}}
}

// TestCommandGrants: a command that asks for the network (or that the
// danger check knows needs it) asks the user in one request, with the
// dangers it has; the answers grant it once, for the session, or not; the
// configuration decides without asking; a backend that does not confine
// the network is never asked about.
func TestCommandGrants(t *testing.T) {
	type step struct {
		args    string // the run tool's arguments
		answer  string // the option picked ("": no request expected)
		allowed bool
		net     bool
		creds   bool
		note    string // in GrantNote
	}
	for _, tc := range []struct {
		name      string
		opts      agent.Options
		noConfine bool
		steps     []step
	}{
		{name: "asked once", steps: []step{
			{args: `{"command":"curl -fsS http://127.0.0.1:9/x","network":true}`, answer: "allow_once", allowed: true, net: true},
			{args: `{"command":"curl -fsS http://127.0.0.1:9/x","network":true}`, answer: "allow_once", allowed: true, net: true},
			{args: `{"command":"echo hi"}`, allowed: true},
		}},
		{name: "for the session", steps: []step{
			{args: `{"command":"npm install"}`, answer: "allow_session", allowed: true, net: true},
			{args: `{"command":"go mod download"}`, allowed: true, net: true},
			// credentials are another grant: asked again
			{args: `{"command":"git push origin main"}`, answer: "allow_once", allowed: true, net: true, creds: true},
		}},
		{name: "without", steps: []step{
			{args: `{"command":"npm install"}`, answer: "allow_without", allowed: true, note: "without the network"},
		}},
		{name: "denied", steps: []step{
			{args: `{"command":"npm install"}`, answer: "deny"},
		}},
		{name: "network on", opts: agent.Options{Network: agent.GrantOn}, steps: []step{
			{args: `{"command":"npm install"}`, allowed: true, net: true},
			{args: `{"command":"echo hi"}`, allowed: true, net: true},
			{args: `{"command":"git push"}`, answer: "allow_once", allowed: true, net: true, creds: true},
		}},
		{name: "network off", opts: agent.Options{Network: agent.GrantOff, Credentials: agent.GrantOff}, steps: []step{
			{args: `{"command":"npm install","network":true}`, allowed: true, note: "terminal.network: off"},
			{args: `{"command":"git push"}`, allowed: true, note: "terminal.credentials: off"},
		}},
		{name: "approvals off", opts: agent.Options{ApprovalsOff: true}, steps: []step{
			{args: `{"command":"npm install"}`, allowed: true, net: true},
		}},
		{name: "not confined", noConfine: true, steps: []step{
			{args: `{"command":"npm install","network":true}`, allowed: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &grantRecorder{confines: !tc.noConfine}
			var mu sync.Mutex
			answer := ""
			h := newHarness(t, grantArgsModel(), harnessOptions{bound: rec.tools(), opts: tc.opts,
				perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
					mu.Lock()
					defer mu.Unlock()
					return acp.PermissionOutcome{OptionID: answer}
				}})
			sid := h.newSession("")
			for i, s := range tc.steps {
				before := len(h.editor.Permissions())
				mu.Lock()
				answer = s.answer
				mu.Unlock()
				h.prompt(sid, s.args)
				asked := len(h.editor.Permissions()) - before
				if want := map[bool]int{true: 1, false: 0}[s.answer != ""]; asked != want {
					t.Fatalf("step %d %s: %d permission requests, want %d", i, s.args, asked, want)
				}
				d := rec.last(t)
				if d.Allowed != s.allowed || d.Network != s.net || d.Credentials != s.creds || !strings.Contains(d.GrantNote, s.note) {
					t.Errorf("step %d %s: decision %+v, want allowed %v network %v credentials %v note %q", i, s.args, d, s.allowed, s.net, s.creds, s.note)
				}
			}
		})
	}
}

// TestCommandGrantRequest: the request for a grant alone offers running
// with it once, for the session, without it, or not at all, says what the
// grant shows, and marks it in rawInput; with a danger it is one request
// for both.
func TestCommandGrantRequest(t *testing.T) {
	rec := &grantRecorder{confines: true}
	h := newHarness(t, grantArgsModel(), harnessOptions{bound: rec.tools()})
	sid := h.newSession("")
	h.prompt(sid, `{"command":"npm install"}`)
	perms := h.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(perms))
	}
	p := perms[0]
	if got, want := optionIDs(p), []string{"allow_once", "allow_session", "allow_without", "deny"}; !slices.Equal(got, want) {
		t.Errorf("options = %v, want %v", got, want)
	}
	if p.Options[0].Name != "Run with the network" || p.Options[2].Name != "Run without the network" {
		t.Errorf("option names = %q, %q", p.Options[0].Name, p.Options[2].Name)
	}
	text := commandPermissionText(p)
	if !strings.HasPrefix(text, "Asks to run with the network:") || strings.Contains(text, "Needs approval") {
		t.Errorf("request text = %q, want the network grant alone", text)
	}
	raw, _ := p.ToolCall.RawInput.(map[string]any)
	if raw["network"] != true || raw["credentials"] != nil {
		t.Errorf("rawInput = %v, want network only", p.ToolCall.RawInput)
	}

	h.prompt(sid, `{"command":"git push --force origin main"}`)
	perms = h.editor.Permissions()
	if len(perms) != 2 {
		t.Fatalf("permission requests = %d, want one for the forced push", len(perms))
	}
	p = perms[1]
	text = commandPermissionText(p)
	if !strings.HasPrefix(text, "Needs approval: ") || !strings.Contains(text, "Asks to run with the network and your credentials:") || !strings.Contains(text, "~/.ssh") {
		t.Errorf("request text = %q, want the danger and both grants", text)
	}
	if got, want := optionIDs(p), []string{"allow_once", "allow_session", "allow_without", "deny"}; !slices.Equal(got, want) {
		t.Errorf("options = %v, want %v (no always entries with grants)", got, want)
	}
	if p.Options[0].Name != "Allow once, with the network and your credentials" {
		t.Errorf("first option = %q", p.Options[0].Name)
	}
	if d := rec.last(t); !d.Allowed || !d.Network || !d.Credentials || d.Approval != agent.ApprovedOnce {
		t.Errorf("decision = %+v, want approved once with both grants", d)
	}
}
