// Command minimalagent is about the smallest ACP agent that can answer a
// prompt with a model, written with the standard library only. bench/acp
// measures it next to hermes-acp to show the floor a Go agent pays on the
// machine at hand: process start, a session, and one streamed Chat
// Completions request per prompt to $OPENAI_BASE_URL (model $HERMES_MODEL).
//
// It answers initialize, authenticate, session/new and session/prompt
// (streaming the model's text as agent_message_chunk updates), ignores
// notifications, and answers other requests with method not found. Prompts
// run on the reading goroutine, one at a time; the agent exits when stdin
// closes.
//
// Usage (bench/acp/run.sh builds it when the peer command is "minimal"):
//
//	go build -o /tmp/minimalagent ./bench/acp/minimalagent
//	go run ./bench/acp --compare -- hermes-acp -- /tmp/minimalagent
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	os.Exit(run(context.Background(), os.Stdin, os.Stdout, os.Stderr, os.Getenv, http.DefaultClient))
}

// message is any JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// agent holds what a connection needs. It is used by one goroutine.
type agent struct {
	out      *bufio.Writer
	getenv   func(string) string
	client   *http.Client
	sessions int
}

// run serves ACP on stdin and stdout until stdin closes; it returns the
// exit code.
func run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, client *http.Client) int {
	a := &agent{out: bufio.NewWriter(stdout), getenv: getenv, client: client}
	in := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if werr := a.handle(ctx, line); werr != nil {
				fmt.Fprintln(stderr, "minimalagent:", werr)
				return 1
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(stderr, "minimalagent: read stdin:", err)
			return 1
		}
	}
}

// handle answers one line; it returns an error only when stdout fails.
func (a *agent) handle(ctx context.Context, line []byte) error {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return a.send(message{ID: json.RawMessage("null"), Error: &wireError{Code: -32700, Message: "parse error"}})
	}
	if m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil // a response or a notification
	}
	reply := message{ID: m.ID}
	switch m.Method {
	case "initialize":
		reply.Result = map[string]any{
			"protocolVersion":   1,
			"agentCapabilities": map[string]any{"promptCapabilities": map[string]bool{}},
			"authMethods":       []any{},
			"agentInfo":         map[string]string{"name": "minimalagent", "version": "1"},
		}
	case "authenticate":
		reply.Result = map[string]any{}
	case "session/new":
		a.sessions++
		reply.Result = map[string]string{"sessionId": fmt.Sprintf("sess-%d", a.sessions)}
	case "session/prompt":
		stop, err := a.prompt(ctx, m.Params)
		if err != nil {
			reply.Error = &wireError{Code: -32603, Message: err.Error()}
		} else {
			reply.Result = map[string]string{"stopReason": stop}
		}
	default:
		reply.Error = &wireError{Code: -32601, Message: "method not found: " + m.Method}
	}
	return a.send(reply)
}

func (a *agent) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := a.out.Write(b); err != nil {
		return err
	}
	return a.out.Flush()
}

// prompt asks the model and streams its text to the client.
func (a *agent) prompt(ctx context.Context, raw json.RawMessage) (string, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", fmt.Errorf("session/prompt params: %w", err)
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	base, model := a.getenv("OPENAI_BASE_URL"), a.getenv("HERMES_MODEL")
	if base == "" || model == "" {
		return "end_turn", a.chunk(p.SessionID, "No model configured: set OPENAI_BASE_URL and HERMES_MODEL.")
	}
	body, err := json.Marshal(map[string]any{
		"model": model, "stream": true,
		"messages": []map[string]string{{"role": "user", "content": text.String()}},
	})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("model request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key := a.getenv("OPENAI_API_KEY"); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("model request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return "", fmt.Errorf("model: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	stop := "end_turn"
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", fmt.Errorf("model stream: %w", err)
		}
		for _, c := range chunk.Choices {
			if c.Delta.Content != "" {
				if err := a.chunk(p.SessionID, c.Delta.Content); err != nil {
					return "", err
				}
			}
			if c.FinishReason == "length" {
				stop = "max_tokens"
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("model stream: %w", err)
	}
	return stop, nil
}

// chunk sends one agent_message_chunk update.
func (a *agent) chunk(sessionID, text string) error {
	params, err := json.Marshal(map[string]any{
		"sessionId": sessionID,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]string{"type": "text", "text": text},
		},
	})
	if err != nil {
		return err
	}
	return a.send(message{Method: "session/update", Params: params})
}
