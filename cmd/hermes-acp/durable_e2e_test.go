//go:build unix

package main_test

// Sessions survive kill -9 (#13 item 6), against the real binary: an
// editor that kills its agent as the window closes (Zed does) right after a
// turn, or in the middle of one, finds the session in session/list after a
// restart, and session/load replays every message whose update it had
// received before the kill.

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// durableUpdate is the part of a session/update this test looks at.
type durableUpdate struct {
	Kind       string // sessionUpdate
	Text       string // text content of a chunk
	ToolCallID string
	Status     string
}

func durableUpdates(t *testing.T, msgs []message) []durableUpdate {
	t.Helper()
	var out []durableUpdate
	for _, m := range msgs {
		if m.Method != "session/update" {
			continue
		}
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       json.RawMessage
				ToolCallID    string `json:"toolCallId"`
				Status        string `json:"status"`
			} `json:"update"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("session/update %s: %v", m.Params, err)
		}
		u := durableUpdate{Kind: p.Update.SessionUpdate, ToolCallID: p.Update.ToolCallID, Status: p.Update.Status}
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(p.Update.Content, &block) == nil && block.Type == "text" {
			u.Text = block.Text
		}
		out = append(out, u)
	}
	return out
}

// summary is the conversation as an editor shows it: the user's and the
// agent's text, and each tool call with its final status.
func summary(us []durableUpdate) []string {
	var out []string
	text := func(kind, s string) {
		if n := len(out); n > 0 && strings.HasPrefix(out[n-1], kind+": ") {
			out[n-1] += s
			return
		}
		out = append(out, kind+": "+s)
	}
	for _, u := range us {
		switch u.Kind {
		case "user_message_chunk":
			text("user", u.Text)
		case "agent_message_chunk":
			text("agent", u.Text)
		case "tool_call":
			out = append(out, "tool "+u.ToolCallID)
		case "tool_call_update":
			if u.Status == "completed" || u.Status == "failed" {
				out = append(out, "tool "+u.ToolCallID+" "+u.Status)
			}
		}
	}
	return out
}

// durableModel answers a prompt with a todo tool call and the tool's result
// with final (held open after its text with block).
func durableModel(t *testing.T, final []string, block bool) *modeltest.Server {
	sc := loadScenario(t)
	return startModel(t, func(r modeltest.Request) modeltest.Turn {
		if r.Last().Role == "tool" {
			return modeltest.Turn{Text: final, Block: block}
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_durable_1", Name: sc.ToolName, Arguments: string(sc.ToolArguments)}}}
	})
}

// restartAndLoad starts a new agent on env's home, checks that
// session/list has sid and returns the summary of what session/load
// replays.
func restartAndLoad(t *testing.T, env []string, sid, cwd string) []string {
	_, replay := restartAndLoadAgent(t, env, sid, cwd)
	return replay
}

func restartAndLoadAgent(t *testing.T, env []string, sid, cwd string) (*rawAgent, []string) {
	t.Helper()
	a := startRaw(t, nil, env)
	a.initialize(t)
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	a.result(t, "session/list", map[string]any{}, &list)
	if !slices.ContainsFunc(list.Sessions, func(s struct {
		SessionID string `json:"sessionId"`
	}) bool {
		return s.SessionID == sid
	}) {
		t.Errorf("session/list after the kill = %+v, want %s in it", list.Sessions, sid)
	}
	replay := a.result(t, "session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}, nil)
	return a, summary(durableUpdates(t, replay))
}

func kill9(t *testing.T, a *rawAgent) {
	t.Helper()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.exited
}

// TestDurableKillAfterTurn: session/new, one prompt with a tool call, and
// kill -9 as soon as the prompt's reply arrives.
func TestDurableKillAfterTurn(t *testing.T) {
	t.Parallel()
	srv := durableModel(t, []string{"The plan ", "is written."}, false)
	env := baseEnv(t, modelEnv(srv)...)
	a := startRaw(t, nil, env)
	a.initialize(t)
	cwd := t.TempDir()
	var created struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &created)
	sid := created.SessionID
	var res struct {
		StopReason string `json:"stopReason"`
	}
	live := a.result(t, "session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "Plan it, then say so."}}}, &res)
	kill9(t, a)
	if res.StopReason != "end_turn" {
		t.Fatalf("stopReason = %q, want end_turn", res.StopReason)
	}
	want := []string{"user: Plan it, then say so.", "tool call_durable_1", "tool call_durable_1 completed", "agent: The plan is written."}
	if got := summary(durableUpdates(t, live)); !slices.Equal(got, want[1:]) {
		t.Fatalf("the live turn showed %q, want %q after the prompt", got, want[1:])
	}
	if got := restartAndLoad(t, env, sid, cwd); !slices.Equal(got, want) {
		t.Errorf("session/load after kill -9 replays\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDurableKillDuringTurn: kill -9 while the model streams its answer to
// the tool's result (the stream is held open): the prompt, the tool call
// and its result, all shown before the kill, are replayed; the reply being
// streamed is the event in flight.
func TestDurableKillDuringTurn(t *testing.T) {
	t.Parallel()
	srv := durableModel(t, []string{"Half of the answer"}, true)
	env := baseEnv(t, modelEnv(srv)...)
	a := startRaw(t, nil, env)
	a.initialize(t)
	cwd := t.TempDir()
	var created struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &created)
	sid := created.SessionID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "session/prompt", "params": map[string]any{
		"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "Plan it, then say so."}}}})
	a.send(t, string(b))
	var live []message
	for {
		m := a.next(t)
		if m.isResponse() {
			t.Fatalf("the turn ended before the kill: %s %+v", m.Result, m.Error)
		}
		live = append(live, m)
		us := durableUpdates(t, []message{m})
		if len(us) == 1 && us[0].Kind == "agent_message_chunk" && us[0].Text == "Half of the answer" {
			break
		}
	}
	kill9(t, a)
	want := []string{"user: Plan it, then say so.", "tool call_durable_1", "tool call_durable_1 completed"}
	if got := summary(durableUpdates(t, live)); !slices.Equal(got, append(want[1:], "agent: Half of the answer")) {
		t.Fatalf("the editor saw %q before the kill", got)
	}
	if got := restartAndLoad(t, env, sid, cwd); !slices.Equal(got, want) {
		t.Errorf("session/load after kill -9 during the turn replays\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDurableKillDuringToolCall: kill -9 while a tool runs (an MCP tool
// that sleeps). After a restart the call is replayed as failed, and the
// next prompt works: the model gets a result for the call, which the agent
// never saved, so the request is one a provider accepts.
func TestDurableKillDuringToolCall(t *testing.T) {
	t.Parallel()
	server := mcptest.Build(t)
	var mu sync.Mutex
	var resumed []modeltest.Message // the request after the restart
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		if r.Last().Content == "Continue." {
			mu.Lock()
			resumed = r.Messages
			mu.Unlock()
			return modeltest.Turn{Text: []string{"Continued."}}
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_slow_1", Name: "mcp_test_slow", Arguments: `{"ms":600000}`}}}
	})
	env := baseEnv(t, modelEnv(srv)...)
	a := startRaw(t, nil, env)
	a.initialize(t)
	cwd := t.TempDir()
	var created struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{
		map[string]any{"name": "test", "command": server, "args": []string{}, "env": []any{}},
	}}, &created)
	sid := created.SessionID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "session/prompt", "params": map[string]any{
		"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "Run the slow tool."}}}})
	a.send(t, string(b))
	for {
		m := a.next(t)
		if m.isResponse() {
			t.Fatalf("the turn ended before the kill: %s %+v", m.Result, m.Error)
		}
		if us := durableUpdates(t, []message{m}); len(us) == 1 && us[0].Kind == "tool_call" && us[0].ToolCallID == "call_slow_1" {
			break
		}
	}
	kill9(t, a)
	a2, got := restartAndLoadAgent(t, env, sid, cwd)
	want := []string{"user: Run the slow tool.", "tool call_slow_1", "tool call_slow_1 failed"}
	if !slices.Equal(got, want) {
		t.Errorf("session/load after kill -9 during a tool call replays\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if stop, text := a2.prompt(t, sid, "Continue."); stop != "end_turn" || text != "Continued." {
		t.Fatalf("prompt after the restart: %s %q", stop, text)
	}
	mu.Lock()
	defer mu.Unlock()
	var roles []string
	for _, m := range resumed {
		r := m.Role
		if m.ToolCallID != "" {
			r += " " + m.ToolCallID
			if strings.Contains(m.Content, "agent stopped") {
				r += " (interrupted)"
			}
		}
		roles = append(roles, r)
	}
	if wantRoles := []string{"system", "user", "assistant", "tool call_slow_1 (interrupted)", "user"}; !slices.Equal(roles, wantRoles) {
		t.Errorf("request after the restart = %q, want %q", roles, wantRoles)
	}
}
