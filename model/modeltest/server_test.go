package modeltest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// post sends body to the server's chat completions endpoint.
func post(t *testing.T, ctx context.Context, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// events reads an SSE body into its data payloads.
func events(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// deltas returns the delta and finish_reason of each chunk, and the usage
// of the final chunk.
func deltas(t *testing.T, evs []string) (ds []map[string]any, finish []any, usage map[string]any) {
	t.Helper()
	for _, e := range evs {
		if e == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta        map[string]any `json:"delta"`
				FinishReason any            `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %s: %v", e, err)
		}
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			ds = append(ds, ch.Delta)
			finish = append(finish, ch.FinishReason)
		}
	}
	return ds, finish, usage
}

const streamBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hello there"}]}`

func TestStreamFormat(t *testing.T) {
	t.Parallel()
	s := NewServer(t, Turn{
		Reasoning: []string{"think"},
		Text:      []string{"Hi", "!"},
		ToolCalls: []ToolCall{{ID: "c1", Name: "echo", Arguments: `{"text":"abcdef"}`, Pieces: 2}},
		Usage:     &Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7, ReasoningTokens: 1, CachedTokens: 2},
	})
	if !strings.HasSuffix(s.URL(), "/v1") {
		t.Errorf("URL() = %q, want a /v1 suffix", s.URL())
	}
	res := post(t, t.Context(), s.URL(), streamBody)
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q, want text/event-stream", ct)
	}
	evs := events(t, res.Body)
	if len(evs) == 0 || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("events = %v, want [DONE] last", evs)
	}
	ds, finish, usage := deltas(t, evs)
	want := []map[string]any{
		{"role": "assistant", "content": ""},
		{"reasoning_content": "think"},
		{"content": "Hi"},
		{"content": "!"},
		{"tool_calls": []any{map[string]any{"index": 0.0, "id": "c1", "type": "function", "function": map[string]any{"name": "echo", "arguments": ""}}}},
		{"tool_calls": []any{map[string]any{"index": 0.0, "function": map[string]any{"arguments": `{"text":"`}}}},
		{"tool_calls": []any{map[string]any{"index": 0.0, "function": map[string]any{"arguments": `abcdef"}`}}}},
		{},
	}
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if got := finish[len(finish)-1]; got != "tool_calls" {
		t.Errorf("last finish_reason = %v, want tool_calls", got)
	}
	if finish[0] != nil {
		t.Errorf("first finish_reason = %v, want null", finish[0])
	}
	wantUsage := map[string]any{
		"prompt_tokens": 3.0, "completion_tokens": 4.0, "total_tokens": 7.0,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 2.0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 1.0},
	}
	if diff := cmp.Diff(wantUsage, usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestStreamWithoutUsageAndReasoningField(t *testing.T) {
	t.Parallel()
	s := NewServer(t, Turn{Reasoning: []string{"r"}, ReasoningField: "reasoning", Text: []string{"x"}, Finish: "length"})
	res := post(t, t.Context(), s.URL(), `{"model":"m","stream":true,"messages":[]}`)
	defer res.Body.Close()
	ds, finish, usage := deltas(t, events(t, res.Body))
	if ds[1]["reasoning"] != "r" {
		t.Errorf("reasoning delta = %v, want the reasoning field", ds[1])
	}
	if usage != nil {
		t.Errorf("usage = %v, want none without include_usage", usage)
	}
	if finish[len(finish)-1] != "length" {
		t.Errorf("finish = %v, want length", finish[len(finish)-1])
	}
}

func TestInterleavedToolCalls(t *testing.T) {
	t.Parallel()
	got := toolCallDeltas(Turn{Interleave: true, ToolCalls: []ToolCall{
		{ID: "a", Name: "x", Arguments: "1234", Pieces: 2},
		{ID: "b", Name: "y", Arguments: "56", Pieces: 1},
	}}, 1)
	var order []string
	for _, d := range got {
		f := d["function"].(map[string]any)
		order = append(order, fmt.Sprintf("%d:%s", d["index"], f["arguments"]))
	}
	want := []string{"0:", "1:", "0:12", "1:56", "0:34"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("interleaved order (-want +got):\n%s", diff)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"abcdef", 3, []string{"ab", "cd", "ef"}},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
		{"ab", 5, []string{"a", "b"}},
		{"ééé", 2, []string{"éé", "é"}},
	} {
		if got := split(tc.s, tc.n); !cmp.Equal(got, tc.want) {
			t.Errorf("split(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestErrorsAndRequests(t *testing.T) {
	t.Parallel()
	s := NewServer(t,
		Turn{Status: 429, Header: http.Header{"Retry-After": {"0"}}},
		Turn{Status: 404},
		Turn{Status: 500, Body: "plain failure"},
	)
	for _, tc := range []struct {
		status   int
		header   string
		inBody   string
		jsonBody bool
	}{
		{429, "0", "rate_limit_exceeded", true},
		{404, "", "The model `m` does not exist", true},
		{500, "", "plain failure", false},
	} {
		res := post(t, t.Context(), s.URL(), streamBody)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(body), tc.inBody) || res.Header.Get("Retry-After") != tc.header {
			t.Errorf("answer = %d %q (Retry-After %q), want %d containing %q (Retry-After %q)",
				res.StatusCode, body, res.Header.Get("Retry-After"), tc.status, tc.inBody, tc.header)
		}
		if got := strings.HasPrefix(res.Header.Get("Content-Type"), "application/json"); got != tc.jsonBody {
			t.Errorf("Content-Type = %q for body %q", res.Header.Get("Content-Type"), body)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("Requests() has %d entries, want 3", len(reqs))
	}
	r, err := ParseRequest(reqs[0])
	if err != nil || r.Last().Content != "hello there" || r.Model != "m" || !r.IncludeUsage {
		t.Errorf("ParseRequest = %+v, %v; want the sent request", r, err)
	}
}

func TestUnexpectedRequests(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var reported []string
	s := StartOptions(Options{
		Script: []Turn{{Text: []string{"only"}}},
		APIKey: "sk-test",
		Errorf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, fmt.Sprintf(format, args...))
		},
	})
	t.Cleanup(s.Close)
	auth := []string{"Authorization", "Bearer sk-test"}
	for _, tc := range []struct {
		name, path, body string
		header           []string
		status           int
	}{
		{"no key", "/v1", streamBody, nil, 401},
		{"wrong path", "/v2", streamBody, auth, 404},
		{"not streamed", "/v1", `{"model":"m","messages":[]}`, auth, 400},
		{"bad JSON", "/v1", `{"model":`, auth, 400},
		{"scripted", "/v1", streamBody, auth, 200},
		{"script exhausted", "/v1", streamBody, auth, 500},
	} {
		url := strings.TrimSuffix(s.URL(), "/v1") + tc.path
		res := post(t, t.Context(), url, tc.body, tc.header...)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Errorf("%s: status = %d, want %d", tc.name, res.StatusCode, tc.status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 2 || !strings.Contains(reported[0], "parse request") || !strings.Contains(reported[1], "no scripted turn for request") {
		t.Errorf("reported = %q, want the bad body and the exhausted script", reported)
	}
}

func TestLoopAndRespond(t *testing.T) {
	t.Parallel()
	s := StartOptions(Options{Script: []Turn{{Text: []string{"a"}}, {Text: []string{"b"}}}, Loop: true})
	t.Cleanup(s.Close)
	var got []string
	for range 5 {
		res := post(t, t.Context(), s.URL(), streamBody)
		ds, _, _ := deltas(t, events(t, res.Body))
		res.Body.Close()
		got = append(got, ds[1]["content"].(string))
	}
	if diff := cmp.Diff([]string{"a", "b", "a", "b", "a"}, got); diff != "" {
		t.Errorf("looped replies (-want +got):\n%s", diff)
	}

	r := StartOptions(Options{Respond: func(req Request) Turn {
		if req.Last().Role == "tool" {
			return Turn{Text: []string{"result: " + req.Last().Content}}
		}
		return Turn{ToolCalls: []ToolCall{{Name: "echo", Arguments: `{}`}}}
	}})
	t.Cleanup(r.Close)
	res := post(t, t.Context(), r.URL(), `{"model":"m","stream":true,"messages":[{"role":"tool","tool_call_id":"c","content":"42"}]}`)
	ds, _, _ := deltas(t, events(t, res.Body))
	res.Body.Close()
	if ds[1]["content"] != "result: 42" {
		t.Errorf("Respond reply = %v, want the text for a tool result", ds[1])
	}
}

func TestBlockSeesDisconnect(t *testing.T) {
	t.Parallel()
	s := NewServer(t, Turn{Text: []string{"wait"}, Block: true})
	ctx, cancel := context.WithCancel(t.Context())
	res := post(t, ctx, s.URL(), streamBody)
	br := bufio.NewReader(res.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before the text: %v", err)
		}
		if strings.Contains(line, `"wait"`) {
			break
		}
	}
	cancel()
	res.Body.Close()
	<-s.Disconnected()
	if n := s.Disconnects(); n != 1 {
		t.Errorf("Disconnects() = %d, want 1", n)
	}
}

func TestCloseEndsBlockedStreams(t *testing.T) {
	t.Parallel()
	s := Start(Turn{Block: true})
	res := post(t, t.Context(), s.URL(), streamBody)
	defer res.Body.Close()
	s.Close() // returns although the stream is held open
	_, _ = io.Copy(io.Discard, res.Body)
}

func TestParseRequestContentShapes(t *testing.T) {
	t.Parallel()
	r, err := ParseRequest([]byte(`{"model":"m","max_completion_tokens":9,"messages":[
		{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:x"}},{"type":"text","text":"b"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"1","content":"ok"}],
		"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Role: "user", Content: "a\nb", Images: []string{"data:x"}},
		{Role: "assistant", ContentNull: true, ToolCalls: []ToolCall{{ID: "1", Name: "f", Arguments: "{}"}}},
		{Role: "tool", Content: "ok", ToolCallID: "1"},
	}
	if diff := cmp.Diff(want, r.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if r.MaxCompletionTokens != 9 || len(r.Tools) != 1 || r.Tools[0].Description != "d" {
		t.Errorf("request = %+v", r)
	}
}
