package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// newAnthropic returns an Anthropic provider for srv with fast retries.
func newAnthropic(t *testing.T, srv *modeltest.AnthropicServer, edit func(*model.Config)) model.Provider {
	t.Helper()
	cfg := model.Config{Provider: model.WireAnthropic, Model: "claude-test", BaseURL: srv.URL(), APIKey: "sk-ant-test", RetryBaseDelay: time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	p, err := model.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) error = %v", cfg, err)
	}
	if p.Name() != "anthropic" {
		t.Fatalf("Name() = %q, want anthropic", p.Name())
	}
	return p
}

// wireRequest is the part of a Messages request the tests look at.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	System    []struct {
		Text         string          `json:"text"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"system"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Messages []struct {
		Role    string           `json:"role"`
		Content []map[string]any `json:"content"`
	} `json:"messages"`
	Tools []map[string]any `json:"tools"`
}

func decodeWire(t *testing.T, raw json.RawMessage) wireRequest {
	t.Helper()
	var w wireRequest
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("request is not JSON: %v\n%s", err, raw)
	}
	return w
}

// blockTypes lists each message as "role: type type …".
func blockTypes(w wireRequest) []string {
	var out []string
	for _, m := range w.Messages {
		s := m.Role + ":"
		for _, b := range m.Content {
			s += " " + b["type"].(string)
		}
		out = append(out, s)
	}
	return out
}

// cachedBlocks lists "message/block" of every block with cache_control.
func cachedBlocks(w wireRequest) []string {
	var out []string
	for i, m := range w.Messages {
		for j, b := range m.Content {
			if _, ok := b["cache_control"]; ok {
				out = append(out, strings.Join([]string{string(rune('0' + i)), string(rune('0' + j))}, "/"))
			}
		}
	}
	return out
}

func TestAnthropicText(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{
		Text:  []string{"Hel", "lo", "!"},
		Usage: &modeltest.AnthropicUsage{InputTokens: 10, OutputTokens: 3, CacheReadInputTokens: 80, CacheCreationInputTokens: 10},
	})
	p := newAnthropic(t, srv, nil)
	reply, deltas, err := run(t.Context(), p, model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: "You are terse."},
		{Role: model.RoleUser, Content: "Hi", Images: []model.Image{{MIMEType: "image/png", Data: []byte("png")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Reply{Text: "Hello!", FinishReason: model.Stop, Usage: model.Usage{
		InputTokens: 100, OutputTokens: 3, TotalTokens: 103, CachedReadTokens: 80, CacheWriteTokens: 10}}
	if diff := cmp.Diff(want, reply); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.Delta{{Text: "Hel"}, {Text: "lo"}, {Text: "!"}}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if got := reply.Usage.CacheHitRatio(); got != 0.8 {
		t.Errorf("CacheHitRatio() = %v, want 0.8", got)
	}
	if got := srv.Headers()[0].Get("x-api-key"); got != "sk-ant-test" {
		t.Errorf("x-api-key = %q", got)
	}
	w := decodeWire(t, srv.Requests()[0])
	if w.Model != "claude-test" || w.MaxTokens != model.DefaultAnthropicMaxTokens || w.Thinking != nil {
		t.Errorf("model, max_tokens, thinking = %q, %d, %v", w.Model, w.MaxTokens, w.Thinking)
	}
	if len(w.System) != 1 || w.System[0].Text != "You are terse." {
		t.Errorf("system = %+v, want the system prompt as one block", w.System)
	}
	if diff := cmp.Diff([]string{"user: image text"}, blockTypes(w)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	src := w.Messages[0].Content[0]["source"].(map[string]any)
	if src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != "cG5n" {
		t.Errorf("image source = %v", src)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	t.Parallel()
	for stop, want := range map[string]model.FinishReason{
		"end_turn": model.Stop, "stop_sequence": model.Stop, "max_tokens": model.Length,
		"refusal": model.ContentFilter, "model_context_window_exceeded": model.Length,
	} {
		srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{Text: []string{"x"}, StopReason: stop})
		reply, _, err := run(t.Context(), newAnthropic(t, srv, nil), userReq("hi"))
		if err != nil {
			t.Fatal(err)
		}
		if reply.FinishReason != want {
			t.Errorf("stop_reason %s: FinishReason = %s, want %s", stop, reply.FinishReason, want)
		}
	}
}

func TestAnthropicThinkingKeptAndSentBack(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t,
		modeltest.AnthropicTurn{
			Thinking: []string{"I should ", "read the file."}, Signature: "EqQBCkYIBxgCKkB",
			Redacted: "EmwKAhgBEgy3va3p", ToolCalls: []modeltest.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}},
		},
		modeltest.AnthropicTurn{Text: []string{"Done."}},
	)
	p := newAnthropic(t, srv, func(c *model.Config) { c.ReasoningEffort = "low" })
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Read a.go"}},
		Tools: []model.ToolDef{{Name: "read_file", Description: "Read a file", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"},
		}}}}
	reply, deltas, err := run(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]model.Delta{{Thought: "I should "}, {Thought: "read the file."}}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	wantReasoning := []model.ReasoningBlock{{Thinking: "I should read the file.", Signature: "EqQBCkYIBxgCKkB"}, {Redacted: "EmwKAhgBEgy3va3p"}}
	if diff := cmp.Diff(wantReasoning, reply.Reasoning); diff != "" {
		t.Errorf("reasoning (-want +got):\n%s", diff)
	}
	w := decodeWire(t, srv.Requests()[0])
	if w.Thinking == nil || w.Thinking.Type != "enabled" || w.Thinking.BudgetTokens != 2048 {
		t.Errorf("thinking = %+v, want enabled with the low effort's 2048 tokens", w.Thinking)
	}
	if w.MaxTokens != model.DefaultAnthropicMaxTokens+2048 {
		t.Errorf("max_tokens = %d, want the default plus the budget", w.MaxTokens)
	}
	if w.Tools[0]["name"] != "read_file" || w.Tools[0]["input_schema"].(map[string]any)["required"].([]any)[0] != "path" {
		t.Errorf("tools = %v", w.Tools)
	}
	// The tool round: the assistant turn goes back with its thinking blocks
	// first and exactly as received.
	req.Messages = append(req.Messages,
		model.Message{Role: model.RoleAssistant, Thought: reply.Thought, Reasoning: reply.Reasoning, ToolCalls: reply.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: reply.ToolCalls[0].ID, Name: "read_file", Content: "package a"})
	if _, _, err := run(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	w = decodeWire(t, srv.Requests()[1])
	if diff := cmp.Diff([]string{"user: text", "assistant: thinking redacted_thinking tool_use", "user: tool_result"}, blockTypes(w)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	a := w.Messages[1].Content
	if a[0]["thinking"] != "I should read the file." || a[0]["signature"] != "EqQBCkYIBxgCKkB" || a[1]["data"] != "EmwKAhgBEgy3va3p" {
		t.Errorf("thinking blocks sent back = %v", a[:2])
	}
	if a[2]["id"] != "toolu_1_0" || w.Messages[2].Content[0]["tool_use_id"] != "toolu_1_0" {
		t.Errorf("tool ids: use %v, result %v", a[2]["id"], w.Messages[2].Content[0]["tool_use_id"])
	}
}

func TestAnthropicThinkingOffInToolLoopWithoutSignedThinking(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{Text: []string{"ok"}})
	p := newAnthropic(t, srv, func(c *model.Config) { c.ThinkingBudget = 4000 })
	// An assistant tool call written by another provider: the API would
	// refuse thinking here, so the request goes without it.
	_, _, err := run(t.Context(), p, model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Content: "go"},
		{Role: model.RoleAssistant, Thought: "unsigned", ToolCalls: []model.ToolCall{{ID: "call_1", Name: "t", Arguments: "{}"}}},
		{Role: model.RoleTool, ToolCallID: "call_1", Content: "r"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if w := decodeWire(t, srv.Requests()[0]); w.Thinking != nil {
		t.Errorf("thinking = %+v, want none mid tool loop without a signed block", w.Thinking)
	}
}

func TestAnthropicParallelToolCalls(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{
		Text: []string{"Reading both."},
		ToolCalls: []modeltest.ToolCall{
			{ID: "toolu_a", Name: "read_file", Arguments: `{"path":"a.go"}`, Pieces: 4},
			{ID: "toolu_b", Name: "read_file", Arguments: `{"path":"b.go"}`},
			{ID: "toolu_c", Name: "list", Arguments: ``},
		},
	}, modeltest.AnthropicTurn{Text: []string{"ok"}})
	p := newAnthropic(t, srv, nil)
	reply, _, err := run(t.Context(), p, userReq("read a and b"))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ToolCall{
		{ID: "toolu_a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "toolu_b", Name: "read_file", Arguments: `{"path":"b.go"}`},
		{ID: "toolu_c", Name: "list", Arguments: `{}`},
	}
	if diff := cmp.Diff(want, reply.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if reply.FinishReason != model.ToolCalls || reply.Text != "Reading both." {
		t.Errorf("finish, text = %s, %q", reply.FinishReason, reply.Text)
	}
	// The results go back in one user turn, in order, one image included.
	req := userReq("read a and b")
	req.Messages = append(req.Messages, model.Message{Role: model.RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls})
	for _, c := range reply.ToolCalls {
		req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, ToolCallID: c.ID, Content: "result of " + c.ID})
	}
	req.Messages[len(req.Messages)-1].Images = []model.Image{{MIMEType: "image/png", Data: []byte("x")}}
	if _, _, err := run(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	w := decodeWire(t, srv.Requests()[1])
	if diff := cmp.Diff([]string{"user: text", "assistant: text tool_use tool_use tool_use", "user: tool_result tool_result tool_result"}, blockTypes(w)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	last := w.Messages[2].Content[2]
	if last["tool_use_id"] != "toolu_c" || len(last["content"].([]any)) != 2 {
		t.Errorf("last tool result = %v, want text and image for toolu_c", last)
	}
}

// TestAnthropicCacheBreakpoints checks hermes's system_and_3 layout on
// three consecutive requests of one conversation: the system prompt and
// the last three messages carry a breakpoint, moving forward each turn.
func TestAnthropicCacheBreakpoints(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t,
		modeltest.AnthropicTurn{ToolCalls: []modeltest.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: "{}"}}},
		modeltest.AnthropicTurn{Text: []string{"Two files."}},
		modeltest.AnthropicTurn{Text: []string{"Bye."}},
	)
	p := newAnthropic(t, srv, nil)
	msgs := []model.Message{{Role: model.RoleSystem, Content: "sys"}, {Role: model.RoleUser, Content: "list"}}
	for range 3 {
		reply, _, err := run(t.Context(), p, model.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls})
		if len(reply.ToolCalls) > 0 {
			msgs = append(msgs, model.Message{Role: model.RoleTool, ToolCallID: "toolu_1", Content: "a b"})
		} else {
			msgs = append(msgs, model.Message{Role: model.RoleUser, Content: "thanks"})
		}
	}
	for i, want := range []struct {
		types  []string
		cached []string
	}{
		{[]string{"user: text"}, []string{"0/0"}},
		{[]string{"user: text", "assistant: tool_use", "user: tool_result"}, []string{"0/0", "1/0", "2/0"}},
		{[]string{"user: text", "assistant: tool_use", "user: tool_result", "assistant: text", "user: text"}, []string{"2/0", "3/0", "4/0"}},
	} {
		w := decodeWire(t, srv.Requests()[i])
		if diff := cmp.Diff(want.types, blockTypes(w)); diff != "" {
			t.Errorf("request %d messages (-want +got):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(want.cached, cachedBlocks(w)); diff != "" {
			t.Errorf("request %d cache breakpoints (-want +got):\n%s", i+1, diff)
		}
		if len(w.System) != 1 || !strings.Contains(string(w.System[0].CacheControl), "ephemeral") {
			t.Errorf("request %d: system block has no ephemeral breakpoint: %+v", i+1, w.System)
		}
	}
}

func TestAnthropicRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fail modeltest.AnthropicTurn
	}{
		{"HTTP 529 overloaded_error", modeltest.AnthropicTurn{Status: 529}},
		{"overloaded_error event in the stream", modeltest.AnthropicTurn{StreamError: "overloaded_error"}},
		{"429 with retry-after", modeltest.AnthropicTurn{Status: 429, Header: http.Header{"Retry-After": {"0"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewAnthropicServer(t, tc.fail, tc.fail, modeltest.AnthropicTurn{Text: []string{"fine"}})
			reply, _, err := run(t.Context(), newAnthropic(t, srv, nil), userReq("hi"))
			if err != nil {
				t.Fatalf("error = %v, want success after two retries", err)
			}
			if reply.Text != "fine" || len(srv.Requests()) != 3 {
				t.Errorf("text %q after %d requests", reply.Text, len(srv.Requests()))
			}
		})
	}
	t.Run("overloaded after every retry says so", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{Status: 529}, modeltest.AnthropicTurn{Status: 529})
		_, _, err := run(t.Context(), newAnthropic(t, srv, func(c *model.Config) { c.MaxRetries = 1 }), userReq("hi"))
		var me *model.Error
		if !errors.As(err, &me) || me.Kind != model.Server || !strings.Contains(me.Message, "overloaded") || !strings.Contains(me.Message, "after 1 retry") {
			t.Errorf("error = %v, want an overloaded server error after 1 retry", err)
		}
	})
}

func TestAnthropicErrorsClassified(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		turn modeltest.AnthropicTurn
		key  string
		want model.ErrorKind
		says string
	}{
		{"prompt too long", modeltest.AnthropicTurn{Status: 400, Body: modeltest.AnthropicErrorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")}, "k", model.ContextLength, "too long"},
		{"request too large", modeltest.AnthropicTurn{Status: 413}, "k", model.ContextLength, "too long"},
		{"bad key", modeltest.AnthropicTurn{Status: 401}, "k", model.Auth, "ANTHROPIC_API_KEY"},
		{"no key", modeltest.AnthropicTurn{Status: 401}, "", model.Auth, "none is set"},
		{"unknown model", modeltest.AnthropicTurn{Status: 404, Body: modeltest.AnthropicErrorBody("not_found_error", "model: claude-nope")}, "k", model.ModelNotFound, "does not know the model"},
		{"other bad request", modeltest.AnthropicTurn{Status: 400, Body: modeltest.AnthropicErrorBody("invalid_request_error", "messages: text content blocks must be non-empty")}, "k", model.BadRequest, "non-empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewAnthropicServer(t, tc.turn)
			_, _, err := run(t.Context(), newAnthropic(t, srv, func(c *model.Config) { c.APIKey = tc.key }), userReq("hi"))
			var me *model.Error
			if !errors.As(err, &me) || me.Kind != tc.want || !strings.Contains(me.Message, tc.says) {
				t.Errorf("error = %v, want kind %s saying %q", err, tc.want, tc.says)
			}
		})
	}
}

func TestAnthropicCancelMidStream(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{Text: []string{"partial"}, Block: true})
	p := newAnthropic(t, srv, nil)
	ctx, cancel := context.WithCancel(t.Context())
	var got []model.Delta
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, userReq("hi"), func(d model.Delta) {
			got = append(got, d)
			cancel() // the user presses stop after the first delta
		})
		done <- err
	}()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	<-srv.Disconnected() // the HTTP stream was closed
	if diff := cmp.Diff([]model.Delta{{Text: "partial"}}, got); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

// TestRouterSwitchesProviderMidConversation sends an OpenAI-compatible
// model's tool round to an Anthropic model: the history converts, with
// the OpenAI call id made valid for the Messages API on both sides.
func TestRouterSwitchesProviderMidConversation(t *testing.T) {
	t.Parallel()
	oai := modeltest.NewServer(t, modeltest.Turn{Text: []string{"openai says hi"}})
	ant := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{Text: []string{"claude says hi"}})
	p, err := model.New(model.Config{Model: "gpt-test", BaseURL: oai.URL(),
		Others: map[string]model.Endpoint{model.WireAnthropic: {BaseURL: ant.URL(), APIKey: "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := p.(*model.Router); !ok || r.Name() != "openai-compatible" || r.NameFor("anthropic:claude-x") != "anthropic" {
		t.Fatalf("New returned %T %q, want a Router defaulting to openai-compatible", p, p.Name())
	}
	history := []model.Message{
		{Role: model.RoleSystem, Content: "sys"},
		{Role: model.RoleUser, Content: "ls"},
		{Role: model.RoleAssistant, Thought: "plain reasoning", ToolCalls: []model.ToolCall{{ID: "call:1.x", Name: "ls", Arguments: `{"dir":"."}`}}},
		{Role: model.RoleTool, ToolCallID: "call:1.x", Content: "a.go"},
		{Role: model.RoleUser, Content: "now you"},
	}
	reply, _, err := run(t.Context(), p, model.Request{Model: "anthropic:claude-x", Messages: history})
	if err != nil || reply.Text != "claude says hi" {
		t.Fatalf("anthropic reply = %+v, %v", reply, err)
	}
	w := decodeWire(t, ant.Requests()[0])
	if w.Model != "claude-x" {
		t.Errorf("model = %q, want the prefix taken off", w.Model)
	}
	if diff := cmp.Diff([]string{"user: text", "assistant: tool_use", "user: tool_result text"}, blockTypes(w)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	use, result := w.Messages[1].Content[0], w.Messages[2].Content[0]
	if use["id"] != "call_1_x" || result["tool_use_id"] != "call_1_x" || use["input"].(map[string]any)["dir"] != "." {
		t.Errorf("tool_use %v, tool_result %v", use, result)
	}
	// And back: the Anthropic turn (with its signed thinking) goes to the
	// OpenAI-compatible model as plain text.
	history = append(history, model.Message{Role: model.RoleAssistant, Content: reply.Text,
		Reasoning: []model.ReasoningBlock{{Thinking: "t", Signature: "s"}}}, model.Message{Role: model.RoleUser, Content: "back"})
	if reply, _, err = run(t.Context(), p, model.Request{Model: "gpt-test", Messages: history}); err != nil || reply.Text != "openai says hi" {
		t.Fatalf("openai reply = %+v, %v", reply, err)
	}
	req, err := modeltest.ParseRequest(oai.Requests()[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := len(req.Messages); n != 7 || req.Messages[5].Content != "claude says hi" {
		t.Errorf("openai saw %d messages: %+v", n, req.Messages)
	}
	// A wire that is not configured is named.
	p2, err := model.New(model.Config{Model: "anthropic:claude-x", Provider: "", Others: map[string]model.Endpoint{}})
	if err != nil {
		t.Fatal(err)
	}
	if p2.Name() != "anthropic" {
		t.Errorf("a model named anthropic:… selects the anthropic provider, got %q", p2.Name())
	}
}

// TestAnthropicRecordReplays records an Anthropic session with --record
// and replays it with the script provider.
func TestAnthropicRecordReplays(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t,
		modeltest.AnthropicTurn{Thinking: []string{"Look first."}, ToolCalls: []modeltest.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"dir":"."}`}}},
		modeltest.AnthropicTurn{Text: []string{"Two ", "files."}},
	)
	path := t.TempDir() + "/rec.yaml"
	p := newAnthropic(t, srv, func(c *model.Config) { c.RecordPath = path })
	msgs := []model.Message{{Role: model.RoleUser, Content: "list"}}
	var replies []*model.Reply
	for range 2 {
		r, _, err := run(t.Context(), p, model.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, r)
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: r.Text, Thought: r.Thought, Reasoning: r.Reasoning, ToolCalls: r.ToolCalls})
		if len(r.ToolCalls) > 0 {
			msgs = append(msgs, model.Message{Role: model.RoleTool, ToolCallID: "toolu_1", Content: "a b"})
		}
	}
	script, err := model.New(model.Config{Model: "script:" + path})
	if err != nil {
		t.Fatal(err)
	}
	replay := []model.Message{{Role: model.RoleUser, Content: "list"}}
	r1, _, err := run(t.Context(), script, model.Request{Messages: replay})
	if err != nil || r1.Thought != "Look first." || len(r1.ToolCalls) != 1 || r1.ToolCalls[0].Arguments != `{"dir":"."}` {
		t.Fatalf("replayed first reply = %+v, %v", r1, err)
	}
	replay = append(replay, model.Message{Role: model.RoleAssistant, ToolCalls: r1.ToolCalls}, model.Message{Role: model.RoleTool, ToolCallID: r1.ToolCalls[0].ID, Content: "a b"})
	r2, _, err := run(t.Context(), script, model.Request{Messages: replay})
	if err != nil || r2.Text != replies[1].Text {
		t.Fatalf("replayed second reply = %+v, %v; want %q", r2, err, replies[1].Text)
	}
}

func TestAnthropicTimeout(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewAnthropicServer(t, modeltest.AnthropicTurn{Text: []string{"slow"}, Block: true})
	p := newAnthropic(t, srv, func(c *model.Config) { c.Timeout = 100 * time.Millisecond })
	_, _, err := run(t.Context(), p, userReq("hi"))
	var me *model.Error
	if !errors.As(err, &me) || me.Kind != model.Timeout || !strings.Contains(me.Message, "did not finish the reply") {
		t.Errorf("error = %v, want a timeout error", err)
	}
}
