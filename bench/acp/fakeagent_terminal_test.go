package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// fakeTermAgentEnv starts the test binary as a fake agent that runs the
// command its model asks for and streams the output, as hermes-acp does
// (CODEX_HOME unset: Chat Completions at OPENAI_BASE_URL, "terminal" tool)
// or as codex-acp does (CODEX_HOME set: the Responses API at the base_url
// of CODEX_HOME/config.toml, "shell_command" tool). Modes:
//
//	ok          as described; asks permission first (wants an allow option)
//	noterminal  offers the model no terminal tool
const fakeTermAgentEnv = "BENCH_ACP_FAKE_TERM_AGENT"

// fakeChunk is how many bytes of output each tool_call_update carries.
const fakeChunk = 64 << 10

func fakeTermAgent(mode string, stdin io.Reader, stdout io.Writer) int {
	a := &fakeACP{in: bufio.NewScanner(stdin), out: stdout, mode: mode}
	a.in.Buffer(make([]byte, 1<<20), 1<<20)
	for {
		m, ok := a.read()
		if !ok {
			return 0
		}
		if m.Method == "" || len(m.ID) == 0 {
			continue
		}
		var res any
		var err error
		switch m.Method {
		case "initialize":
			res = map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}, "authMethods": []any{}}
		case "session/new":
			res = map[string]string{"sessionId": "sess-t"}
		case "session/prompt":
			res, err = a.termTurn(m.Params)
		default:
			err = fmt.Errorf("method not found: %s", m.Method)
		}
		reply := envelope{JSONRPC: "2.0", ID: m.ID}
		if err != nil {
			reply.Error = &rpcError{Code: -32603, Message: err.Error()}
		} else {
			reply.Result, _ = json.Marshal(res)
		}
		a.write(reply)
	}
}

func (a *fakeACP) send(update map[string]any) {
	p, _ := json.Marshal(map[string]any{"sessionId": "sess-t", "update": update})
	a.write(envelope{Method: "session/update", Params: p})
}

// termTurn asks the model, runs the command it calls for, streams the
// output in fakeChunk pieces and gives the output back to the model.
func (a *fakeACP) termTurn(params json.RawMessage) (any, error) {
	var p struct {
		Prompt []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Prompt) == 0 {
		return nil, fmt.Errorf("bad prompt %s", params)
	}
	prompt := p.Prompt[0].Text
	codexHome := os.Getenv("CODEX_HOME")
	var cmd string
	var err error
	if codexHome != "" {
		cmd, err = askResponses(codexHome, prompt, "")
	} else {
		cmd, err = askChat(prompt, "", a.mode != "noterminal")
	}
	if err != nil {
		return nil, err
	}
	if cmd == "" { // the model answered with text
		return map[string]string{"stopReason": "end_turn"}, nil
	}
	res, rerr, err := a.call("session/request_permission", map[string]any{
		"sessionId": "sess-t", "toolCall": map[string]string{"toolCallId": "t1"},
		"options": []map[string]string{{"optionId": "no", "name": "Reject", "kind": "reject_once"}, {"optionId": "yes", "name": "Allow", "kind": "allow_once"}},
	})
	if err != nil {
		return nil, err
	}
	if rerr != nil || !bytes.Contains(res, []byte(`"optionId":"yes"`)) {
		return nil, fmt.Errorf("permission answer %s %v, want option yes", res, rerr)
	}
	a.send(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": cmd, "kind": "execute", "status": "in_progress"})
	out, err := exec.Command("bash", "-c", cmd).Output()
	if err != nil {
		return nil, fmt.Errorf("run %q: %w", cmd, err)
	}
	for i := 0; i < len(out); i += fakeChunk {
		chunk := out[i:min(i+fakeChunk, len(out))]
		a.send(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1",
			"content": []any{map[string]any{"type": "content", "content": map[string]string{"type": "text", "text": string(chunk)}}}})
	}
	a.send(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})
	if codexHome != "" {
		_, err = askResponses(codexHome, prompt, string(out))
	} else {
		_, err = askChat(prompt, string(out), true)
	}
	if err != nil {
		return nil, err
	}
	a.send(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": doneText}})
	return map[string]string{"stopReason": "end_turn"}, nil
}

// askChat sends the prompt (and the tool's output, when not empty) to the
// Chat Completions server and returns the command of the terminal call.
func askChat(prompt, output string, offerTerminal bool) (string, error) {
	msgs := []map[string]any{{"role": "user", "content": prompt}}
	if output != "" {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]string{"name": "terminal", "arguments": "{}"}}}},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": output})
	}
	tool := "terminal"
	if !offerTerminal {
		tool = "read_file"
	}
	body, _ := json.Marshal(map[string]any{
		"model": os.Getenv("HERMES_MODEL"), "stream": true, "messages": msgs,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": tool, "parameters": map[string]any{"type": "object"}}}},
	})
	resp, err := http.Post(os.Getenv("OPENAI_BASE_URL")+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("model: %s: %s", resp.Status, b)
	}
	var args strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", err
		}
		for _, c := range chunk.Choices {
			for _, tc := range c.Delta.ToolCalls {
				args.WriteString(tc.Function.Arguments)
			}
		}
	}
	if args.Len() == 0 {
		return "", sc.Err()
	}
	var call struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal([]byte(args.String()), &call); err != nil {
		return "", fmt.Errorf("terminal arguments %q: %w", args.String(), err)
	}
	return call.Command, nil
}

var baseURLLine = regexp.MustCompile(`(?m)^base_url = "([^"]+)"$`)

// askResponses sends the prompt (and the output, when not empty) to the
// Responses API that CODEX_HOME/config.toml names, checks the settings the
// benchmark promises, and returns the command of the shell_command call.
func askResponses(home, prompt, output string) (string, error) {
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		return "", err
	}
	for _, want := range []string{`approval_policy = "never"`, `wire_api = "responses"`, `env_key = "BENCH_FAKE_API_KEY"`, "[analytics]\nenabled = false"} {
		if !strings.Contains(string(cfg), want) {
			return "", fmt.Errorf("config.toml lacks %q:\n%s", want, cfg)
		}
	}
	m := baseURLLine.FindSubmatch(cfg)
	if m == nil || !strings.HasPrefix(string(m[1]), "http://127.0.0.1:") {
		return "", fmt.Errorf("config.toml has no loopback base_url:\n%s", cfg)
	}
	input := []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": prompt}}}}
	if output != "" {
		input = append(input,
			map[string]any{"type": "function_call", "name": "shell_command", "arguments": "{}", "call_id": "call_bench_1"},
			map[string]any{"type": "function_call_output", "call_id": "call_bench_1", "output": output})
	}
	body, _ := json.Marshal(map[string]any{"model": "bench-model", "stream": true, "input": input,
		"tools": []any{map[string]any{"type": "function", "name": "shell_command"}, map[string]any{"type": "web_search"}}})
	req, _ := http.NewRequest(http.MethodPost, string(m[1])+"/responses", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+os.Getenv("BENCH_FAKE_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	events, err := readSSE(resp.Body)
	if err != nil {
		return "", err
	}
	if len(events) == 0 || events[len(events)-1].Name != "response.completed" {
		return "", errors.New("the stream did not end with response.completed")
	}
	for _, e := range events {
		item, _ := e.Data["item"].(map[string]any)
		if e.Name != "response.output_item.done" || item["type"] != "function_call" {
			continue
		}
		var call struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal([]byte(item["arguments"].(string)), &call); err != nil {
			return "", err
		}
		return call.Command, nil
	}
	return "", nil
}

// readSSE parses a Responses API stream, checking that each event's name
// is its data's type.
func readSSE(r io.Reader) ([]sseEvent, error) {
	var events []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				return nil, fmt.Errorf("event %s: %w", name, err)
			}
			if data["type"] != name {
				return nil, fmt.Errorf("event %q carries type %v", name, data["type"])
			}
			events = append(events, sseEvent{Name: name, Data: data})
			name = ""
		case line == "":
		default:
			return nil, fmt.Errorf("unexpected line %q", line)
		}
	}
	return events, sc.Err()
}
