package main_test

// End-to-end tests of the real binary over stdio, with raw JSON-RPC lines:
// what an editor sees when it starts hermes-acp.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/hermes-acp/hermes-acp/internal/schematest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// initializeResult is the part of InitializeResponse the tests look at.
type initializeResult struct {
	ProtocolVersion   int `json:"protocolVersion"`
	AgentCapabilities struct {
		Meta struct {
			Hermes struct {
				Diagnostics bool `json:"diagnostics"`
			} `json:"hermes"`
		} `json:"_meta"`
	} `json:"agentCapabilities"`
	AgentInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"agentInfo"`
}

// initializeOnce pipes one initialize request offering version into the
// binary, closes stdin, and returns the decoded result, stdout's lines and
// how long the process ran.
func initializeOnce(t *testing.T, version int) (initializeResult, []string, time.Duration) {
	t.Helper()
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%d,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":false},"clientInfo":{"name":"e2e","version":"1.0.0"}}}`, version)
	checker := schematest.Attach(t)
	checker.Line(false, []byte(req))
	start := time.Now()
	stdout, stderr, err := runBinary(t, exitDeadline, req+"\n", baseEnv(t))
	ran := time.Since(start)
	if err != nil {
		t.Fatalf("hermes-acp exited with %v, want status 0\nstderr:\n%s", err, stderr)
	}
	if !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout does not end with a newline: %q", stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	for _, l := range lines {
		checkAgentLine(checker, []byte(l))
	}
	var resp struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *int             `json:"id"`
		Result  initializeResult `json:"result"`
		Error   *rpcError        `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil {
		t.Fatalf("first stdout line is not JSON: %v\n%s", err, lines[0])
	}
	if resp.JSONRPC != "2.0" || resp.ID == nil || *resp.ID != 0 || resp.Error != nil {
		t.Fatalf("first stdout line is not the initialize response: %s", lines[0])
	}
	return resp.Result, lines, ran
}

func TestInitializeOnlyThenExit(t *testing.T) {
	t.Parallel()
	res, lines, ran := initializeOnce(t, 1)
	t.Logf("hermes-acp answered initialize and exited after %v", ran.Round(time.Millisecond))
	if len(lines) != 1 {
		t.Errorf("stdout has %d lines, want exactly the initialize response:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if res.ProtocolVersion != 1 {
		t.Errorf("protocolVersion = %d, want 1", res.ProtocolVersion)
	}
	if res.AgentInfo.Name != "hermes-acp" {
		t.Errorf("agentInfo.name = %q, want %q", res.AgentInfo.Name, "hermes-acp")
	}
	if res.AgentInfo.Version == "" {
		t.Error("agentInfo.version is empty")
	}
	if !res.AgentCapabilities.Meta.Hermes.Diagnostics {
		t.Error("agentCapabilities._meta.hermes.diagnostics is not true")
	}
}

func TestProtocolVersionNegotiation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		offered, want int
	}{
		{offered: 1, want: 1},
		{offered: 2, want: 1},
		{offered: 65535, want: 1},
	} {
		t.Run(fmt.Sprint(tc.offered), func(t *testing.T) {
			t.Parallel()
			res, _, _ := initializeOnce(t, tc.offered)
			if res.ProtocolVersion != tc.want {
				t.Errorf("client offers %d: protocolVersion = %d, want %d", tc.offered, res.ProtocolVersion, tc.want)
			}
		})
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	t.Parallel()
	a := startRaw(t, nil, baseEnv(t))
	res, _ := a.call(t, "session/list", map[string]any{})
	if res.Error == nil || res.Error.Code != -32600 {
		t.Fatalf("session/list before initialize = %+v, want error -32600", res)
	}
	if !strings.Contains(res.Error.Message, "initialize") {
		t.Errorf("error message %q does not say to send initialize first", res.Error.Message)
	}
	a.initialize(t)
	var list struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	a.result(t, "session/list", map[string]any{}, &list)
	if list.Sessions == nil {
		t.Error("session/list after initialize: sessions is missing or null")
	}
}

func TestMalformedInputKeepsConnection(t *testing.T) {
	t.Parallel()
	a := startRaw(t, nil, baseEnv(t))
	a.initialize(t)
	sid := a.newSession(t)
	for _, tc := range []struct {
		name      string
		line      string
		noReply   bool   // a notification: nothing must come back
		wantID    string // the raw JSON id of the error response
		wantCode  int
		wantField string // for -32602: the field the error names
	}{
		{name: "garbage", line: `this is not JSON`, wantID: "null", wantCode: -32700},
		{name: "truncated JSON", line: `{"jsonrpc":"2.0","id":90,"method":"session/list"`, wantID: "null", wantCode: -32700},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":91,"method":"session/list","params":{}}]`, wantID: "null", wantCode: -32600},
		{name: "empty batch", line: `[]`, wantID: "null", wantCode: -32600},
		{name: "not an object", line: `42`, wantID: "null", wantCode: -32600},
		{name: "neither request nor response", line: `{"jsonrpc":"2.0","id":92}`, wantID: "92", wantCode: -32600},
		{name: "cwd of the wrong type", line: `{"jsonrpc":"2.0","id":93,"method":"session/new","params":{"cwd":42,"mcpServers":[]}}`, wantID: "93", wantCode: -32602, wantField: "cwd"},
		{name: "relative cwd", line: `{"jsonrpc":"2.0","id":94,"method":"session/new","params":{"cwd":"not/absolute","mcpServers":[]}}`, wantID: "94", wantCode: -32602, wantField: "cwd"},
		{name: "prompt of the wrong type", line: `{"jsonrpc":"2.0","id":95,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":"hello"}}`, wantID: "95", wantCode: -32602, wantField: "prompt"},
		{name: "protocolVersion of the wrong type", line: `{"jsonrpc":"2.0","id":96,"method":"initialize","params":{"protocolVersion":"one"}}`, wantID: "96", wantCode: -32602, wantField: "protocolVersion"},
		{name: "missing cwd", line: `{"jsonrpc":"2.0","id":97,"method":"session/new","params":{"mcpServers":[]}}`, wantID: "97", wantCode: -32602, wantField: "cwd"},
		{name: "missing sessionId", line: `{"jsonrpc":"2.0","id":98,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"hi"}]}}`, wantID: "98", wantCode: -32602, wantField: "sessionId"},
		{name: "missing prompt", line: `{"jsonrpc":"2.0","id":99,"method":"session/prompt","params":{"sessionId":"` + sid + `"}}`, wantID: "99", wantCode: -32602, wantField: "prompt"},
		{name: "unknown method", line: `{"jsonrpc":"2.0","id":100,"method":"session/frobnicate","params":{}}`, wantID: "100", wantCode: -32601},
		{name: "unknown extension method", line: `{"jsonrpc":"2.0","id":"ext-1","method":"_hermes/frobnicate","params":{}}`, wantID: `"ext-1"`, wantCode: -32601},
		{name: "unknown session", line: `{"jsonrpc":"2.0","id":101,"method":"session/prompt","params":{"sessionId":"sess_does_not_exist","prompt":[{"type":"text","text":"hi"}]}}`, wantID: "101", wantCode: -32002, wantField: "sessionId"},
		{name: "unknown notification", line: `{"jsonrpc":"2.0","method":"session/frobnicate","params":{}}`, noReply: true},
		{name: "unknown extension notification", line: `{"jsonrpc":"2.0","method":"_hermes/frobnicate","params":{}}`, noReply: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.send(t, tc.line)
			if !tc.noReply {
				res, _ := a.until(t)
				if res.Error == nil {
					t.Fatalf("response = %s, want error %d", res.Result, tc.wantCode)
				}
				if got := string(res.ID); got != tc.wantID {
					t.Errorf("error response id = %s, want %s", got, tc.wantID)
				}
				if res.Error.Code != tc.wantCode {
					t.Errorf("error code = %d (%s), want %d", res.Error.Code, res.Error.Message, tc.wantCode)
				}
				if tc.wantField != "" {
					if tc.wantCode == -32602 && !strings.Contains(res.Error.Message, tc.wantField) {
						t.Errorf("error message %q does not name %q", res.Error.Message, tc.wantField)
					}
					var data map[string]any
					_ = json.Unmarshal(res.Error.Data, &data)
					if data["field"] != tc.wantField && data[tc.wantField] == nil {
						t.Errorf("error data %s names neither field %q nor carries it", res.Error.Data, tc.wantField)
					}
				}
			}
			// The connection still answers, and nothing else came back:
			// call fails on any response but its own.
			var list struct {
				Sessions []struct {
					SessionID string `json:"sessionId"`
				} `json:"sessions"`
			}
			a.result(t, "session/list", map[string]any{}, &list)
		})
	}
}

func TestLargePrompt(t *testing.T) {
	t.Parallel()
	const size = 10 << 20
	const reply, shortReply = "That was a long prompt.", "Short answer."
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		switch {
		case last.Role == "user" && len(last.Content) >= size:
			return modeltest.Turn{Text: []string{reply}}
		case last.Role == "user" && last.Content == "A short one now.":
			return modeltest.Turn{Text: []string{shortReply}}
		}
		t.Errorf("fake model: unexpected request; last message %s of %d bytes", last.Role, len(last.Content))
		return modeltest.Turn{Status: 500}
	})
	a := startRaw(t, nil, baseEnv(t, modelEnv(srv)...))
	a.initialize(t)
	sid := a.newSession(t)
	// Built by hand: the text needs no escaping, and encoding 10 MiB under
	// the race detector would dominate the test.
	big := strings.Repeat("0123456789abcdef", size/16)
	a.send(t, `{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"`+big+`"}]}}`)
	res, before := a.until(t)
	var result struct {
		StopReason string `json:"stopReason"`
	}
	if string(res.ID) != `"big"` || res.Error != nil || json.Unmarshal(res.Result, &result) != nil {
		t.Fatalf("10 MiB prompt: response %+v, want the prompt's result", res)
	}
	if text := agentText(before); result.StopReason != "end_turn" || text != reply {
		t.Errorf("10 MiB prompt: stopReason %q, text %q; want end_turn, %q", result.StopReason, text, reply)
	}
	// The agent still serves requests and prompts (in a new session, so the
	// model is not sent the 10 MiB again).
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	a.result(t, "session/list", map[string]any{}, &list)
	if len(list.Sessions) == 0 {
		t.Errorf("session/list after the 10 MiB prompt lists no session")
	}
	stop, text := a.prompt(t, a.newSession(t), "A short one now.")
	if stop != "end_turn" || text != shortReply {
		t.Errorf("prompt after the 10 MiB one: stopReason %q, text %q; want end_turn, %q", stop, text, shortReply)
	}
}

// helloScript is the example script, relative to the package folder (the
// tests' working directory).
const helloScript = "../../examples/hello.yaml"

// helloGreeting returns the text of the example script's only reply.
func helloGreeting(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(helloScript)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Replies []struct {
			Text string `yaml:"text"`
		} `yaml:"replies"`
	}
	if err := yaml.Unmarshal(data, &s); err != nil || len(s.Replies) == 0 || s.Replies[0].Text == "" {
		t.Fatalf("%s: no reply text (%v)", helloScript, err)
	}
	return s.Replies[0].Text
}

func TestScriptedSession(t *testing.T) {
	t.Parallel()
	greeting := helloGreeting(t)
	a := startRaw(t, []string{"--model", "script:" + helloScript}, baseEnv(t))
	a.initialize(t)
	sid := a.newSession(t)
	stop, text := a.prompt(t, sid, "Hi there!")
	if stop != "end_turn" {
		t.Errorf("stopReason = %q, want end_turn", stop)
	}
	if text != greeting {
		t.Errorf("agent text = %q, want the script's greeting %q", text, greeting)
	}
}

func TestNoModelConfigured(t *testing.T) {
	t.Parallel()
	a := startRaw(t, nil, baseEnv(t))
	a.initialize(t)
	sid := a.newSession(t)
	stop, text := a.prompt(t, sid, "Hello?")
	if stop != "end_turn" {
		t.Errorf("stopReason = %q, want end_turn", stop)
	}
	for _, want := range []string{"No language model is configured", "hermes-acp --setup", "HERMES_MODEL"} {
		if !strings.Contains(text, want) {
			t.Errorf("agent message does not mention %q:\n%s", want, text)
		}
	}
}

func TestStdinClosedDuringTurn(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: []string{"Working on it"}, Block: true}
	})
	a := startRaw(t, nil, baseEnv(t, modelEnv(srv)...))
	a.initialize(t)
	sid := a.newSession(t)
	a.send(t, `{"jsonrpc":"2.0","id":"turn","method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"Take your time."}]}}`)
	// Wait until the model's first words arrived: its request is in flight.
	for {
		if m := a.next(t); agentText([]message{m}) != "" {
			break
		}
	}
	took, err := a.waitExit(t)
	t.Logf("hermes-acp exited %v after its stdin closed during a turn", took.Round(time.Millisecond))
	if err != nil {
		t.Errorf("hermes-acp exited with %v, want status 0", err)
	}
	select {
	case <-srv.Disconnected():
	case <-time.After(exitDeadline):
		t.Error("the model server never saw the agent's request end")
	}
}

func TestSubcommands(t *testing.T) {
	t.Parallel()
	initRes, _, _ := initializeOnce(t, 1)
	greeting := helloGreeting(t)
	for _, tc := range []struct {
		name  string
		args  []string
		exact string   // the whole of stdout, when set
		want  []string // substrings of stdout, in this order
	}{
		{
			name:  "version",
			args:  []string{"--version"},
			exact: "hermes-acp " + initRes.AgentInfo.Version + "\n",
		},
		{
			name: "demo",
			args: []string{"demo"},
			want: []string{"● connected to hermes-acp", "🔧 ", "● end_turn"},
		},
		{
			name: "client",
			args: []string{"client", "--cwd", t.TempDir(), "--prompt", "hi", "--", agentBin, "--model", "script:" + helloScript},
			want: []string{"● connected to hermes-acp", "> hi", greeting, "● end_turn"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, err := runBinary(t, 20*time.Second, "", baseEnv(t), tc.args...)
			if err != nil {
				t.Fatalf("hermes-acp %s: %v, want status 0\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), err, stdout, stderr)
			}
			if tc.exact != "" {
				if diff := cmp.Diff(tc.exact, stdout); diff != "" {
					t.Errorf("hermes-acp %s: stdout mismatch (-want +got):\n%s", strings.Join(tc.args, " "), diff)
				}
			}
			rest := stdout
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("hermes-acp %s: stdout lacks %q (after the parts before it):\n%s\nstderr:\n%s", strings.Join(tc.args, " "), w, stdout, stderr)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
