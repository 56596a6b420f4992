package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// childPrompt marks a delegated child's request: its system prompt.
const childPrompt = "You are a focused subagent"

// isChild reports whether req comes from a delegated child.
func isChild(req model.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, childPrompt)
}

// goalOf is a child's goal: its first user message.
func goalOf(req model.Request) string {
	for _, m := range req.Messages {
		if m.Role == model.RoleUser {
			return m.Content
		}
	}
	return ""
}

// replyNo is the position of the reply req asks for in its conversation.
func replyNo(req model.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == model.RoleAssistant {
			n++
		}
	}
	return n
}

// delegateModel answers the parent's requests with parent and the
// children's with child, by conversation.
func delegateModel(parent func(n int, req model.Request) *model.Reply, child func(ctx context.Context, req model.Request) (*model.Reply, error)) *fakeModel {
	return &fakeModel{reply: func(ctx context.Context, _ int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if isChild(req) {
			return child(ctx, req)
		}
		return parent(replyNo(req), req), nil
	}}
}

// delegateCall is a parent reply calling delegate_task with args.
func delegateCall(args string) *model.Reply {
	return toolReply(model.ToolCall{ID: "call_d", Name: "delegate_task", Arguments: args})
}

// delegateHarness has the agent's own tools, echo, and the test write_file
// bound to each session's Env.
func delegateHarness(t *testing.T, fm *fakeModel, d agent.DelegationOptions, perm func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome) *harness {
	t.Helper()
	reg := echoRegistry(t)
	if err := reg.RegisterAll(agent.Tools()...); err != nil {
		t.Fatal(err)
	}
	return newHarness(t, fm, harnessOptions{reg: reg, bound: editTools(), perm: perm, opts: agent.Options{Delegation: d}})
}

// delegateResults decodes the delegate_task result the parent's model read.
type delegateOut struct {
	Results []struct {
		TaskIndex    int      `json:"task_index"`
		Status       string   `json:"status"`
		Summary      string   `json:"summary"`
		Error        string   `json:"error"`
		APICalls     int      `json:"api_calls"`
		ExitReason   string   `json:"exit_reason"`
		FilesChanged []string `json:"files_changed"`
		ToolTrace    []struct {
			Tool   string `json:"tool"`
			Status string `json:"status"`
		} `json:"tool_trace"`
	} `json:"results"`
	Error string `json:"error"`
}

// delegateResultOf finds the delegate_task result in the parent's requests.
func delegateResultOf(t *testing.T, fm *fakeModel) delegateOut {
	t.Helper()
	for _, req := range fm.requests() {
		if isChild(req) {
			continue
		}
		for _, m := range req.Messages {
			if m.Role == model.RoleTool && m.ToolCallID == "call_d" {
				var out delegateOut
				if err := json.Unmarshal([]byte(m.Content), &out); err != nil {
					t.Fatalf("delegate_task result is not JSON: %v\n%s", err, m.Content)
				}
				return out
			}
		}
	}
	t.Fatal("the parent's model never read a delegate_task result")
	return delegateOut{}
}

func toolNames(req model.Request) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	return out
}

func TestDelegateChildStartsFreshAndItsSummaryReachesTheParent(t *testing.T) {
	t.Parallel()
	var childReqs []model.Request
	var mu sync.Mutex
	fm := delegateModel(func(n int, req model.Request) *model.Reply {
		if n == 0 {
			return delegateCall(`{"goal":"Count the Go files","context":"They live under src/."}`)
		}
		return &model.Reply{Text: "The child says: " + lastMessage(req).Content, FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		mu.Lock()
		childReqs = append(childReqs, req)
		mu.Unlock()
		return &model.Reply{Text: "Found 3 Go files.", FinishReason: model.Stop}, nil
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{}, nil)
	sid := h.newSession("")
	if stop := h.prompt(sid, "the secret parent words: zebra"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	if len(childReqs) != 1 {
		t.Fatalf("child model requests = %d, want 1", len(childReqs))
	}
	first := childReqs[0]
	if len(first.Messages) != 2 || first.Messages[0].Role != model.RoleSystem || first.Messages[1].Role != model.RoleUser {
		t.Fatalf("the child's first request is not [system, user]: %+v", first.Messages)
	}
	sys := first.Messages[0].Content
	if !strings.Contains(sys, "YOUR TASK:\nCount the Go files") || !strings.Contains(sys, "CONTEXT:\nThey live under src/.") {
		t.Errorf("child system prompt lacks the goal and context:\n%s", sys)
	}
	if first.Messages[1].Content != "Count the Go files" {
		t.Errorf("child user message = %q, want the goal", first.Messages[1].Content)
	}
	for _, m := range first.Messages {
		if strings.Contains(m.Content, "zebra") {
			t.Errorf("the child saw the parent's conversation: %q", m.Content)
		}
	}
	names := toolNames(first)
	for _, blocked := range []string{"delegate_task", "memory", "todo"} {
		if slices.Contains(names, blocked) {
			t.Errorf("a leaf child is offered %s: %v", blocked, names)
		}
	}
	if !slices.Contains(names, "echo") || !slices.Contains(names, "write_file") {
		t.Errorf("the child lacks the parent's other tools: %v", names)
	}
	out := delegateResultOf(t, fm)
	if len(out.Results) != 1 || out.Results[0].Status != "completed" || out.Results[0].Summary != "Found 3 Go files." ||
		out.Results[0].ExitReason != "completed" || out.Results[0].APICalls != 1 {
		t.Fatalf("delegate_task result = %+v", out)
	}
	var started *acp.ToolCall
	var final *acp.ToolCallUpdate
	for _, u := range h.editor.Updates(sid) {
		if tc := u.Update.ToolCall; tc != nil && tc.ToolCallID == "call_d" {
			started = tc
		}
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallID == "call_d" && tu.Status == acp.StatusCompleted {
			final = tu
		}
	}
	if started == nil || started.Title != "delegate: Count the Go files" {
		t.Fatalf("delegate_task tool_call = %+v", started)
	}
	if final == nil || len(final.Content) == 0 || !strings.Contains(contentText(final.Content), "✅ completed") ||
		!strings.Contains(contentText(final.Content), "1 of 1 task completed") {
		t.Fatalf("delegate_task completion = %+v", final)
	}
}

// contentText joins the text of tool call content.
func contentText(cs []acp.ToolCallContent) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Content != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// childToolCalls are the tool_call announcements of delegated children.
func childToolCalls(h *harness, sid string) []*acp.ToolCall {
	var out []*acp.ToolCall
	for _, u := range h.editor.Updates(sid) {
		if tc := u.Update.ToolCall; tc != nil && tc.ToolCallID != "call_d" {
			out = append(out, tc)
		}
	}
	return out
}

func parentOf(tc *acp.ToolCall) string {
	h, _ := tc.Meta["hermes"].(map[string]any)
	p, _ := h["parentToolCallId"].(string)
	return p
}

func TestDelegateBatchRunsConcurrentlyWithinTheLimit(t *testing.T) {
	t.Parallel()
	const n = 2
	var inFlight, peak atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"tasks":[{"goal":"task A"},{"goal":"task B"}]}`)
		}
		return &model.Reply{Text: "done", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		if replyNo(req) == 0 {
			// Every child waits here until all of them are in flight: a
			// batch that ran its children one by one would never get past.
			now := inFlight.Add(1)
			for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
			}
			if now == n {
				once.Do(func() { close(all) })
			}
			select {
			case <-all:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			inFlight.Add(-1)
			return toolReply(model.ToolCall{ID: "c1", Name: "echo", Arguments: fmt.Sprintf(`{"text":%q}`, goalOf(req))}), nil
		}
		return &model.Reply{Text: "summary of " + goalOf(req), FinishReason: model.Stop}, nil
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{MaxConcurrent: n}, nil)
	sid := h.newSession("")
	if stop := h.prompt(sid, "go"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	if peak.Load() != n {
		t.Errorf("children in flight at once = %d, want %d", peak.Load(), n)
	}
	out := delegateResultOf(t, fm)
	if len(out.Results) != n {
		t.Fatalf("results = %+v", out)
	}
	for i, r := range out.Results {
		want := "summary of task " + string(rune('A'+i))
		if r.TaskIndex != i || r.Status != "completed" || r.Summary != want || len(r.ToolTrace) != 1 || r.ToolTrace[0].Tool != "echo" {
			t.Errorf("result %d = %+v, want %q", i, r, want)
		}
	}
	calls := childToolCalls(h, sid)
	titles := map[string]bool{}
	for _, tc := range calls {
		titles[tc.Title] = true
		if parentOf(tc) != "call_d" {
			t.Errorf("child call %s lacks _meta.hermes.parentToolCallId call_d: %+v", tc.ToolCallID, tc.Meta)
		}
	}
	if !titles["[1] echo"] || !titles["[2] echo"] || len(calls) != 2 {
		t.Errorf("child tool calls = %v, want [1] echo and [2] echo", titles)
	}
}

func TestDelegateRefusesMoreTasksThanMaxConcurrent(t *testing.T) {
	t.Parallel()
	var children atomic.Int32
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"tasks":[{"goal":"a"},{"goal":"b"},{"goal":"c"}]}`)
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		children.Add(1)
		return &model.Reply{Text: "x", FinishReason: model.Stop}, nil
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{MaxConcurrent: 2}, nil)
	h.prompt(h.newSession(""), "go")
	out := delegateResultOf(t, fm)
	if !strings.Contains(out.Error, "Too many tasks: 3 provided, but max_concurrent is 2") {
		t.Errorf("error = %q", out.Error)
	}
	if children.Load() != 0 {
		t.Errorf("%d children ran for a refused batch", children.Load())
	}
}

func TestDelegateLeafCannotDelegateNorWriteMemoryNorPlan(t *testing.T) {
	t.Parallel()
	var childTools []string
	var results []model.Message
	var mu sync.Mutex
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"goal":"try everything","role":"orchestrator"}`)
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		if replyNo(req) == 0 {
			childTools = toolNames(req)
			return toolReply(
				model.ToolCall{ID: "a", Name: "delegate_task", Arguments: `{"goal":"deeper"}`},
				model.ToolCall{ID: "b", Name: "memory", Arguments: `{"action":"add","target":"memory","content":"x"}`},
				model.ToolCall{ID: "c", Name: "todo", Arguments: `{"todos":[{"id":"1","content":"x","status":"pending"}]}`},
			), nil
		}
		results = append(results, req.Messages[len(req.Messages)-3:]...)
		return &model.Reply{Text: "could not", FinishReason: model.Stop}, nil
	})
	// max_depth 1: the orchestrator role degrades to leaf.
	h := delegateHarness(t, fm, agent.DelegationOptions{}, nil)
	sid := h.newSession("")
	h.prompt(sid, "go")
	for _, name := range []string{"delegate_task", "memory", "todo"} {
		if slices.Contains(childTools, name) {
			t.Errorf("leaf child offered %s: %v", name, childTools)
		}
	}
	if len(results) != 3 {
		t.Fatalf("child tool results = %+v", results)
	}
	for _, m := range results {
		if !m.IsError || !strings.Contains(m.Content, "Unknown tool: "+m.Name) {
			t.Errorf("blocked %s ran for the child: %s", m.Name, m.Content)
		}
	}
	for _, u := range h.editor.Updates(sid) {
		if u.Update.Plan != nil {
			t.Errorf("a child's todo changed the session's plan: %+v", u.Update.Plan)
		}
	}
}

func TestDelegateOrchestratorNestsUpToMaxDepth(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	tools := map[string][]string{}
	prompts := map[string]string{}
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"goal":"lead","role":"orchestrator"}`)
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		goal := goalOf(req)
		mu.Lock()
		defer mu.Unlock()
		if replyNo(req) == 0 {
			tools[goal] = toolNames(req)
			prompts[goal] = req.Messages[0].Content
		}
		switch {
		case goal == "lead" && replyNo(req) == 0:
			return toolReply(model.ToolCall{ID: "g", Name: "delegate_task", Arguments: `{"goal":"work","role":"orchestrator"}`}), nil
		case goal == "work" && replyNo(req) == 0:
			return toolReply(model.ToolCall{ID: "e", Name: "echo", Arguments: `{"text":"hi"}`}), nil
		case goal == "work":
			return &model.Reply{Text: "worker done", FinishReason: model.Stop}, nil
		}
		return &model.Reply{Text: "lead got: " + lastMessage(req).Content, FinishReason: model.Stop}, nil
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{MaxDepth: 2}, nil)
	sid := h.newSession("")
	h.prompt(sid, "go")
	if !slices.Contains(tools["lead"], "delegate_task") || !strings.Contains(prompts["lead"], "Orchestrator Role") {
		t.Errorf("the orchestrator child cannot delegate: tools %v", tools["lead"])
	}
	if slices.Contains(tools["work"], "delegate_task") || strings.Contains(prompts["work"], "Orchestrator Role") {
		t.Errorf("the grandchild at max_depth can delegate: tools %v", tools["work"])
	}
	out := delegateResultOf(t, fm)
	if len(out.Results) != 1 || !strings.Contains(out.Results[0].Summary, "worker done") {
		t.Fatalf("the grandchild's summary did not reach the parent through the orchestrator: %+v", out)
	}
	var echo *acp.ToolCall
	for _, tc := range childToolCalls(h, sid) {
		if strings.HasSuffix(tc.Title, "echo") {
			echo = tc
		}
	}
	if echo == nil || echo.Title != "[1] [1] echo" || parentOf(echo) == "call_d" || !strings.HasPrefix(parentOf(echo), "call_d.") {
		t.Errorf("grandchild call = %+v, want title [1] [1] echo under the orchestrator's delegate_task call", echo)
	}
}

func TestDelegateIterationBudgetStopsTheChild(t *testing.T) {
	t.Parallel()
	var childCalls atomic.Int32
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"goal":"loop forever"}`)
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		n := childCalls.Add(1)
		return toolReply(model.ToolCall{ID: "e", Name: "echo", Arguments: fmt.Sprintf(`{"text":"%d"}`, n)}), nil
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{MaxIterations: 3}, nil)
	h.prompt(h.newSession(""), "go")
	if childCalls.Load() != 3 {
		t.Errorf("child model calls = %d, want the budget of 3", childCalls.Load())
	}
	r := delegateResultOf(t, fm).Results[0]
	if r.Status != "failed" || r.ExitReason != "max_iterations" || r.APICalls != 3 || !strings.Contains(r.Error, "budget of 3 model calls") {
		t.Errorf("result = %+v", r)
	}
}

func TestDelegateChildEditAsksTheSameSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer string
		want   string // file content after
	}{{"reject", "old\n"}, {"allow", "new\n"}} {
		t.Run(tc.answer, func(t *testing.T) {
			t.Parallel()
			fm := delegateModel(func(k int, req model.Request) *model.Reply {
				if k == 0 {
					return delegateCall(`{"goal":"edit a.txt"}`)
				}
				return &model.Reply{Text: "ok", FinishReason: model.Stop}
			}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
				if replyNo(req) == 0 {
					return toolReply(model.ToolCall{ID: "w", Name: "write_file", Arguments: `{"path":"a.txt","content":"new\n"}`}), nil
				}
				return &model.Reply{Text: "edited: " + lastMessage(req).Content, FinishReason: model.Stop}, nil
			})
			var asked []*acp.RequestPermissionRequest
			var mu sync.Mutex
			h := delegateHarness(t, fm, agent.DelegationOptions{}, func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
				mu.Lock()
				asked = append(asked, req)
				mu.Unlock()
				return acp.PermissionOutcome{OptionID: tc.answer}
			})
			dir := t.TempDir()
			file := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sid := h.newSession(dir)
			h.prompt(sid, "go")
			if len(asked) != 1 {
				t.Fatalf("permission requests = %d, want 1", len(asked))
			}
			p := asked[0]
			if p.SessionID != sid || p.ToolCall.Title == nil || !strings.HasPrefix(*p.ToolCall.Title, "[1] Approve edit: ") ||
				len(p.ToolCall.Content) == 0 || p.ToolCall.Content[0].Diff == nil {
				t.Errorf("permission request = %+v", p.ToolCall)
			}
			if hm, _ := p.ToolCall.Meta["hermes"].(map[string]any); hm["parentToolCallId"] != "call_d" {
				t.Errorf("permission request meta = %+v", p.ToolCall.Meta)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			r := delegateResultOf(t, fm).Results[0]
			wantFiles := []string{}
			if tc.answer == "allow" {
				wantFiles = []string{"a.txt"}
			}
			if !slices.Equal(r.FilesChanged, wantFiles) {
				t.Errorf("files_changed = %v, want %v", r.FilesChanged, wantFiles)
			}
		})
	}
}

func TestDelegateCancelMidBatchEndsEveryChild(t *testing.T) {
	t.Parallel()
	const n = 3
	var started, ended atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"tasks":[{"goal":"a"},{"goal":"b"},{"goal":"c"}]}`)
		}
		return &model.Reply{Text: "should not run", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		if started.Add(1) == n {
			once.Do(func() { close(all) })
		}
		<-ctx.Done()
		ended.Add(1)
		return nil, ctx.Err()
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{}, nil)
	sid := h.newSession("")
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "go") }()
	select {
	case <-all:
	case <-h.ctx().Done():
		t.Fatal("the three children never ran at once")
	}
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Fatalf("stop = %s, want cancelled", stop)
	}
	// The turn returned only after every child's model call had ended.
	if ended.Load() != n {
		t.Errorf("children ended before the turn returned = %d, want %d", ended.Load(), n)
	}
	for _, req := range fm.requests() {
		if !isChild(req) && replyNo(req) > 0 {
			t.Errorf("the parent's model was asked again after the cancel")
		}
	}
	var final *acp.ToolCallUpdate
	for _, u := range h.editor.Updates(sid) {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallID == "call_d" && tu.Status == acp.StatusFailed {
			final = tu
		}
	}
	if final == nil {
		t.Errorf("the delegate_task call was not failed by the cancel")
	}
}

// hermes §9: delegate_task {goal: 123} must not raise; the call keeps its
// kind and the model learns what is wrong.
func TestDelegateBadArgumentsAreToolErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"goal":123}`, "Provide either 'goal' (single task) or 'tasks' (batch)."},
		{`{}`, "Provide either 'goal' (single task) or 'tasks' (batch)."},
		{`{"tasks":["just a string"]}`, "Task 0 must be an object, got str."},
		{`{"tasks":[{"context":"no goal"}]}`, "Task 0 is missing a 'goal'."},
		// The pipeline's coercion makes a bare string a one-item list.
		{`{"tasks":"not json"}`, "Task 0 must be an object, got str."},
	} {
		t.Run(tc.args, func(t *testing.T) {
			t.Parallel()
			fm := delegateModel(func(k int, req model.Request) *model.Reply {
				if k == 0 {
					return delegateCall(tc.args)
				}
				return &model.Reply{Text: "ok", FinishReason: model.Stop}
			}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
				t.Error("a child ran for bad arguments")
				return &model.Reply{Text: "x", FinishReason: model.Stop}, nil
			})
			h := delegateHarness(t, fm, agent.DelegationOptions{}, nil)
			sid := h.newSession("")
			if stop := h.prompt(sid, "go"); stop != acp.StopEndTurn {
				t.Fatalf("stop = %s", stop)
			}
			if out := delegateResultOf(t, fm); !strings.Contains(out.Error, tc.want) {
				t.Errorf("error = %q, want %q", out.Error, tc.want)
			}
			var start *acp.ToolCall
			for _, u := range h.editor.Updates(sid) {
				if u.Update.ToolCall != nil {
					start = u.Update.ToolCall
				}
			}
			if start == nil || start.Kind != acp.KindOther || start.Title == "" {
				t.Errorf("start = %+v", start)
			}
		})
	}
}

func TestDelegateDescriptionFollowsTheLimitsAndTheEnabledTools(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("hi", emit), nil
	}}
	h := delegateHarness(t, fm, agent.DelegationOptions{MaxConcurrent: 5, MaxDepth: 2, MaxIterations: 7, Model: "small-model"}, nil)
	h.prompt(h.newSession(""), "hi")
	var def *model.ToolDef
	for _, d := range fm.requests()[0].Tools {
		if d.Name == "delegate_task" {
			def = &d
		}
	}
	if def == nil {
		t.Fatal("delegate_task not offered")
	}
	for _, want := range []string{"up to 5 items", "max_depth=2", "up to 7 model calls", `"small-model"`, "CANNOT call: delegate_task, memory, todo."} {
		if !strings.Contains(def.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, def.Description)
		}
	}
	for _, absent := range []string{"execute_code", "clarify", "send_message"} {
		if strings.Contains(def.Description, absent) {
			t.Errorf("description names %s, which the session lacks", absent)
		}
	}
	props := def.Parameters["properties"].(map[string]any)
	tasks := props["tasks"].(map[string]any)
	if !strings.Contains(tasks["description"].(string), "up to 5") {
		t.Errorf("tasks description = %v", tasks["description"])
	}
	for _, k := range []string{"goal", "context", "tasks", "role"} {
		if _, ok := props[k]; !ok {
			t.Errorf("schema lacks %s", k)
		}
	}
}

// The children run on delegation.model when it is set.
func TestDelegateChildUsesTheDelegationModel(t *testing.T) {
	t.Parallel()
	var childModel, parentModel string
	var mu sync.Mutex
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		mu.Lock()
		parentModel = req.Model
		mu.Unlock()
		if k == 0 {
			return delegateCall(`{"goal":"g"}`)
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		mu.Lock()
		childModel = req.Model
		mu.Unlock()
		return &model.Reply{Text: "x", FinishReason: model.Stop}, nil
	})
	h := delegateHarness(t, fm, agent.DelegationOptions{Model: "cheap-model"}, nil)
	h.prompt(h.newSession(""), "go")
	if childModel != "cheap-model" || parentModel != "fake-model" {
		t.Errorf("child model %q, parent model %q", childModel, parentModel)
	}
}

// A session with execute_code: the description routes mechanical work to it
// and lists it among the tools a leaf cannot call, and children lack it.
func TestDelegateExecuteCodeIsNamedAndBlockedWhenEnabled(t *testing.T) {
	t.Parallel()
	var childTools []string
	var mu sync.Mutex
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		if k == 0 {
			return delegateCall(`{"tasks":"[{\"goal\":\"from a JSON string\"}]"}`)
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		mu.Lock()
		childTools = toolNames(req)
		mu.Unlock()
		return &model.Reply{Text: "ran: " + goalOf(req), FinishReason: model.Stop}, nil
	})
	reg := echoRegistry(t)
	if err := reg.RegisterAll(append(agent.Tools(), registry.Entry{Name: "execute_code", Toolset: "code_execution",
		Handler: func(context.Context, *registry.Call) (registry.Result, error) { return registry.OK("{}"), nil }})...); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, fm, harnessOptions{reg: reg})
	h.prompt(h.newSession(""), "go")
	var desc string
	for _, d := range fm.requests()[0].Tools {
		if d.Name == "delegate_task" {
			desc = d.Description
		}
	}
	if !strings.Contains(desc, "use execute_code") || !strings.Contains(desc, "CANNOT call: delegate_task, memory, execute_code, todo.") {
		t.Errorf("description does not name execute_code:\n%s", desc)
	}
	if slices.Contains(childTools, "execute_code") || !slices.Contains(childTools, "echo") {
		t.Errorf("child tools = %v", childTools)
	}
	if r := delegateResultOf(t, fm).Results; len(r) != 1 || r[0].Summary != "ran: from a JSON string" {
		t.Errorf("tasks given as a JSON string: %+v", r)
	}
}

// stateTools record reads and writes in their Env's state and check it, as
// the file tools do.
func stateTools() []envTool {
	schema := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}
	tool := func(name string, run func(env *agent.Env, p workspace.Path) string) envTool {
		return envTool{
			entry: registry.Entry{Name: name, Toolset: "test", Schema: schema},
			handler: func(env *agent.Env) registry.Handler {
				return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
					path, _ := c.String("path")
					p, err := env.Workspace().Resolve(path)
					if err != nil {
						return registry.Error(err.Error()), nil
					}
					return registry.OK(map[string]string{"said": run(env, p)}), nil
				}
			},
		}
	}
	return []envTool{
		tool("note_read", func(env *agent.Env, p workspace.Path) string {
			b, _ := os.ReadFile(p.Abs())
			env.State().RecordRead(p, b, false)
			return "read"
		}),
		tool("rewrite", func(env *agent.Env, p workspace.Path) string {
			b := []byte("rewritten by the child, longer than before\n")
			_ = os.WriteFile(p.Abs(), b, 0o644)
			env.State().RecordWrite(p, b)
			return "written"
		}),
		tool("stale_check", func(env *agent.Env, p workspace.Path) string { return env.State().CheckStale(p) }),
	}
}

// A child keeps its own read/write state: a file it rewrites after the
// parent read it is stale for the parent (hermes's concurrent-agent guard).
func TestDelegateChildWriteMakesTheParentsReadStale(t *testing.T) {
	t.Parallel()
	fm := delegateModel(func(k int, req model.Request) *model.Reply {
		switch k {
		case 0:
			return toolReply(model.ToolCall{ID: "r", Name: "note_read", Arguments: `{"path":"a.txt"}`})
		case 1:
			return delegateCall(`{"goal":"rewrite a.txt"}`)
		case 2:
			return toolReply(model.ToolCall{ID: "s", Name: "stale_check", Arguments: `{"path":"a.txt"}`})
		}
		return &model.Reply{Text: "ok", FinishReason: model.Stop}
	}, func(ctx context.Context, req model.Request) (*model.Reply, error) {
		if replyNo(req) == 0 {
			return toolReply(model.ToolCall{ID: "w", Name: "rewrite", Arguments: `{"path":"a.txt"}`}), nil
		}
		return &model.Reply{Text: "rewrote it", FinishReason: model.Stop}, nil
	})
	reg := registry.New(nil)
	if err := reg.RegisterAll(agent.Tools()...); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, fm, harnessOptions{reg: reg, bound: stateTools()})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.prompt(h.newSession(dir), "go")
	reqs := fm.requests()
	last := lastMessage(reqs[len(reqs)-1])
	if last.ToolCallID != "s" || !strings.Contains(last.Content, "was modified since you last read it") {
		t.Errorf("the parent's staleness check after the child's write = %q, want the warning", last.Content)
	}
}
