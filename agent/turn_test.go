package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// TestTurnTextToolText: text, then a tool call, then text, as in the
// conformance scenario; every update precedes the reply and the tool result
// reaches the model.
func TestTurnTextToolText(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0:
			emit(model.Delta{Thought: "I should echo."})
			emit(model.Delta{Text: "Let me check. "})
			r := toolReply(model.ToolCall{ID: "call_1", Name: "echo", Arguments: `{"text":"hi"}`})
			r.Text, r.Thought = "Let me check. ", "I should echo."
			return r, nil
		default:
			return textReply("It said hi.", emit), nil
		}
	}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t)})
	sid := h.newSession("")
	if stop := h.prompt(sid, "say hi"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	if got := h.editor.Text(sid); got != "Let me check. It said hi." {
		t.Errorf("agent text = %q", got)
	}
	if got := h.editor.Thoughts(sid); got != "I should echo." {
		t.Errorf("thoughts = %q", got)
	}
	var call *acp.ToolCall
	var done *acp.ToolCallUpdate
	for _, u := range h.editor.Updates(sid) {
		if u.Update.ToolCall != nil {
			call = u.Update.ToolCall
		}
		if u.Update.ToolCallUpdate != nil && u.Update.ToolCallUpdate.Status == acp.StatusCompleted {
			done = u.Update.ToolCallUpdate
		}
	}
	if call == nil || call.ToolCallID != "call_1" || call.Title != "echo" || call.Name != "echo" || call.Status != acp.StatusInProgress {
		t.Fatalf("tool_call = %+v, want call_1 of echo in progress", call)
	}
	if done == nil || done.ToolCallID != "call_1" {
		t.Fatalf("no completed tool_call_update for call_1; kinds %v", h.kinds(sid))
	}
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	last := lastMessage(reqs[1])
	if last.Role != model.RoleTool || last.ToolCallID != "call_1" || last.Content != `{"echo":"hi"}` {
		t.Errorf("tool result sent to the model = %+v", last)
	}
	if reqs[0].Messages[0].Role != model.RoleSystem || !strings.Contains(reqs[0].Messages[0].Content, "Workspace root") {
		t.Errorf("first message is not the system prompt: %+v", reqs[0].Messages[0])
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "echo" {
		t.Errorf("tools offered = %+v, want echo", reqs[0].Tools)
	}
	kinds := h.kinds(sid)
	if !slices.Contains(kinds, "usage_update") || !slices.Contains(kinds, "session_info_update") {
		t.Errorf("updates %v lack usage_update or session_info_update", kinds)
	}
}

// blockingModel streams one chunk and then waits for ctx or release.
func blockingModel(started chan<- int, release <-chan struct{}) *fakeModel {
	return &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		emit(model.Delta{Text: fmt.Sprintf("working on %d… ", n)})
		started <- n
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stream: %w", ctx.Err())
		case <-release:
			return &model.Reply{Text: "done", FinishReason: model.Stop}, nil
		}
	}}
}

func TestCancelDuringStreamThenNextPrompt(t *testing.T) {
	t.Parallel()
	started := make(chan int, 4)
	release := make(chan struct{})
	fm := blockingModel(started, release)
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newSession("")
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "long task") }()
	<-started
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Fatalf("cancelled prompt stop = %s, want cancelled", stop)
	}
	close(release)
	go func() { result <- h.prompt(sid, "next") }()
	<-started
	if stop := <-result; stop != acp.StopEndTurn {
		t.Fatalf("next prompt stop = %s, want end_turn", stop)
	}
	// The partial answer of the cancelled turn is kept in the history.
	reqs := fm.requests()
	msgs := reqs[len(reqs)-1].Messages
	var sawPartial bool
	for _, m := range msgs {
		if m.Role == model.RoleAssistant && strings.Contains(m.Content, "working on 0") {
			sawPartial = true
		}
	}
	if !sawPartial {
		t.Errorf("history after cancel lacks the partial answer: %+v", msgs)
	}
}

func TestIdleCancelChangesNothing(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("fine", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newSession("")
	for range 3 {
		if err := h.editor.Cancel(sid); err != nil {
			t.Fatal(err)
		}
	}
	if stop := h.prompt(sid, "hello"); stop != acp.StopEndTurn {
		t.Fatalf("stop after idle cancels = %s, want end_turn", stop)
	}
}

func TestQueuedPromptRunsAfterCurrent(t *testing.T) {
	t.Parallel()
	started := make(chan int, 4)
	release := make(chan struct{})
	fm := blockingModel(started, release)
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newSession("")
	first, second := make(chan acp.StopReason, 1), make(chan acp.StopReason, 1)
	go func() { first <- h.prompt(sid, "first") }()
	<-started
	go func() { second <- h.prompt(sid, "second") }()
	if err := h.editor.WaitFor(h.ctx(), func() bool { return strings.Contains(h.editor.Text(sid), "Queued for the next turn. (1 queued)") }); err != nil {
		t.Fatalf("no queue notice: %v; text %q", err, h.editor.Text(sid))
	}
	select {
	case n := <-started:
		t.Fatalf("model call %d started while the first turn runs", n)
	default:
	}
	close(release)
	if stop := <-first; stop != acp.StopEndTurn {
		t.Fatalf("first = %s", stop)
	}
	if stop := <-second; stop != acp.StopEndTurn {
		t.Fatalf("second = %s", stop)
	}
	reqs := fm.requests()
	if len(reqs) != 2 || lastMessage(reqs[1]).Content != "second" {
		t.Fatalf("second model call = %+v", reqs)
	}
}

func TestCancelDropsQueue(t *testing.T) {
	t.Parallel()
	started := make(chan int, 4)
	release := make(chan struct{})
	defer close(release)
	fm := blockingModel(started, release)
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newSession("")
	results := make(chan acp.StopReason, 2)
	go func() { results <- h.prompt(sid, "first") }()
	<-started
	go func() { results <- h.prompt(sid, "second") }()
	if err := h.editor.WaitFor(h.ctx(), func() bool { return strings.Contains(h.editor.Text(sid), "(1 queued)") }); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if stop := <-results; stop != acp.StopCancelled {
			t.Fatalf("stop = %s, want cancelled for both the running and the queued prompt", stop)
		}
	}
	if n := len(fm.requests()); n != 1 {
		t.Fatalf("model calls = %d, want 1 (the queued prompt must not run)", n)
	}
	// The session works normally afterwards.
	go func() { results <- h.prompt(sid, "third") }()
	<-started
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-results; stop != acp.StopCancelled {
		t.Fatalf("third = %s", stop)
	}
}

func TestStopReasons(t *testing.T) {
	t.Parallel()
	loop := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return toolReply(model.ToolCall{ID: fmt.Sprintf("c%d", n), Name: "echo", Arguments: `{"text":"again"}`}), nil
	}}
	h := newHarness(t, loop, harnessOptions{reg: echoRegistry(t), opts: agent.Options{MaxModelCalls: 3}})
	sid := h.newSession("")
	if stop := h.prompt(sid, "loop"); stop != acp.StopMaxTurnRequests {
		t.Errorf("looping model: stop = %s, want max_turn_requests", stop)
	}
	if n := len(loop.requests()); n != 3 {
		t.Errorf("model calls = %d, want 3", n)
	}
	if !strings.Contains(h.editor.Text(sid), "limit of 3 model requests") {
		t.Errorf("no explanation of the limit in %q", h.editor.Text(sid))
	}

	long := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		emit(model.Delta{Text: "cut"})
		return &model.Reply{Text: "cut", FinishReason: model.Length}, nil
	}}
	h2 := newHarness(t, long, harnessOptions{})
	if stop := h2.prompt(h2.newSession(""), "write a lot"); stop != acp.StopMaxTokens {
		t.Errorf("length stop = %s, want max_tokens", stop)
	}
}

func TestNoModelConfigured(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, harnessOptions{noModel: true})
	sid := h.newSession("")
	if stop := h.prompt(sid, "hello"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	text := h.editor.Text(sid)
	for _, want := range []string{"No language model is configured", "hermes-acp --setup", "HERMES_MODEL"} {
		if !strings.Contains(text, want) {
			t.Errorf("message %q lacks %q", text, want)
		}
	}
}

func TestModelErrorIsAnAgentMessage(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return nil, &model.Error{Kind: model.Auth, Message: "The model server rejected the API key (HTTP 401)."}
	}}
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newSession("")
	if stop := h.prompt(sid, "hello"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	if !strings.Contains(h.editor.Text(sid), "rejected the API key") {
		t.Errorf("text = %q", h.editor.Text(sid))
	}
}

func TestModesAndConfigOptionsStayInSync(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &fakeModel{}, harnessOptions{})
	ctx := h.ctx()
	res, err := h.editor.NewSessionAt(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sid := res.SessionID
	if res.Modes == nil || res.Modes.CurrentModeID != agent.ModeDefault || len(res.Modes.AvailableModes) != 4 {
		t.Fatalf("modes = %+v", res.Modes)
	}
	if got := optionValue(res.ConfigOptions, "mode"); got != "default" {
		t.Fatalf("mode option = %q", got)
	}
	if got := optionValue(res.ConfigOptions, "model"); got != "fake-model" {
		t.Fatalf("model option = %q", got)
	}
	if err := h.editor.Call(ctx, "session/set_mode", &acp.SetSessionModeRequest{SessionID: sid, ModeID: agent.ModeAcceptEdits}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.WaitUpdate(ctx, sid, func(u acp.SessionUpdate) bool {
		return u.ConfigOptionUpdate != nil && optionValue(u.ConfigOptionUpdate.ConfigOptions, "mode") == agent.ModeAcceptEdits
	}); err != nil {
		t.Errorf("set_mode did not update the mode config option: %v", err)
	}
	var cres acp.SetSessionConfigOptionResponse
	if err := h.editor.Call(ctx, "session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "mode", Value: agent.ModeDontAsk}, &cres); err != nil {
		t.Fatal(err)
	}
	if got := optionValue(cres.ConfigOptions, "mode"); got != agent.ModeDontAsk {
		t.Errorf("set_config_option result mode = %q", got)
	}
	if _, err := h.editor.WaitUpdate(ctx, sid, func(u acp.SessionUpdate) bool {
		return u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeID == agent.ModeDontAsk
	}); err != nil {
		t.Errorf("set_config_option did not send current_mode_update: %v", err)
	}
	if err := h.editor.Call(ctx, "session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "model", Value: "other-model"}, &cres); err != nil {
		t.Fatal(err)
	}
	if got := optionValue(cres.ConfigOptions, "model"); got != "other-model" {
		t.Errorf("model after switch = %q", got)
	}
	for _, tc := range []struct {
		method string
		params any
		code   int
	}{
		{"session/set_mode", &acp.SetSessionModeRequest{SessionID: sid, ModeID: "yolo"}, acp.CodeInvalidParams},
		{"session/set_mode", &acp.SetSessionModeRequest{SessionID: "sess_nope", ModeID: "default"}, acp.CodeResourceNotFound},
		{"session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "model", Value: "gpt-99"}, acp.CodeInvalidParams},
		{"session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "colour", Value: "red"}, acp.CodeInvalidParams},
	} {
		err := h.editor.Call(ctx, tc.method, tc.params, &struct{}{})
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%s %+v: error %v, want code %d", tc.method, tc.params, err, tc.code)
		}
	}
}

func optionValue(opts []acp.SessionConfigOption, id string) string {
	for _, o := range opts {
		if o.ID == id {
			return o.CurrentValue
		}
	}
	return ""
}

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("model answered", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t)})
	sid := h.newSession("")
	if _, err := h.editor.WaitUpdate(h.ctx(), sid, func(u acp.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil }); err != nil {
		t.Fatalf("no available_commands_update after session/new: %v", err)
	}
	h.prompt(sid, "/help")
	if !strings.Contains(h.editor.Text(sid), "/steer <guidance for the active turn>") {
		t.Errorf("/help text = %q", h.editor.Text(sid))
	}
	h.prompt(sid, "/mode accept_edits")
	if _, err := h.editor.WaitUpdate(h.ctx(), sid, func(u acp.SessionUpdate) bool {
		return u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeID == agent.ModeAcceptEdits
	}); err != nil {
		t.Errorf("/mode did not announce the mode: %v", err)
	}
	h.prompt(sid, "/tools")
	if !strings.Contains(h.editor.Text(sid), "`echo`") {
		t.Errorf("/tools text lacks echo: %q", h.editor.Text(sid))
	}
	if n := len(fm.requests()); n != 0 {
		t.Fatalf("commands reached the model %d times", n)
	}
	h.prompt(sid, "/frobnicate now")
	reqs := fm.requests()
	if len(reqs) != 1 || lastMessage(reqs[0]).Content != "/frobnicate now" {
		t.Errorf("unknown command did not go to the model: %+v", reqs)
	}
	h.prompt(sid, "/reset")
	h.prompt(sid, "fresh start")
	reqs = fm.requests()
	if got := len(reqs[len(reqs)-1].Messages); got != 2 {
		t.Errorf("after /reset the model saw %d messages, want system + user", got)
	}
}

// TestSteerWhileRunning: /steer during a turn is injected before the next
// model call of that turn.
func TestSteerWhileRunning(t *testing.T) {
	t.Parallel()
	started := make(chan int, 4)
	release := make(chan struct{})
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			started <- n
			<-release
			return toolReply(model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`}), nil
		}
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t)})
	sid := h.newSession("")
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "work") }()
	<-started
	if stop := h.prompt(sid, "/steer use tabs"); stop != acp.StopEndTurn {
		t.Fatalf("/steer stop = %s", stop)
	}
	close(release)
	<-result
	reqs := fm.requests()
	found := false
	for _, m := range reqs[1].Messages {
		if m.Role == model.RoleUser && strings.Contains(m.Content, "use tabs") {
			found = true
		}
	}
	if !found {
		t.Errorf("steering text missing from the next model call")
	}
}

// TestParallelToolCalls: three parallel-safe calls all start before any
// finishes; a barrier call splits the batch; results reach the model in
// call order.
func TestParallelToolCalls(t *testing.T) {
	t.Parallel()
	reg := registry.New(nil)
	var mu sync.Mutex
	startedN := 0
	allStarted := make(chan struct{})
	for _, name := range []string{"probe_a", "probe_b", "probe_c"} {
		err := reg.Register(registry.Entry{Name: name, Toolset: "probes", ParallelSafe: true,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
			Handler: func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				mu.Lock()
				startedN++
				if startedN == 3 {
					close(allStarted)
				}
				mu.Unlock()
				select {
				case <-allStarted:
				case <-time.After(10 * time.Second):
					return registry.Error("not run in parallel"), nil
				}
				n, _ := c.Int("n")
				return registry.OK(map[string]int{"n": n}), nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := reg.Register(registry.Entry{Name: "barrier", Toolset: "probes",
		Handler: func(ctx context.Context, c *registry.Call) (registry.Result, error) {
			return registry.OK(map[string]bool{"ok": true}), nil
		}}); err != nil {
		t.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(
				model.ToolCall{ID: "p1", Name: "probe_a", Arguments: `{"n":1}`},
				model.ToolCall{ID: "p2", Name: "probe_b", Arguments: `{"n":"2"}`},
				model.ToolCall{ID: "p3", Name: "probe_c", Arguments: `{"n":3}`},
				model.ToolCall{ID: "b1", Name: "barrier", Arguments: `{}`},
			), nil
		}
		return textReply("done", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{reg: reg})
	sid := h.newSession("")
	if stop := h.prompt(sid, "probe"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	var order []string
	for _, u := range h.editor.Updates(sid) {
		switch {
		case u.Update.ToolCall != nil:
			order = append(order, "start:"+u.Update.ToolCall.ToolCallID)
		case u.Update.ToolCallUpdate != nil && u.Update.ToolCallUpdate.Status == acp.StatusCompleted:
			order = append(order, "done:"+u.Update.ToolCallUpdate.ToolCallID)
		}
	}
	firstDone := slices.IndexFunc(order, func(s string) bool { return strings.HasPrefix(s, "done:") })
	for _, id := range []string{"p1", "p2", "p3"} {
		if i := slices.Index(order, "start:"+id); i < 0 || i > firstDone {
			t.Errorf("%s did not start before the first completion: %v", id, order)
		}
	}
	if slices.Index(order, "start:b1") < slices.Index(order, "done:p1") {
		t.Errorf("barrier started before the parallel segment finished: %v", order)
	}
	msgs := fm.requests()[1].Messages
	var results []string
	for _, m := range msgs {
		if m.Role == model.RoleTool {
			results = append(results, m.ToolCallID+"="+m.Content)
		}
	}
	want := []string{`p1={"n":1}`, `p2={"n":2}`, `p3={"n":3}`, `b1={"ok":true}`}
	if !slices.Equal(results, want) {
		t.Errorf("tool results = %v, want %v (in call order, \"2\" coerced)", results, want)
	}
}

func TestUnknownSessionPrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &fakeModel{}, harnessOptions{})
	_, err := h.editor.PromptText(h.ctx(), "sess_missing", "hi")
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Fatalf("prompt to unknown session: %v, want -32002", err)
	}
	if d, _ := ae.Data.(map[string]any); d["sessionId"] != "sess_missing" {
		t.Errorf("error data = %v, want sessionId", ae.Data)
	}
}

func TestNewSessionRejectsMissingCwd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &fakeModel{}, harnessOptions{})
	_, err := h.editor.NewSessionAt(h.ctx(), "/definitely/not/here")
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, "cwd") {
		t.Fatalf("session/new on a missing directory: %v, want -32602 naming cwd", err)
	}
}
