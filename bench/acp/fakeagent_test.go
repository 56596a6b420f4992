package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeAgentEnv selects the fake agent behaviour when the test binary is
// started as an agent.
const fakeAgentEnv = "BENCH_ACP_FAKE_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeAgentEnv); mode != "" {
		os.Exit(fakeAgent(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	if mode := os.Getenv(fakeTermAgentEnv); mode != "" {
		os.Exit(fakeTermAgent(mode, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// fakeAgent is a small ACP agent for the tests. Modes:
//
//	ok       checks its environment, asks for permission (wants
//	         "cancelled"), calls fs/read_text_file (wants an error), streams
//	         one reply from the model at OPENAI_BASE_URL
//	nomodel  answers prompts without calling the model
//	crash    writes "boom" to stderr and exits with status 3
//	auth     like ok, but session/new needs authenticate with methodId "key"
//	noisy    like ok, but first prints a line that is not JSON
//	background like ok, but session/new leaves a request to the model
//	         server hanging, as agents with background traffic do
//
// A failed check is returned as a JSON-RPC error, so the benchmark reports
// it.
func fakeAgent(mode string, stdin io.Reader, stdout, stderr io.Writer) int {
	if mode == "crash" {
		fmt.Fprintln(stderr, "boom")
		return 3
	}
	if mode == "noisy" {
		fmt.Fprintln(stdout, "hello from a sloppy agent")
	}
	a := &fakeACP{in: bufio.NewScanner(stdin), out: stdout, mode: mode}
	a.in.Buffer(make([]byte, 1<<20), 1<<20)
	a.envErr = checkFreshHome()
	for {
		m, ok := a.read()
		if !ok {
			return 0
		}
		if m.Method == "" || len(m.ID) == 0 {
			continue
		}
		res, err := a.handle(m)
		reply := envelope{JSONRPC: "2.0", ID: m.ID}
		var re *rpcError
		switch {
		case errors.As(err, &re):
			reply.Error = re
		case err != nil:
			reply.Error = &rpcError{Code: -32603, Message: err.Error()}
		default:
			b, _ := json.Marshal(res)
			reply.Result = b
		}
		a.write(reply)
	}
}

type fakeACP struct {
	in     *bufio.Scanner
	out    io.Writer
	mode   string
	envErr error
	authed bool
	nextID int
	cwd    string
	hold   net.Conn // the hanging background request
}

func (a *fakeACP) read() (envelope, bool) {
	for a.in.Scan() {
		var m envelope
		if json.Unmarshal(a.in.Bytes(), &m) == nil {
			return m, true
		}
	}
	return envelope{}, false
}

func (a *fakeACP) write(m envelope) {
	m.JSONRPC = "2.0"
	b, _ := json.Marshal(m)
	fmt.Fprintf(a.out, "%s\n", b)
}

// call sends a request to the client and waits for its response.
func (a *fakeACP) call(method string, params any) (json.RawMessage, *rpcError, error) {
	a.nextID++
	id := fmt.Sprintf(`"agent-%d"`, a.nextID)
	p, _ := json.Marshal(params)
	a.write(envelope{ID: json.RawMessage(id), Method: method, Params: p})
	for {
		m, ok := a.read()
		if !ok {
			return nil, nil, fmt.Errorf("%s: client went away", method)
		}
		if m.Method == "" && string(m.ID) == id {
			return m.Result, m.Error, nil
		}
	}
}

func (a *fakeACP) update(sessionID, text string) {
	p, _ := json.Marshal(map[string]any{"sessionId": sessionID, "update": map[string]any{
		"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": text},
	}})
	a.write(envelope{Method: "session/update", Params: p})
}

func (a *fakeACP) handle(m envelope) (any, error) {
	switch m.Method {
	case "initialize":
		if a.envErr != nil {
			return nil, a.envErr
		}
		return map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}, "authMethods": []any{}}, nil
	case "authenticate":
		var p struct {
			MethodID string `json:"methodId"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.MethodID != "key" {
			return nil, fmt.Errorf("unknown auth method %q", p.MethodID)
		}
		a.authed = true
		return map[string]any{}, nil
	case "session/new":
		if a.mode == "auth" && !a.authed {
			return nil, &rpcError{Code: -32000, Message: "Authentication required"}
		}
		var p struct {
			Cwd string `json:"cwd"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		wd, _ := os.Getwd()
		if same, err := samePath(wd, p.Cwd); err != nil || !same {
			return nil, fmt.Errorf("cwd %q is not the working directory %q", p.Cwd, wd)
		}
		if entries, err := os.ReadDir(p.Cwd); err != nil || len(entries) != 0 {
			return nil, fmt.Errorf("workspace %q is not a fresh empty folder (%d entries, %v)", p.Cwd, len(entries), err)
		}
		a.cwd = p.Cwd
		if a.mode == "background" {
			if err := a.startBackgroundRequest(); err != nil {
				return nil, err
			}
		}
		return map[string]string{"sessionId": "sess-1"}, nil
	case "session/prompt":
		if a.mode == "nomodel" {
			a.update("sess-1", "no model here")
			return map[string]string{"stopReason": "end_turn"}, nil
		}
		res, rerr, err := a.call("session/request_permission", map[string]any{
			"sessionId": "sess-1", "toolCall": map[string]string{"toolCallId": "c1"},
			"options": []map[string]string{{"optionId": "allow", "name": "Allow", "kind": "allow_once"}},
		})
		if err != nil {
			return nil, err
		}
		if rerr != nil || !bytes.Contains(res, []byte(`"outcome":"cancelled"`)) {
			return nil, fmt.Errorf("permission answer %s %v, want outcome cancelled", res, rerr)
		}
		_, rerr, err = a.call("fs/read_text_file", map[string]string{"sessionId": "sess-1", "path": filepath.Join(a.cwd, "x")})
		if err != nil {
			return nil, err
		}
		if rerr == nil || rerr.Code != -32601 {
			return nil, fmt.Errorf("fs/read_text_file answered %v, want error -32601", rerr)
		}
		text, err := askModel()
		if err != nil {
			return nil, err
		}
		if want := strings.Join(fakeReply, ""); text != want {
			return nil, fmt.Errorf("model said %q, want %q", text, want)
		}
		a.update("sess-1", text)
		return map[string]string{"stopReason": "end_turn"}, nil
	}
	return nil, fmt.Errorf("method not found: %s", m.Method)
}

// startBackgroundRequest sends the headers and part of the body of a
// request to the model server and leaves it hanging.
func (a *fakeACP) startBackgroundRequest() error {
	u, err := url.Parse(os.Getenv("OPENAI_BASE_URL"))
	if err != nil {
		return err
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		return err
	}
	a.hold = c
	_, err = fmt.Fprintf(c, "POST /v1/telemetry HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\n{", u.Host)
	return err
}

// checkFreshHome checks the environment the benchmark promises: a fresh
// HERMES_HOME (it leaves a marker to catch reuse), the fake model and the
// model name.
func checkFreshHome() error {
	home := os.Getenv("HERMES_HOME")
	if home == "" {
		return fmt.Errorf("HERMES_HOME is not set")
	}
	entries, err := os.ReadDir(home)
	if err != nil || len(entries) != 0 {
		return fmt.Errorf("HERMES_HOME %q is not a fresh empty folder (%d entries, %v)", home, len(entries), err)
	}
	if err := os.WriteFile(filepath.Join(home, "used"), nil, 0o600); err != nil {
		return err
	}
	if os.Getenv("OPENAI_BASE_URL") == "" || os.Getenv("OPENAI_API_KEY") == "" || os.Getenv("HERMES_MODEL") == "" {
		return fmt.Errorf("model environment missing: %q %q %q", os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY"), os.Getenv("HERMES_MODEL"))
	}
	return nil
}

// askModel streams one chat completion from OPENAI_BASE_URL and returns
// the text.
func askModel() (string, error) {
	body, _ := json.Marshal(map[string]any{
		"model": os.Getenv("HERMES_MODEL"), "stream": true,
		"messages": []map[string]string{{"role": "user", "content": "hi"}},
	})
	req, err := http.NewRequest(http.MethodPost, os.Getenv("OPENAI_BASE_URL")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("model: %s: %s", resp.Status, b)
	}
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
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
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", fmt.Errorf("model chunk %q: %w", data, err)
		}
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
		}
	}
	return text.String(), sc.Err()
}

func samePath(a, b string) (bool, error) {
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		return false, err
	}
	rb, err := filepath.EvalSymlinks(b)
	if err != nil {
		return false, err
	}
	return ra == rb, nil
}
