package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// commandMarker starts the line of a terminal benchmark prompt that names
// the command; the fake models read the command from there, so one server
// serves every scenario without state.
const commandMarker = "bench-command: "

// doneText is what the fake models say once the command's output came back.
const doneText = "The command finished."

// commandFrom returns the command named in a prompt text, or "".
func commandFrom(text string) string {
	i := strings.LastIndex(text, commandMarker)
	if i < 0 {
		return ""
	}
	cmd, _, _ := strings.Cut(text[i+len(commandMarker):], "\n")
	return strings.TrimSpace(cmd)
}

// toolOutputs records what the agent sent back as the command's output, so
// that a run can check the command really ran. It is safe for concurrent
// use.
type toolOutputs struct {
	mu      sync.Mutex
	outputs []string // each cut to keepOutput bytes at both ends
	notes   []string // requests the fake could not answer as planned
}

// keepOutput bounds the bytes of a tool output kept at each end.
const keepOutput = 4096

func (t *toolOutputs) add(s string) {
	if len(s) > 2*keepOutput {
		s = s[:keepOutput] + "\n[…]\n" + s[len(s)-keepOutput:]
	}
	t.mu.Lock()
	t.outputs = append(t.outputs, s)
	t.mu.Unlock()
}

func (t *toolOutputs) note(format string, args ...any) {
	t.mu.Lock()
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
	t.mu.Unlock()
}

// snapshot returns copies of the outputs and notes.
func (t *toolOutputs) snapshot() (outputs, notes []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.outputs...), append([]string(nil), t.notes...)
}

// responsesServer is a loopback fake of OpenAI's Responses API
// (POST /v1/responses, streamed as server-sent events), as far as codex
// needs it for one command: the first request of a turn is answered with a
// call of the shell tool the request offers, running the command the
// prompt names; the request that carries the call's output is answered
// with a short text. GET /v1/models answers an empty list; anything else
// is a 404, noted. The creator calls [responsesServer.Close].
type responsesServer struct {
	srv  *httptest.Server
	seen toolOutputs

	mu    sync.Mutex // guards calls
	calls int
}

// startResponses starts a fake Responses API server on loopback.
func startResponses() *responsesServer {
	s := &responsesServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's root, without /v1.
func (s *responsesServer) URL() string { return s.srv.URL }

// Close stops the server.
func (s *responsesServer) Close() { s.srv.Close() }

func (s *responsesServer) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
		if err != nil {
			s.seen.note("read %s body: %v", path, err)
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.calls++
		n := s.calls
		s.mu.Unlock()
		events, err := planResponse(body, n, &s.seen)
		if err != nil {
			s.seen.note("%v", err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		if err := writeSSE(w, events); err != nil {
			s.seen.note("write stream: %v", err)
		}
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
	default:
		s.seen.note("unexpected request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	}
}

// sseEvent is one server-sent event: its name and its JSON data.
type sseEvent struct {
	Name string
	Data map[string]any
}

// writeSSE writes events in the wire format of the Responses API
// ("event: NAME\ndata: JSON\n\n"), flushing after each.
func writeSSE(w io.Writer, events []sseEvent) error {
	fl, _ := w.(http.Flusher)
	for i, e := range events {
		e.Data["type"] = e.Name
		e.Data["sequence_number"] = i
		b, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("encode %s: %w", e.Name, err)
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Name, b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
	}
	return nil
}

// responsesRequest is the part of a Responses API request the fake reads.
type responsesRequest struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

// inputItem is the part of an input item the fake reads.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

// text is the text of a message's content: a string, or its text parts.
func (it inputItem) text() string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// outputText is a tool output's text: a string, or its text parts.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != "" {
		return obj.Content
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

// callPrefix starts the call ids the fake hands out.
const callPrefix = "call_bench_"

// runningSession finds the session id in the output of a unified-exec
// command that was still running when exec_command returned.
var runningSession = regexp.MustCompile(`session ID (\d+)`)

// planResponse decides the events answering request body, the n-th
// request this server got. Tool outputs it finds are recorded in seen.
func planResponse(body []byte, n int, seen *toolOutputs) ([]sseEvent, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode responses request: %w", err)
	}
	var items []inputItem
	for _, raw := range req.Input {
		var it inputItem
		if json.Unmarshal(raw, &it) == nil {
			items = append(items, it)
		}
	}
	tools := map[string]bool{}
	for _, t := range req.Tools {
		switch t.Type {
		case "function", "custom":
			tools[t.Name] = true
		default:
			tools[t.Type] = true // local_shell, web_search, …
		}
	}
	respID := fmt.Sprintf("resp_bench_%d", n)

	// The last item after the last user message decides: a tool output
	// means the command ran.
	lastUser := -1
	for i, it := range items {
		if it.Type == "message" && it.Role == "user" && commandFrom(it.text()) != "" {
			lastUser = i
		}
	}
	if lastUser < 0 {
		return textResponse(respID, "No command was asked for."), nil
	}
	for i := len(items) - 1; i > lastUser; i-- {
		it := items[i]
		if !strings.HasSuffix(it.Type, "_call_output") {
			continue
		}
		out := outputText(it.Output)
		seen.add(out)
		if m := runningSession.FindStringSubmatch(out); m != nil && tools["write_stdin"] && !strings.Contains(out, "exited with code") {
			id, _ := strconv.Atoi(m[1])
			args, _ := json.Marshal(map[string]any{"session_id": id, "chars": "", "yield_time_ms": 30000})
			return functionCallResponse(respID, n, "write_stdin", string(args)), nil
		}
		return textResponse(respID, doneText), nil
	}

	cmd := commandFrom(items[lastUser].text())
	switch {
	case tools["shell_command"]:
		args, _ := json.Marshal(map[string]any{"command": cmd, "timeout_ms": 600000})
		return functionCallResponse(respID, n, "shell_command", string(args)), nil
	case tools["shell"]:
		args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-c", cmd}, "timeout_ms": 600000})
		return functionCallResponse(respID, n, "shell", string(args)), nil
	case tools["local_shell"]:
		item := map[string]any{
			"type": "local_shell_call", "id": fmt.Sprintf("lsh_bench_%d", n), "call_id": fmt.Sprintf("%s%d", callPrefix, n), "status": "completed",
			"action": map[string]any{"type": "exec", "command": []string{"bash", "-c", cmd}, "timeout_ms": 600000},
		}
		return itemResponse(respID, item), nil
	case tools["exec_command"]:
		args, _ := json.Marshal(map[string]any{"cmd": cmd, "yield_time_ms": 30000})
		return functionCallResponse(respID, n, "exec_command", string(args)), nil
	}
	names := make([]string, 0, len(tools))
	for k := range tools {
		names = append(names, k)
	}
	seen.note("the request offers no shell tool (tools: %s)", strings.Join(names, ", "))
	return textResponse(respID, "There is no shell tool."), nil
}

// created and completed frame every response.
func created(id string) sseEvent {
	return sseEvent{"response.created", map[string]any{"response": map[string]any{"id": id, "object": "response", "status": "in_progress"}}}
}

func completed(id string) sseEvent {
	return sseEvent{"response.completed", map[string]any{"response": map[string]any{
		"id": id, "object": "response", "status": "completed",
		"usage": map[string]any{
			"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": 110,
		},
	}}}
}

// functionCallResponse calls the function tool name with args.
func functionCallResponse(respID string, n int, name, args string) []sseEvent {
	return itemResponse(respID, map[string]any{
		"type": "function_call", "id": fmt.Sprintf("fc_bench_%d", n), "status": "completed",
		"call_id": fmt.Sprintf("%s%d", callPrefix, n), "name": name, "arguments": args,
	})
}

// itemResponse is a response with one output item, added then done.
func itemResponse(respID string, item map[string]any) []sseEvent {
	return []sseEvent{
		created(respID),
		{"response.output_item.added", map[string]any{"output_index": 0, "item": item}},
		{"response.output_item.done", map[string]any{"output_index": 0, "item": item}},
		completed(respID),
	}
}

// textResponse is an assistant message streamed as one delta.
func textResponse(respID, text string) []sseEvent {
	msgID := "msg_" + respID
	empty := map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "in_progress", "content": []any{}}
	done := map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	return []sseEvent{
		created(respID),
		{"response.output_item.added", map[string]any{"output_index": 0, "item": empty}},
		{"response.output_text.delta", map[string]any{"output_index": 0, "content_index": 0, "item_id": msgID, "delta": text}},
		{"response.output_item.done", map[string]any{"output_index": 0, "item": done}},
		completed(respID),
	}
}
