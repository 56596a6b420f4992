package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// newProvider returns an OpenAI-compatible provider for baseURL with fast
// retries; edit changes the config first.
func newProvider(t *testing.T, baseURL string, edit func(*model.Config)) model.Provider {
	t.Helper()
	cfg := model.Config{Model: "test-model", BaseURL: baseURL, RetryBaseDelay: time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	p, err := model.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) error = %v", cfg, err)
	}
	return p
}

// run streams req and collects the deltas.
func run(ctx context.Context, p model.Provider, req model.Request) (*model.Reply, []model.Delta, error) {
	var deltas []model.Delta
	reply, err := p.Stream(ctx, req, func(d model.Delta) { deltas = append(deltas, d) })
	return reply, deltas, err
}

func userReq(text string) model.Request {
	return model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: text}}}
}

// ignoreUsage compares replies without their token counts.
func ignoreUsage(r *model.Reply) *model.Reply {
	if r == nil {
		return nil
	}
	c := *r
	c.Usage = model.Usage{}
	return &c
}

func TestOpenAIStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		turn       modeltest.Turn
		wantDeltas []model.Delta
		want       *model.Reply
	}{
		{
			name:       "text arrives as several deltas in order",
			turn:       modeltest.Turn{Text: []string{"Hel", "lo", ", world"}},
			wantDeltas: []model.Delta{{Text: "Hel"}, {Text: "lo"}, {Text: ", world"}},
			want:       &model.Reply{Text: "Hello, world", FinishReason: model.Stop},
		},
		{
			name:       "reasoning_content becomes thought deltas before the text",
			turn:       modeltest.Turn{Reasoning: []string{"Let me ", "think."}, Text: []string{"Done."}},
			wantDeltas: []model.Delta{{Thought: "Let me "}, {Thought: "think."}, {Text: "Done."}},
			want:       &model.Reply{Text: "Done.", Thought: "Let me think.", FinishReason: model.Stop},
		},
		{
			name:       "reasoning field as OpenRouter and Ollama send it",
			turn:       modeltest.Turn{Reasoning: []string{"Hmm."}, ReasoningField: "reasoning", Text: []string{"Yes."}},
			wantDeltas: []model.Delta{{Thought: "Hmm."}, {Text: "Yes."}},
			want:       &model.Reply{Text: "Yes.", Thought: "Hmm.", FinishReason: model.Stop},
		},
		{
			name: "two parallel tool calls assembled from pieces",
			turn: modeltest.Turn{ToolCalls: []modeltest.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: `{"path":"main.go","offset":1}`, Pieces: 4},
				{ID: "call_b", Name: "search_files", Arguments: `{"pattern":"func ","path":"."}`, Pieces: 5},
			}},
			want: &model.Reply{FinishReason: model.ToolCalls, ToolCalls: []model.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: `{"path":"main.go","offset":1}`},
				{ID: "call_b", Name: "search_files", Arguments: `{"pattern":"func ","path":"."}`},
			}},
		},
		{
			name: "interleaved tool-call pieces",
			turn: modeltest.Turn{Interleave: true, ToolCalls: []modeltest.ToolCall{
				{ID: "call_a", Name: "echo", Arguments: `{"text":"first één"}`, Pieces: 6},
				{ID: "call_b", Name: "echo", Arguments: `{"text":"second"}`, Pieces: 2},
			}},
			want: &model.Reply{FinishReason: model.ToolCalls, ToolCalls: []model.ToolCall{
				{ID: "call_a", Name: "echo", Arguments: `{"text":"first één"}`},
				{ID: "call_b", Name: "echo", Arguments: `{"text":"second"}`},
			}},
		},
		{
			name:       "text before a tool call",
			turn:       modeltest.Turn{Text: []string{"Reading."}, ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}},
			wantDeltas: []model.Delta{{Text: "Reading."}},
			want: &model.Reply{Text: "Reading.", FinishReason: model.ToolCalls, ToolCalls: []model.ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
			}},
		},
		{
			name:       "finish length",
			turn:       modeltest.Turn{Text: []string{"Once upon"}, Finish: "length"},
			wantDeltas: []model.Delta{{Text: "Once upon"}},
			want:       &model.Reply{Text: "Once upon", FinishReason: model.Length},
		},
		{
			name:       "finish content_filter",
			turn:       modeltest.Turn{Text: []string{"I"}, Finish: "content_filter"},
			wantDeltas: []model.Delta{{Text: "I"}},
			want:       &model.Reply{Text: "I", FinishReason: model.ContentFilter},
		},
		{
			name: "finish stop with tool calls becomes tool_calls",
			turn: modeltest.Turn{Finish: "stop", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "echo", Arguments: `{}`}}},
			want: &model.Reply{FinishReason: model.ToolCalls, ToolCalls: []model.ToolCall{{ID: "c1", Name: "echo", Arguments: `{}`}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewServer(t, tc.turn)
			reply, deltas, err := run(t.Context(), newProvider(t, s.URL(), nil), userReq("hi"))
			if err != nil {
				t.Fatalf("Stream() error = %v", err)
			}
			if diff := cmp.Diff(tc.wantDeltas, deltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, ignoreUsage(reply)); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAIUsage(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{
		Text:  []string{"ok"},
		Usage: &modeltest.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150, ReasoningTokens: 12, CachedTokens: 64},
	})
	reply, _, err := run(t.Context(), newProvider(t, s.URL(), nil), userReq("hi"))
	if err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	want := model.Usage{InputTokens: 120, OutputTokens: 30, TotalTokens: 150, ThoughtTokens: 12, CachedReadTokens: 64}
	if reply.Usage != want {
		t.Errorf("Usage = %+v, want %+v", reply.Usage, want)
	}
	req := parseOnly(t, s)
	if !req.IncludeUsage || !req.Stream {
		t.Errorf("request stream = %v, include_usage = %v, want both true", req.Stream, req.IncludeUsage)
	}
}

// parseOnly returns the server's only request, parsed.
func parseOnly(t *testing.T, s *modeltest.Server) modeltest.Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r, err := modeltest.ParseRequest(reqs[0])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOpenAIRequestMapping(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"ok"}})
	p := newProvider(t, s.URL(), nil)
	png := []byte("\x89PNG\r\n\x1a\nfake")
	req := model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "You are a coding agent."},
			{Role: model.RoleUser, Content: "What is in this picture?", Images: []model.Image{{MIMEType: "image/png", Data: png}, {Data: png}}},
			{Role: model.RoleAssistant, Thought: "SECRET-REASONING", ToolCalls: []model.ToolCall{
				{ID: "call_1", Name: "echo", Arguments: `{"text":"4"}`},
				{ID: "call_2", Name: "list", Arguments: ""},
			}},
			{Role: model.RoleTool, ToolCallID: "call_1", Name: "echo", Content: `{"echo": "4"}`},
			{Role: model.RoleTool, ToolCallID: "call_2", Name: "list", Content: `[]`},
			{Role: model.RoleAssistant, Content: "It is 4."},
			{Role: model.RoleUser, Content: "Thanks"},
		},
		Tools: []model.ToolDef{
			{Name: "echo", Description: "Echo text back.", Parameters: map[string]any{
				"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"},
			}},
			{Name: "list"},
		},
		MaxTokens: 256,
	}
	if _, _, err := run(t.Context(), p, req); err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	got := parseOnly(t, s)
	dataURL := "data:image/png;base64,iVBORw0KGgpmYWtl"
	want := []modeltest.Message{
		{Role: "system", Content: "You are a coding agent."},
		{Role: "user", Content: "What is in this picture?", Images: []string{dataURL, dataURL}},
		{Role: "assistant", ContentNull: true, ToolCalls: []modeltest.ToolCall{
			{ID: "call_1", Name: "echo", Arguments: `{"text":"4"}`},
			{ID: "call_2", Name: "list", Arguments: `{}`},
		}},
		{Role: "tool", ToolCallID: "call_1", Content: `{"echo": "4"}`},
		{Role: "tool", ToolCallID: "call_2", Content: `[]`},
		{Role: "assistant", Content: "It is 4."},
		{Role: "user", Content: "Thanks"},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if strings.Contains(string(got.Raw), "SECRET-REASONING") {
		t.Errorf("request sends the assistant's thought back: %s", got.Raw)
	}
	if got.Model != "test-model" {
		t.Errorf("model = %q, want %q", got.Model, "test-model")
	}
	if got.MaxTokens != 256 || got.MaxCompletionTokens != 0 {
		t.Errorf("max_tokens = %d, max_completion_tokens = %d, want 256 and 0", got.MaxTokens, got.MaxCompletionTokens)
	}
	var toolNames []string
	for _, tl := range got.Tools {
		toolNames = append(toolNames, tl.Name)
	}
	if diff := cmp.Diff([]string{"echo", "list"}, toolNames); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	var params map[string]any
	if err := json.Unmarshal(got.Tools[1].Parameters, &params); err != nil || params["type"] != "object" {
		t.Errorf("tool without parameters sent %s, want an object schema", got.Tools[1].Parameters)
	}
	if got.Tools[0].Description != "Echo text back." {
		t.Errorf("tool description = %q", got.Tools[0].Description)
	}
}

func TestOpenAIRequestModelOverride(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"ok"}})
	req := userReq("hi")
	req.Model = "other-model"
	if _, _, err := run(t.Context(), newProvider(t, s.URL(), nil), req); err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	if got := parseOnly(t, s).Model; got != "other-model" {
		t.Errorf("model = %q, want %q", got, "other-model")
	}
}

func TestOpenAIAPIKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, key string
		wantKind  model.ErrorKind
		wantInMsg []string
	}{
		{"right key", "sk-right", "", nil},
		{"wrong key", "sk-wrong", model.Auth, []string{"rejected the API key", "OPENAI_API_KEY", "model.api_key_env", "HTTP 401"}},
		{"no key", "", model.Auth, []string{"needs an API key", "OPENAI_API_KEY", "model.api_key_env"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.StartOptions(modeltest.Options{APIKey: "sk-right", Script: []modeltest.Turn{{Text: []string{"ok"}}}, Loop: true})
			t.Cleanup(s.Close)
			p := newProvider(t, s.URL(), func(c *model.Config) { c.APIKey = tc.key })
			_, _, err := run(t.Context(), p, userReq("hi"))
			checkError(t, err, tc.wantKind, tc.wantInMsg...)
		})
	}
}

// checkError asserts that err is an *model.Error of kind whose message
// contains every string of want; kind "" asserts no error.
func checkError(t *testing.T, err error, kind model.ErrorKind, want ...string) {
	t.Helper()
	if kind == "" {
		if err != nil {
			t.Fatalf("Stream() error = %v, want none", err)
		}
		return
	}
	var e *model.Error
	if !errors.As(err, &e) {
		t.Fatalf("Stream() error = %v (%T), want *model.Error of kind %q", err, err, kind)
	}
	if e.Kind != kind {
		t.Errorf("Stream() error kind = %q, want %q (message: %s)", e.Kind, kind, e.Message)
	}
	for _, w := range want {
		if !strings.Contains(e.Message, w) {
			t.Errorf("Stream() error message = %q, want it to contain %q", e.Message, w)
		}
	}
}

func TestOpenAIHTTPErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		turn      modeltest.Turn
		wantKind  model.ErrorKind
		wantInMsg []string
	}{
		{"404 model not found", modeltest.Turn{Status: 404}, model.ModelNotFound,
			[]string{`"test-model"`, "--model", "HERMES_MODEL", "model.default"}},
		{"404 model not found, Ollama style", modeltest.Turn{Status: 404, Body: `{"error":"model \"test-model\" not found, try pulling it first"}`}, model.ModelNotFound,
			[]string{`"test-model"`, "try pulling it first"}},
		{"400 invalid model, OpenRouter style", modeltest.Turn{Status: 400, Body: `{"error":{"message":"test-model is not a valid model ID","code":400}}`}, model.ModelNotFound,
			[]string{`"test-model"`, "--model"}},
		{"404 without a model message is a wrong base URL", modeltest.Turn{Status: 404, Body: "404 page not found"}, model.EndpointNotFound,
			[]string{"/chat/completions", "/v1", "--base-url"}},
		{"403", modeltest.Turn{Status: 403, Body: `{"error":{"message":"Project does not have access"}}`}, model.Auth,
			[]string{"OPENAI_API_KEY", "HTTP 403: Project does not have access"}},
		{"context length", modeltest.Turn{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}`}, model.ContextLength,
			[]string{"too long", "new session"}},
		{"other 400", modeltest.Turn{Status: 400, Body: `{"detail":"temperature must be positive"}`}, model.BadRequest,
			[]string{"rejected the request", "temperature must be positive"}},
		{"429 insufficient quota is not retried", modeltest.Turn{Status: 429, Body: `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`}, model.RateLimited,
			[]string{"quota", "billing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewServer(t, tc.turn)
			_, _, err := run(t.Context(), newProvider(t, s.URL(), nil), userReq("hi"))
			checkError(t, err, tc.wantKind, tc.wantInMsg...)
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1 (no retry)", n)
			}
		})
	}
}

func TestOpenAIRetries(t *testing.T) {
	t.Parallel()
	ok := modeltest.Turn{Text: []string{"finally"}}
	retryAfter0 := http.Header{"Retry-After": []string{"0"}}
	for _, tc := range []struct {
		name         string
		script       []modeltest.Turn
		edit         func(*model.Config)
		wantKind     model.ErrorKind
		wantInMsg    []string
		wantRequests int
	}{
		{
			name:         "500, 500, then 200 succeeds",
			script:       append(modeltest.Failures(2, 500), ok),
			wantRequests: 3,
		},
		{
			name:         "503 and 502 then 200",
			script:       []modeltest.Turn{{Status: 503}, {Status: 502}, ok},
			wantRequests: 3,
		},
		{
			name:   "429 with Retry-After 0 is retried at once",
			script: []modeltest.Turn{{Status: 429, Header: retryAfter0}, ok},
			// A base delay of an hour proves Retry-After is what decides.
			edit:         func(c *model.Config) { c.RetryBaseDelay = time.Hour },
			wantRequests: 2,
		},
		{
			name:         "500 four times fails after three retries",
			script:       modeltest.Failures(4, 500),
			wantKind:     model.Server,
			wantInMsg:    []string{"HTTP 500", "after 3 retries", "Try again later"},
			wantRequests: 4,
		},
		{
			name:         "429 after every retry is rate limited",
			script:       []modeltest.Turn{{Status: 429, Header: retryAfter0}, {Status: 429, Header: retryAfter0}},
			edit:         func(c *model.Config) { c.MaxRetries = 1 },
			wantKind:     model.RateLimited,
			wantInMsg:    []string{"rate limiting", "HTTP 429", "after 1 retry"},
			wantRequests: 2,
		},
		{
			name:         "negative MaxRetries disables retries",
			script:       modeltest.Failures(1, 500),
			edit:         func(c *model.Config) { c.MaxRetries = -1 },
			wantKind:     model.Server,
			wantInMsg:    []string{"HTTP 500"},
			wantRequests: 1,
		},
		{
			name:         "Retry-After beyond a minute is not waited for",
			script:       []modeltest.Turn{{Status: 429, Header: http.Header{"Retry-After": []string{"3600"}}}},
			wantKind:     model.RateLimited,
			wantRequests: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewServer(t, tc.script...)
			// The deadline only turns a hang into a failure.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			reply, _, err := run(ctx, newProvider(t, s.URL(), tc.edit), userReq("hi"))
			checkError(t, err, tc.wantKind, tc.wantInMsg...)
			if tc.wantKind == "" && reply.Text != "finally" {
				t.Errorf("reply text = %q, want %q", reply.Text, "finally")
			}
			if n := len(s.Requests()); n != tc.wantRequests {
				t.Errorf("server saw %d requests, want %d", n, tc.wantRequests)
			}
		})
	}
}

func TestOpenAICancelMidStream(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"partial"}, Block: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var deltas []model.Delta
	reply, err := newProvider(t, s.URL(), nil).Stream(ctx, userReq("hi"), func(d model.Delta) {
		deltas = append(deltas, d)
		cancel() // the user presses stop after the first delta
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream() error = %v, want context.Canceled", err)
	}
	if reply != nil {
		t.Errorf("Stream() reply = %+v, want nil on error", reply)
	}
	if diff := cmp.Diff([]model.Delta{{Text: "partial"}}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	<-s.Disconnected() // the server sees the client go away
}

func TestOpenAICancelDuringRetryWait(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := modeltest.StartOptions(modeltest.Options{Respond: func(modeltest.Request) modeltest.Turn {
		cancel() // cancelled while the provider waits to retry
		return modeltest.Turn{Status: 500}
	}})
	t.Cleanup(s.Close)
	p := newProvider(t, s.URL(), func(c *model.Config) { c.RetryBaseDelay = time.Hour })
	_, _, err := run(ctx, p, userReq("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream() error = %v, want context.Canceled", err)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens on the port any more
	_, _, err = run(t.Context(), newProvider(t, base, nil), userReq("hi"))
	checkError(t, err, model.Unreachable, base, "connection refused", "--base-url", "OPENAI_BASE_URL")
}

// hangingServer accepts requests and never answers until the client leaves.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); s.Close() })
	return s
}

func TestOpenAIFirstByteTimeout(t *testing.T) {
	t.Parallel()
	s := hangingServer(t)
	p := newProvider(t, s.URL+"/v1", func(c *model.Config) { c.FirstByteTimeout = 20 * time.Millisecond })
	_, _, err := run(t.Context(), p, userReq("hi"))
	checkError(t, err, model.Unreachable, s.URL+"/v1", "did not answer within 20ms")
}

func TestOpenAITimeout(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"slow"}, Block: true})
	p := newProvider(t, s.URL(), func(c *model.Config) { c.Timeout = 50 * time.Millisecond })
	_, _, err := run(t.Context(), p, userReq("hi"))
	checkError(t, err, model.Timeout, "did not finish the reply within 50ms")
}

// rawServer answers every request with status, content type and body.
func rawServer(t *testing.T, contentType, body string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s.URL + "/v1"
}

func TestOpenAIBadStreams(t *testing.T) {
	t.Parallel()
	chunk := func(delta string) string {
		return fmt.Sprintf(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n", delta)
	}
	for _, tc := range []struct {
		name, contentType, body string
		wantKind                model.ErrorKind
		wantInMsg               []string
	}{
		{"not a stream", "application/json", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`,
			model.BadResponse, []string{"OpenAI-compatible", "/v1"}},
		{"error event inside the stream", "text/event-stream", chunk(`{"content":"a"}`) + `data: {"error":{"message":"upstream overloaded"}}` + "\n\n",
			model.Server, []string{"upstream overloaded"}},
		{"context error inside the stream", "text/event-stream", `data: {"error":{"message":"prompt is too long: 300000 tokens"}}` + "\n\n",
			model.ContextLength, []string{"too long"}},
		{"malformed chunk", "text/event-stream", chunk(`{"content":"a"}`) + "data: {not json\n\n",
			model.BadResponse, []string{"malformed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := run(t.Context(), newProvider(t, rawServer(t, tc.contentType, tc.body), nil), userReq("hi"))
			checkError(t, err, tc.wantKind, tc.wantInMsg...)
		})
	}
}

func TestOpenAIToleratesServerQuirks(t *testing.T) {
	t.Parallel()
	// No index on tool calls, the id repeated in every delta, no
	// finish_reason and no [DONE]: what some local servers send.
	body := `data: {"choices":[{"delta":{"role":"assistant","tool_calls":[{"id":"t1","function":{"name":"echo","arguments":"{\"te"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"id":"t1","function":{"arguments":"xt\":1}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"reasoning_content":"why","reasoning":"why"}}]}` + "\n\n"
	reply, deltas, err := run(t.Context(), newProvider(t, rawServer(t, "text/event-stream", body), nil), userReq("hi"))
	if err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	want := &model.Reply{Thought: "why", FinishReason: model.ToolCalls, ToolCalls: []model.ToolCall{{ID: "t1", Name: "echo", Arguments: `{"text":1}`}}}
	if diff := cmp.Diff(want, ignoreUsage(reply)); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.Delta{{Thought: "why"}}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

func TestOpenAIConcurrentSessions(t *testing.T) {
	t.Parallel()
	s := modeltest.StartOptions(modeltest.Options{Respond: func(r modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: []string{"echo: ", r.Last().Content}}
	}})
	t.Cleanup(s.Close)
	p := newProvider(t, s.URL(), nil)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			want := fmt.Sprintf("session %d", i)
			reply, _, err := run(t.Context(), p, userReq(want))
			if err == nil && reply.Text != "echo: "+want {
				err = fmt.Errorf("reply %q, want %q", reply.Text, "echo: "+want)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestOpenAIUnencodableRequest(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t)
	req := userReq("hi")
	req.Tools = []model.ToolDef{{Name: "bad", Parameters: map[string]any{"type": make(chan int)}}}
	_, _, err := run(t.Context(), newProvider(t, s.URL(), nil), req)
	if err == nil || model.KindOf(err) != "" || !strings.Contains(err.Error(), "build model request") {
		t.Errorf("Stream() error = %v, want a plain build error", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

// fakeTransport answers requests in memory, so the provider can run inside
// a synctest bubble. It records when each request arrived.
type fakeTransport struct {
	answers []*http.Response
	times   []time.Time
}

func (f *fakeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.times = append(f.times, time.Now())
	if len(f.times) > len(f.answers) {
		return nil, errors.New("fakeTransport: no answer left")
	}
	res := f.answers[len(f.times)-1]
	res.Request = r
	return res, nil
}

func answer(status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	if status == 200 {
		header.Set("Content-Type", "text/event-stream")
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
}

func TestOpenAIRetryTiming(t *testing.T) {
	t.Parallel()
	okBody := `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	for _, tc := range []struct {
		name     string
		answers  []*http.Response
		min, max []time.Duration // bounds of each wait between requests
	}{
		{
			name:    "exponential backoff with jitter",
			answers: []*http.Response{answer(500, nil, ""), answer(503, nil, ""), answer(502, nil, ""), answer(200, nil, okBody)},
			min:     []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond},
			max:     []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
		},
		{
			name: "Retry-After seconds and milliseconds",
			answers: []*http.Response{
				answer(429, http.Header{"Retry-After": {"7"}}, ""),
				answer(429, http.Header{"Retry-After-Ms": {"1250"}}, ""),
				answer(200, nil, okBody),
			},
			min: []time.Duration{7 * time.Second, 1250 * time.Millisecond},
			max: []time.Duration{7 * time.Second, 1250 * time.Millisecond},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ft := &fakeTransport{answers: tc.answers}
				p, err := model.New(model.Config{Model: "m", BaseURL: "http://model.test/v1", HTTPClient: &http.Client{Transport: ft}})
				if err != nil {
					t.Fatal(err)
				}
				reply, _, err := run(t.Context(), p, userReq("hi"))
				if err != nil || reply.Text != "ok" {
					t.Fatalf("Stream() = %v, %v; want the reply after retries", reply, err)
				}
				if len(ft.times) != len(tc.answers) {
					t.Fatalf("%d requests, want %d", len(ft.times), len(tc.answers))
				}
				for i := range tc.min {
					if d := ft.times[i+1].Sub(ft.times[i]); d < tc.min[i] || d > tc.max[i] {
						t.Errorf("wait before retry %d = %v, want within [%v, %v]", i+1, d, tc.min[i], tc.max[i])
					}
				}
			})
		})
	}
}

// stallTransport sends headers (when headers is true) and then nothing
// until the request's context ends.
type stallTransport struct{ headers bool }

type stallBody struct{ ctx context.Context }

func (b stallBody) Read([]byte) (int, error) { <-b.ctx.Done(); return 0, b.ctx.Err() }
func (stallBody) Close() error               { return nil }

func (s stallTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !s.headers {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	return &http.Response{StatusCode: 200, Request: r, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: stallBody{r.Context()}}, nil
}

func TestOpenAIDefaultTimeouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		headers  bool
		wantKind model.ErrorKind
		wantWait time.Duration
	}{
		{"no response headers", false, model.Unreachable, model.DefaultFirstByteTimeout},
		{"a stream that stalls", true, model.Timeout, model.DefaultTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				p, err := model.New(model.Config{Model: "m", BaseURL: "http://model.test/v1", HTTPClient: &http.Client{Transport: stallTransport{tc.headers}}})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, _, err = run(t.Context(), p, userReq("hi"))
				checkError(t, err, tc.wantKind, "http://model.test/v1")
				if d := time.Since(start); d != tc.wantWait {
					t.Errorf("gave up after %v, want %v", d, tc.wantWait)
				}
			})
		})
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOpenAIMaxTokensField(t *testing.T) {
	t.Parallel()
	okBody := `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	for _, tc := range []struct{ base, wantField, otherField string }{
		{"https://api.openai.com/v1", "max_completion_tokens", "max_tokens"},
		{"http://localhost:8080/v1", "max_tokens", "max_completion_tokens"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			t.Parallel()
			var body map[string]any
			client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
					return nil, err
				}
				res := answer(200, nil, okBody)
				res.Request = r
				return res, nil
			})}
			p := newProvider(t, tc.base, func(c *model.Config) { c.HTTPClient = client })
			req := userReq("hi")
			req.MaxTokens = 42
			if _, _, err := run(t.Context(), p, req); err != nil {
				t.Fatalf("Stream() error = %v", err)
			}
			if body[tc.wantField] != 42.0 {
				t.Errorf("%s = %v, want 42", tc.wantField, body[tc.wantField])
			}
			if _, ok := body[tc.otherField]; ok {
				t.Errorf("request also sets %s: %v", tc.otherField, body)
			}
		})
	}
}
