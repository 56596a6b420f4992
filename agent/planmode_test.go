package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// planTools is a registry with the agent's own tools and three test tools
// that record what ran: peek (read-only), scribble (an edit) and shell (a
// tool that runs its command argument).
type planTools struct {
	reg *registry.Registry
	mu  sync.Mutex
	ran []string
}

func newPlanTools(t *testing.T) *planTools {
	t.Helper()
	p := &planTools{reg: agentToolsRegistry(t)}
	record := func(what string) registry.Handler {
		return func(_ context.Context, c *registry.Call) (registry.Result, error) {
			s, _ := c.String("command")
			p.mu.Lock()
			p.ran = append(p.ran, strings.TrimSpace(what+" "+s))
			p.mu.Unlock()
			return registry.OK(map[string]string{"ok": what}), nil
		}
	}
	cmdSchema := map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}}
	err := p.reg.RegisterAll(
		registry.Entry{Name: "peek", Toolset: "test", Kind: registry.KindRead, ReadOnly: true, Handler: record("peek")},
		registry.Entry{Name: "scribble", Toolset: "test", Kind: registry.KindEdit, Handler: record("scribble")},
		registry.Entry{Name: "shell", Toolset: "test", Kind: registry.KindExecute, CommandArg: "command", Schema: cmdSchema, Handler: record("shell")},
	)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *planTools) runs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ran...)
}

// resultsByID maps the tool call ids of a request's tool messages to what
// the model read.
func resultsByID(req model.Request) map[string]model.Message {
	out := map[string]model.Message{}
	for _, m := range req.Messages {
		if m.Role == model.RoleTool {
			out[m.ToolCallID] = m
		}
	}
	return out
}

// TestPlanModeGate: in plan mode only read-only calls run — a read-only
// tool, the todo list and a read-only command — while an edit and a
// command that writes are refused with a result that says why and what to
// do; exit_plan_mode asks the user with session/request_permission (the
// plan and the todo list, the modes to go on in), and the approval
// switches the session to the chosen mode, after which the edit runs.
func TestPlanModeGate(t *testing.T) {
	t.Parallel()
	tools := newPlanTools(t)
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0:
			return toolReply(
				model.ToolCall{ID: "p1", Name: "peek", Arguments: `{}`},
				model.ToolCall{ID: "p2", Name: "scribble", Arguments: `{}`},
				model.ToolCall{ID: "p3", Name: "shell", Arguments: `{"command":"git log --oneline -3 | head"}`},
				model.ToolCall{ID: "p4", Name: "shell", Arguments: `{"command":"echo x > notes.txt"}`},
				model.ToolCall{ID: "p5", Name: "todo", Arguments: `{"todos":[{"id":"1","content":"Update the README","status":"pending"}]}`},
			), nil
		case 1:
			return toolReply(model.ToolCall{ID: "x1", Name: "exit_plan_mode", Arguments: `{"plan":"Rename the flag in main.go."}`}), nil
		case 2:
			return toolReply(model.ToolCall{ID: "w1", Name: "scribble", Arguments: `{}`}), nil
		}
		return textReply("done", emit), nil
	}}
	var perms []acp.RequestPermissionRequest
	var pmu sync.Mutex
	h := newHarness(t, fm, harnessOptions{reg: tools.reg, opts: agent.Options{Toolsets: []string{"test", "todo"}},
		perm: func(_ context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
			pmu.Lock()
			perms = append(perms, *req)
			pmu.Unlock()
			return acp.PermissionOutcome{OptionID: agent.ModeAcceptEdits}
		}})
	sid := h.newSession("")
	setMode(t, h, sid, agent.ModePlan)
	if stop := h.prompt(sid, "plan the rename"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	if got, want := tools.runs(), []string{"peek", "shell git log --oneline -3 | head", "scribble"}; !slices.Equal(got, want) {
		t.Errorf("calls that ran = %q, want %q (the edit only after the approval)", got, want)
	}
	reqs := fm.requests()
	if len(reqs) != 4 {
		t.Fatalf("model requests = %d, want 4", len(reqs))
	}
	first := resultsByID(reqs[1])
	for _, id := range []string{"p2", "p4"} {
		m := first[id]
		if !m.IsError || !strings.Contains(m.Content, "Blocked in Plan mode") || !strings.Contains(m.Content, "exit_plan_mode") {
			t.Errorf("result of %s = %s (error %v), want a Plan mode refusal that names exit_plan_mode", id, m.Content, m.IsError)
		}
	}
	if !strings.Contains(first["p4"].Content, "not read-only") {
		t.Errorf("the refused command's result %s does not say it is not read-only", first["p4"].Content)
	}
	for _, id := range []string{"p1", "p3", "p5"} {
		if first[id].IsError {
			t.Errorf("result of %s = %s, want it to have run", id, first[id].Content)
		}
	}
	if !slices.Contains(toolNamesOf(reqs[0]), "exit_plan_mode") || slices.Contains(toolNamesOf(reqs[3]), "exit_plan_mode") {
		t.Errorf("exit_plan_mode offered in plan mode: %v; after it: %v — want only in plan mode", toolNamesOf(reqs[0]), toolNamesOf(reqs[3]))
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "Plan mode") || strings.Contains(reqs[3].Messages[0].Content, "You are in Plan mode") {
		t.Errorf("the system prompt should say Plan mode while planning, and only then")
	}

	pmu.Lock()
	defer pmu.Unlock()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want 1 (the plan)", len(perms))
	}
	p := perms[0]
	if p.ToolCall.ToolCallID != "x1" || p.ToolCall.Kind != acp.KindSwitchMode {
		t.Errorf("plan approval tool call = %+v, want x1 of kind switch_mode", p.ToolCall)
	}
	var ids []string
	for _, o := range p.Options {
		ids = append(ids, o.OptionID)
	}
	if want := []string{"accept_edits", "default", "dont_ask", "plan"}; !slices.Equal(ids, want) {
		t.Errorf("plan approval options = %v, want %v", ids, want)
	}
	text := ""
	for _, c := range p.ToolCall.Content {
		if c.Content != nil && c.Content.Text != nil {
			text += c.Content.Text.Text
		}
	}
	if !strings.Contains(text, "Rename the flag in main.go.") || !strings.Contains(text, "Update the README") {
		t.Errorf("plan approval shows %q, want the plan and the todo list", text)
	}
	var res struct {
		Approved bool   `json:"approved"`
		Mode     string `json:"mode"`
	}
	if err := json.Unmarshal([]byte(resultsByID(reqs[2])["x1"].Content), &res); err != nil || !res.Approved || res.Mode != "accept_edits" {
		t.Errorf("exit_plan_mode result = %s, want approved in accept_edits", resultsByID(reqs[2])["x1"].Content)
	}
	switched := false
	for _, u := range h.editor.Updates(sid) {
		if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeID == agent.ModeAcceptEdits {
			switched = true
		}
	}
	if !switched {
		t.Errorf("no current_mode_update to accept_edits; updates %v", h.kinds(sid))
	}
}

// TestPlanModeKeepPlanning: when the user keeps planning, the model reads
// a clear refusal and the session stays in plan mode (edits still
// refused); outside plan mode exit_plan_mode asks nothing.
func TestPlanModeKeepPlanning(t *testing.T) {
	t.Parallel()
	tools := newPlanTools(t)
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0, 3:
			return toolReply(model.ToolCall{ID: "x" + string(rune('0'+n)), Name: "exit_plan_mode", Arguments: `{"plan":"Do it."}`}), nil
		case 1:
			return toolReply(model.ToolCall{ID: "w1", Name: "scribble", Arguments: `{}`}), nil
		}
		return textReply("ok", emit), nil
	}}
	asked := 0
	h := newHarness(t, fm, harnessOptions{reg: tools.reg, opts: agent.Options{Toolsets: []string{"test", "todo"}},
		perm: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
			asked++
			return acp.PermissionOutcome{OptionID: agent.ModePlan}
		}})
	sid := h.newSession("")
	setMode(t, h, sid, agent.ModePlan)
	h.prompt(sid, "plan")
	reqs := fm.requests()
	kept := resultsByID(reqs[1])["x0"]
	if !kept.IsError || !strings.Contains(kept.Content, "keep planning") || !strings.Contains(kept.Content, "still in Plan mode") {
		t.Errorf("kept planning: the model read %s, want a refusal saying it is still in Plan mode", kept.Content)
	}
	if w := resultsByID(reqs[2])["w1"]; !strings.Contains(w.Content, "Blocked in Plan mode") {
		t.Errorf("an edit after keep planning: %s, want it refused", w.Content)
	}
	if len(tools.runs()) != 0 {
		t.Errorf("ran %v in plan mode", tools.runs())
	}
	setMode(t, h, sid, agent.ModeDefault)
	h.prompt(sid, "again")
	reqs = fm.requests()
	if out := resultsByID(reqs[len(reqs)-1])["x3"]; !out.IsError || !strings.Contains(out.Content, "Not in Plan mode") {
		t.Errorf("exit_plan_mode outside plan mode: %s, want an error saying so", out.Content)
	}
	if asked != 1 {
		t.Errorf("permission requests = %d, want 1 (none outside plan mode)", asked)
	}
}
