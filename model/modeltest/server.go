package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// maxBody caps a request body the server reads.
const maxBody = 64 << 20

// Turn is the server's answer to one request.
type Turn struct {
	// Reasoning chunks are streamed first, in the field ReasoningField.
	Reasoning []string
	// ReasoningField names the delta field for reasoning: empty means
	// "reasoning_content" (DeepSeek, vLLM, llama.cpp); "reasoning" is what
	// OpenRouter and Ollama send.
	ReasoningField string
	// Text chunks are streamed after the reasoning, one delta each.
	Text []string
	// ToolCalls are streamed after the text: each call's id, type and name
	// in its first delta, then its arguments in pieces.
	ToolCalls []ToolCall
	// Interleave sends the argument pieces of several tool calls in turn
	// (call 0, call 1, call 0, …) instead of one call after the other.
	Interleave bool
	// Finish is the finish_reason; empty means "tool_calls" when there are
	// tool calls and "stop" otherwise.
	Finish string
	// Usage is sent when the request asks for it (stream_options.
	// include_usage); nil sends an estimate of four characters per token.
	Usage *Usage
	// Delay is waited before each chunk.
	Delay time.Duration
	// Block holds the stream open after the content chunks, before the
	// finish chunk, until the client disconnects or the server closes.
	Block bool
	// Status, when not 0, answers with this HTTP status instead of a
	// stream, with Body (default: an OpenAI-style error for the status).
	Status int
	Body   string
	// Header is added to the response, for example Retry-After.
	Header http.Header
}

// ToolCall is one streamed tool call.
type ToolCall struct {
	ID        string // default "call_<turn>_<n>"
	Name      string
	Arguments string // JSON text, streamed in Pieces pieces
	Pieces    int    // 0 means 3
}

// Usage is the usage object of the final chunk.
type Usage struct {
	PromptTokens, CompletionTokens, TotalTokens int
	ReasoningTokens, CachedTokens               int
}

// Failures returns n turns that each answer with status: put them before a
// good turn to test "fail n times, then succeed".
func Failures(n, status int) []Turn {
	turns := make([]Turn, n)
	for i := range turns {
		turns[i] = Turn{Status: status}
	}
	return turns
}

// Options configures [StartOptions].
type Options struct {
	// Script lists the turns, one per request, in order.
	Script []Turn
	// Loop repeats Script forever instead of failing when it runs out.
	Loop bool
	// Respond, when set, chooses the turn from the request instead of
	// Script. It may be called concurrently.
	Respond func(Request) Turn
	// APIKey, when set, makes requests without "Authorization: Bearer
	// APIKey" fail with 401.
	APIKey string
	// Errorf reports requests the server cannot answer (script exhausted,
	// malformed body); [NewServer] sets it to the test's Errorf.
	Errorf func(format string, args ...any)
}

// Server is a fake OpenAI-compatible server. It is safe for concurrent use.
// The creator must call [Server.Close] (NewServer arranges it).
type Server struct {
	srv          *httptest.Server
	opts         Options
	stop         chan struct{}
	stopOnce     sync.Once
	disconnected chan struct{}

	mu          sync.Mutex // guards next, requests, disconnects
	next        int
	requests    []json.RawMessage
	disconnects int
}

// NewServer starts a server answering with script and closes it when the
// test ends. A request beyond the script fails the test.
func NewServer(t testing.TB, script ...Turn) *Server {
	t.Helper()
	s := StartOptions(Options{Script: script, Errorf: t.Errorf})
	t.Cleanup(s.Close)
	return s
}

// Start starts a server answering with script, for programs without a
// testing.TB. The caller must call [Server.Close].
func Start(script ...Turn) *Server {
	return StartOptions(Options{Script: script})
}

// StartOptions starts a server configured by opts. The caller must call
// [Server.Close].
func StartOptions(opts Options) *Server {
	s := &Server{opts: opts, stop: make(chan struct{}), disconnected: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the base URL of the API, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server, ending blocked streams first.
func (s *Server) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns the bodies of all requests to /v1/chat/completions, in
// arrival order.
func (s *Server) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]json.RawMessage, len(s.requests))
	copy(out, s.requests)
	return out
}

// Disconnected returns a channel closed when a client first went away
// before its stream was complete.
func (s *Server) Disconnected() <-chan struct{} { return s.disconnected }

// Disconnects returns how many streams ended because the client went away.
func (s *Server) Disconnects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disconnects
}

func (s *Server) errorf(format string, args ...any) {
	if s.opts.Errorf != nil {
		s.opts.Errorf(format, args...)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || strings.TrimSuffix(r.URL.Path, "/") != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, errorJSON("Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", ""), nil)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return // the client went away
	}
	s.mu.Lock()
	s.requests = append(s.requests, raw)
	n := len(s.requests)
	s.mu.Unlock()

	if s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
		writeError(w, http.StatusUnauthorized, defaultBody(http.StatusUnauthorized, ""), nil)
		return
	}
	req, err := ParseRequest(raw)
	if err != nil {
		s.errorf("modeltest: request %d: %v", n, err)
		writeError(w, http.StatusBadRequest, errorJSON(err.Error(), "invalid_request_error", ""), nil)
		return
	}
	if !req.Stream {
		writeError(w, http.StatusBadRequest, errorJSON("modeltest serves only stream: true", "invalid_request_error", ""), nil)
		return
	}
	turn, ok := s.turn(req)
	if !ok {
		msg := fmt.Sprintf("modeltest: no scripted turn for request %d (the script has %d)", n, len(s.opts.Script))
		s.errorf("%s", msg)
		writeError(w, http.StatusInternalServerError, errorJSON(msg, "server_error", ""), nil)
		return
	}
	if turn.Status != 0 {
		body := turn.Body
		if body == "" {
			body = defaultBody(turn.Status, req.Model)
		}
		writeError(w, turn.Status, body, turn.Header)
		return
	}
	if !s.stream(w, r, req, turn, n) {
		s.mu.Lock()
		s.disconnects++
		first := s.disconnects == 1
		s.mu.Unlock()
		if first {
			close(s.disconnected)
		}
	}
}

// turn picks the turn for req.
func (s *Server) turn(req Request) (Turn, bool) {
	if s.opts.Respond != nil {
		return s.opts.Respond(req), true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.opts.Script) == 0 {
		return Turn{}, false
	}
	i := s.next
	if i >= len(s.opts.Script) {
		if !s.opts.Loop {
			return Turn{}, false
		}
		i %= len(s.opts.Script)
		s.next = i
	}
	s.next++
	return s.opts.Script[i], true
}

// stream writes turn as an SSE stream. It reports false when the client
// went away (or the server closed) before the stream was complete.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, turn Turn, n int) bool {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	for k, v := range turn.Header {
		h[k] = v
	}
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	done := r.Context().Done()
	c := chunkWriter{w: w, flusher: flusher, id: fmt.Sprintf("chatcmpl-modeltest-%d", n), model: req.Model, created: time.Now().Unix(), usage: req.IncludeUsage}
	wait := func() bool {
		if turn.Delay <= 0 {
			select {
			case <-done:
				return false
			case <-s.stop:
				return false
			default:
				return true
			}
		}
		t := time.NewTimer(turn.Delay)
		defer t.Stop()
		select {
		case <-done:
			return false
		case <-s.stop:
			return false
		case <-t.C:
			return true
		}
	}
	send := func(delta map[string]any) bool {
		return wait() && c.write(delta, nil, nil) == nil
	}

	if !send(map[string]any{"role": "assistant", "content": ""}) {
		return false
	}
	field := turn.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, r := range turn.Reasoning {
		if !send(map[string]any{field: r}) {
			return false
		}
	}
	for _, t := range turn.Text {
		if !send(map[string]any{"content": t}) {
			return false
		}
	}
	for _, d := range toolCallDeltas(turn, n) {
		if !send(map[string]any{"tool_calls": []any{d}}) {
			return false
		}
	}
	if turn.Block {
		select {
		case <-done:
		case <-s.stop:
		}
		return false
	}
	finish := turn.Finish
	if finish == "" {
		finish = "stop"
		if len(turn.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	if !wait() || c.write(map[string]any{}, &finish, nil) != nil {
		return false
	}
	if req.IncludeUsage {
		u := turn.Usage
		if u == nil {
			u = estimate(req, turn)
		}
		if c.write(nil, nil, u) != nil {
			return false
		}
	}
	if _, err := io.WriteString(w, "data: [DONE]\n\n"); err != nil {
		return false
	}
	if flusher != nil {
		flusher.Flush()
	}
	return true
}

// toolCallDeltas returns the tool_calls delta entries of turn in sending
// order.
func toolCallDeltas(turn Turn, n int) []map[string]any {
	perCall := make([][]map[string]any, len(turn.ToolCalls))
	for i, tc := range turn.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n, i)
		}
		perCall[i] = append(perCall[i], map[string]any{
			"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		})
		pieces := tc.Pieces
		if pieces <= 0 {
			pieces = 3
		}
		for _, p := range split(tc.Arguments, pieces) {
			perCall[i] = append(perCall[i], map[string]any{
				"index": i, "function": map[string]any{"arguments": p},
			})
		}
	}
	var out []map[string]any
	if !turn.Interleave {
		for _, c := range perCall {
			out = append(out, c...)
		}
		return out
	}
	for k := 0; ; k++ {
		added := false
		for _, c := range perCall {
			if k < len(c) {
				out = append(out, c[k])
				added = true
			}
		}
		if !added {
			return out
		}
	}
}

// split cuts s into at most n non-empty pieces on rune boundaries.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	size := (len(s) + n - 1) / n
	var out []string
	for len(s) > 0 {
		end := min(size, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// estimate returns usage at four characters per token.
func estimate(req Request, turn Turn) *Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content)
	}
	out, reasoning := 0, 0
	for _, t := range turn.Text {
		out += len(t)
	}
	for _, r := range turn.Reasoning {
		reasoning += len(r)
	}
	for _, c := range turn.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := &Usage{PromptTokens: (in + 3) / 4, CompletionTokens: (out + reasoning + 3) / 4, ReasoningTokens: (reasoning + 3) / 4}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// chunkWriter writes chat.completion.chunk events.
type chunkWriter struct {
	w       io.Writer
	flusher http.Flusher
	id      string
	model   string
	created int64
	usage   bool // include "usage": null in content chunks, as OpenAI does
}

type chunkJSON struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []choiceJSON `json:"choices"`
	Usage   any          `json:"usage,omitempty"`
}

type choiceJSON struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	FinishReason *string        `json:"finish_reason"`
}

type usageJSON struct {
	PromptTokens            int `json:"prompt_tokens"`
	CompletionTokens        int `json:"completion_tokens"`
	TotalTokens             int `json:"total_tokens"`
	PromptTokensDetails     any `json:"prompt_tokens_details"`
	CompletionTokensDetails any `json:"completion_tokens_details"`
}

// write sends one chunk: a delta (with finish when not nil), or, with
// delta nil, the final usage chunk with no choices.
func (c *chunkWriter) write(delta map[string]any, finish *string, u *Usage) error {
	ch := chunkJSON{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: c.model, Choices: []choiceJSON{}}
	if delta != nil {
		ch.Choices = append(ch.Choices, choiceJSON{Delta: delta, FinishReason: finish})
		if c.usage {
			ch.Usage = json.RawMessage("null")
		}
	}
	if u != nil {
		ch.Usage = usageJSON{
			PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
			PromptTokensDetails:     map[string]int{"cached_tokens": u.CachedTokens},
			CompletionTokensDetails: map[string]int{"reasoning_tokens": u.ReasoningTokens},
		}
	}
	b, err := json.Marshal(ch)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(c.w, "data: %s\n\n", b); err != nil {
		return err
	}
	if c.flusher != nil {
		c.flusher.Flush()
	}
	return nil
}

// writeError writes an error answer.
func writeError(w http.ResponseWriter, status int, body string, header http.Header) {
	for k, v := range header {
		w.Header()[k] = v
	}
	if json.Valid([]byte(body)) {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// defaultBody returns OpenAI's error body for status.
func defaultBody(status int, model string) string {
	switch {
	case status == http.StatusUnauthorized:
		return errorJSON("Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
	case status == http.StatusNotFound:
		return errorJSON(fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model), "invalid_request_error", "model_not_found")
	case status == http.StatusTooManyRequests:
		return errorJSON("Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded")
	case status >= 500:
		return errorJSON("The server had an error while processing your request. Sorry about that!", "server_error", "")
	}
	return errorJSON(http.StatusText(status), "invalid_request_error", "")
}

func errorJSON(msg, typ, code string) string {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	b, _ := json.Marshal(map[string]any{"error": e}) // plain maps always marshal
	return string(b)
}
