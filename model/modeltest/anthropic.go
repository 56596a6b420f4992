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
)

// AnthropicTurn is the fake Messages API's answer to one request. The
// stream has the documented event shapes: message_start, ping, then per
// content block content_block_start, its deltas and content_block_stop,
// then message_delta and message_stop.
type AnthropicTurn struct {
	// Thinking pieces are streamed first as one thinking block signed with
	// Signature (default "sig-<turn>").
	Thinking  []string
	Signature string
	// Redacted, when set, adds a redacted_thinking block with this data
	// after the thinking block.
	Redacted string
	// Text pieces are streamed as one text block.
	Text []string
	// ToolCalls are streamed after the text, one tool_use block each, the
	// input in Pieces input_json_delta pieces. IDs default to
	// "toolu_<turn>_<n>".
	ToolCalls []ToolCall
	// StopReason defaults to "tool_use" with tool calls and "end_turn"
	// otherwise.
	StopReason string
	// Usage is reported in message_start (input and cache) and
	// message_delta (output); nil sends an estimate.
	Usage *AnthropicUsage
	// StreamError, when set, answers 200 and then sends an error event of
	// this type (for example "overloaded_error") instead of any content.
	StreamError string
	// Delay is waited before each event.
	Delay time.Duration
	// Block holds the stream open after the content blocks until the
	// client disconnects or the server closes.
	Block bool
	// Status, when not 0, answers with this HTTP status and Body (default:
	// an Anthropic error body for the status).
	Status int
	Body   string
	// Header is added to the response, for example retry-after.
	Header http.Header
}

// AnthropicUsage is the usage a turn reports.
type AnthropicUsage struct {
	InputTokens, OutputTokens                      int
	CacheReadInputTokens, CacheCreationInputTokens int
}

// AnthropicOptions configures [StartAnthropic].
type AnthropicOptions struct {
	// Script lists the turns, one per request, in order.
	Script []AnthropicTurn
	// Respond, when set, chooses the turn from the raw request body instead
	// of Script. It may be called concurrently.
	Respond func(body json.RawMessage) AnthropicTurn
	// APIKey, when set, makes requests without "x-api-key: APIKey" fail
	// with 401.
	APIKey string
	// Errorf reports requests the server cannot answer.
	Errorf func(format string, args ...any)
}

// AnthropicServer is a fake Anthropic Messages API at URL()/v1/messages.
// It is safe for concurrent use.
type AnthropicServer struct {
	srv          *httptest.Server
	opts         AnthropicOptions
	stop         chan struct{}
	stopOnce     sync.Once
	disconnected chan struct{}

	mu       sync.Mutex // guards next, requests, headers
	next     int
	requests []json.RawMessage
	headers  []http.Header
}

// NewAnthropicServer starts a fake Messages API answering with script and
// closes it when the test ends. A request beyond the script fails the test.
func NewAnthropicServer(t testing.TB, script ...AnthropicTurn) *AnthropicServer {
	t.Helper()
	s := StartAnthropic(AnthropicOptions{Script: script, Errorf: t.Errorf})
	t.Cleanup(s.Close)
	return s
}

// StartAnthropic starts a fake Messages API; the caller must call Close.
func StartAnthropic(opts AnthropicOptions) *AnthropicServer {
	s := &AnthropicServer{opts: opts, stop: make(chan struct{}), disconnected: make(chan struct{}, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the API root to configure as the base URL (the SDK appends
// /v1/messages).
func (s *AnthropicServer) URL() string { return s.srv.URL }

// Close ends blocked streams and stops the server.
func (s *AnthropicServer) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.srv.Close()
}

// Requests returns the raw bodies of the requests received so far.
func (s *AnthropicServer) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

// Headers returns the headers of the requests received so far.
func (s *AnthropicServer) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// Disconnected receives a value each time a client leaves a stream early.
func (s *AnthropicServer) Disconnected() <-chan struct{} { return s.disconnected }

func (s *AnthropicServer) errorf(format string, args ...any) {
	if s.opts.Errorf != nil {
		s.opts.Errorf(format, args...)
	}
}

func (s *AnthropicServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeAnthropicError(w, http.StatusNotFound, "not_found_error", "Not found: "+r.URL.Path, nil)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil || !json.Valid(body) {
		s.errorf("modeltest: anthropic: malformed request body: %v", err)
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "malformed JSON", nil)
		return
	}
	if s.opts.APIKey != "" && r.Header.Get("x-api-key") != s.opts.APIKey {
		writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key", nil)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, body)
	s.headers = append(s.headers, r.Header.Clone())
	n := s.next
	s.next++
	s.mu.Unlock()
	var turn AnthropicTurn
	switch {
	case s.opts.Respond != nil:
		turn = s.opts.Respond(body)
	case n < len(s.opts.Script):
		turn = s.opts.Script[n]
	default:
		s.errorf("modeltest: anthropic: request %d but the script has %d turns", n+1, len(s.opts.Script))
		writeAnthropicError(w, http.StatusInternalServerError, "api_error", "script exhausted", nil)
		return
	}
	if turn.Status != 0 {
		if turn.Body != "" {
			for k, vs := range turn.Header {
				w.Header()[k] = vs
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(turn.Status)
			_, _ = io.WriteString(w, turn.Body)
			return
		}
		writeAnthropicError(w, turn.Status, anthropicErrorType(turn.Status), http.StatusText(turn.Status), turn.Header)
		return
	}
	s.stream(w, r, body, turn, n)
}

// anthropicErrorType is the error type the API sends with status.
func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

// AnthropicErrorBody is the API's error body.
func AnthropicErrorBody(typ, msg string) string {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	return string(b)
}

func writeAnthropicError(w http.ResponseWriter, status int, typ, msg string, header http.Header) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, AnthropicErrorBody(typ, msg))
}

func (s *AnthropicServer) stream(w http.ResponseWriter, r *http.Request, body json.RawMessage, turn AnthropicTurn, n int) {
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	flusher, _ := w.(http.Flusher)
	for k, vs := range turn.Header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	gone := false
	send := func(event string, data any) bool {
		if gone {
			return false
		}
		if turn.Delay > 0 {
			select {
			case <-time.After(turn.Delay):
			case <-r.Context().Done():
			}
		}
		if r.Context().Err() != nil {
			gone = true
			s.disconnected <- struct{}{}
			return false
		}
		b, _ := json.Marshal(data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			gone = true
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	u := turn.Usage
	if u == nil {
		u = &AnthropicUsage{InputTokens: len(body) / 4, OutputTokens: 1}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", n+1), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": 1,
			"cache_read_input_tokens": u.CacheReadInputTokens, "cache_creation_input_tokens": u.CacheCreationInputTokens},
	}})
	send("ping", map[string]any{"type": "ping"})
	if turn.StreamError != "" {
		send("error", map[string]any{"type": "error", "error": map[string]any{"type": turn.StreamError, "message": "Overloaded"}})
		return
	}
	index := 0
	block := func(start map[string]any, deltas []map[string]any) {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range deltas {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if len(turn.Thinking) > 0 {
		sig := turn.Signature
		if sig == "" {
			sig = fmt.Sprintf("sig-%d", n+1)
		}
		var ds []map[string]any
		for _, t := range turn.Thinking {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": t})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": sig})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds)
	}
	if turn.Redacted != "" {
		block(map[string]any{"type": "redacted_thinking", "data": turn.Redacted}, nil)
	}
	if len(turn.Text) > 0 {
		var ds []map[string]any
		for _, t := range turn.Text {
			ds = append(ds, map[string]any{"type": "text_delta", "text": t})
		}
		block(map[string]any{"type": "text", "text": ""}, ds)
	}
	for i, c := range turn.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", n+1, i)
		}
		pieces := c.Pieces
		if pieces == 0 {
			pieces = 3
		}
		var ds []map[string]any
		for _, p := range split(c.Arguments, pieces) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		block(map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": map[string]any{}}, ds)
	}
	if turn.Block {
		select {
		case <-r.Context().Done():
			s.disconnected <- struct{}{}
		case <-s.stop:
		}
		return
	}
	stop := turn.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(turn.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	out := u.OutputTokens
	if turn.Usage == nil {
		out = (len(strings.Join(turn.Text, "")) + len(strings.Join(turn.Thinking, ""))) / 4
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out}})
	send("message_stop", map[string]any{"type": "message_stop"})
}
