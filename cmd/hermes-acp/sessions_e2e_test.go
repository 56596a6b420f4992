package main_test

// Sessions exist from session/new and reload as they looked (#27 items 1–3),
// against the real binary: a session that was never prompted can be loaded,
// resumed, closed and deleted by a new process, with its mode; nothing
// arrives after the reply to session/load or session/resume; and the
// replay of a turn (read, patch with a diff, terminal, todo, a failed call)
// in a new process shows the same cards, in the same order, as the live
// turn did, with the same message ids and the session's title.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// quietAfterReply is how long a test listens for messages after a
// session/load or session/resume reply: the ACP test kit's wait.
const quietAfterReply = 2 * time.Second

// expectQuiet fails the test when the agent writes anything within d.
func (a *rawAgent) expectQuiet(t *testing.T, what string, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if line, err := a.lines.next(ctx); err == nil {
		t.Errorf("%s: the agent wrote within %v of the reply: %s", what, d, truncate(string(line), 300))
	}
}

// sessionState is the part of a session/new, load or resume result these
// tests look at.
type sessionState struct {
	SessionID string `json:"sessionId"`
	Modes     struct {
		CurrentModeID string `json:"currentModeId"`
	} `json:"modes"`
	ConfigOptions []struct {
		ID           string `json:"id"`
		CurrentValue any    `json:"currentValue"`
	} `json:"configOptions"`
}

func (st sessionState) option(id string) any {
	for _, o := range st.ConfigOptions {
		if o.ID == id {
			return o.CurrentValue
		}
	}
	return nil
}

// updateKinds lists the sessionUpdate of each session/update in msgs.
func updateKinds(t *testing.T, msgs []message) []string {
	t.Helper()
	var out []string
	for _, u := range sessionUpdates(t, msgs) {
		out = append(out, u.SessionUpdate)
	}
	return out
}

func TestUnpromptedSessionAcrossProcesses(t *testing.T) {
	t.Parallel()
	env := baseEnv(t)
	ws := t.TempDir()

	a := startRaw(t, nil, env)
	a.initialize(t)
	var created sessionState
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &created)
	sid := created.SessionID
	if created.Modes.CurrentModeID != "default" {
		t.Fatalf("session/new mode = %q, want default", created.Modes.CurrentModeID)
	}
	// In the same process: load and resume work before any prompt.
	var loaded sessionState
	a.result(t, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, &loaded)
	a.result(t, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "accept_edits"}, nil)
	if _, err := a.waitExit(t); err != nil {
		t.Fatalf("first agent: %v", err)
	}

	b := startRaw(t, nil, env)
	b.initialize(t)
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	b.result(t, "session/list", map[string]any{}, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("session/list = %+v, want no session: one never prompted is not listed (docs/editors.md)", list.Sessions)
	}
	before := b.result(t, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, &loaded)
	if loaded.Modes.CurrentModeID != "accept_edits" || loaded.option("mode") != "accept_edits" {
		t.Errorf("session/load in a new process: mode %q, config option mode %v; want accept_edits (set before the restart)", loaded.Modes.CurrentModeID, loaded.option("mode"))
	}
	if kinds := updateKinds(t, before); !slices.Equal(kinds, []string{"available_commands_update"}) {
		t.Errorf("updates before the session/load reply = %q, want the command list only (nothing to replay)", kinds)
	}
	b.expectQuiet(t, "session/load", quietAfterReply)

	var resumed sessionState
	before = b.result(t, "session/resume", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, &resumed)
	if resumed.Modes.CurrentModeID != "accept_edits" {
		t.Errorf("session/resume mode = %q, want accept_edits", resumed.Modes.CurrentModeID)
	}
	if kinds := updateKinds(t, before); !slices.Equal(kinds, []string{"available_commands_update"}) {
		t.Errorf("updates before the session/resume reply = %q, want the command list", kinds)
	}
	b.expectQuiet(t, "session/resume", quietAfterReply)
	b.result(t, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "dont_ask"}, nil)
	b.result(t, "session/close", map[string]any{"sessionId": sid}, nil)
	if _, err := b.waitExit(t); err != nil {
		t.Fatalf("second agent: %v", err)
	}

	c := startRaw(t, nil, env)
	c.initialize(t)
	// A stored session this process has not opened is not active: close
	// answers -32002 until it is resumed or loaded.
	res, _ := c.call(t, "session/close", map[string]any{"sessionId": sid})
	if res.Error == nil || res.Error.Code != -32002 {
		t.Errorf("session/close of a session not opened here = %s %+v, want error -32002", res.Result, res.Error)
	}
	c.result(t, "session/resume", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, &resumed)
	if resumed.Modes.CurrentModeID != "dont_ask" {
		t.Errorf("session/resume after set_config_option and a restart: mode %q, want dont_ask", resumed.Modes.CurrentModeID)
	}
	c.result(t, "session/close", map[string]any{"sessionId": sid}, nil)
	c.result(t, "session/delete", map[string]any{"sessionId": sid}, nil)
	res, _ = c.call(t, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}})
	if res.Error == nil || res.Error.Code != -32002 {
		t.Errorf("session/load of a deleted session = %s %+v, want error -32002", res.Result, res.Error)
	}
	res, _ = c.call(t, "session/close", map[string]any{"sessionId": "sess_never_made"})
	if res.Error == nil || res.Error.Code != -32002 {
		t.Errorf("session/close of an unknown session = %s %+v, want error -32002", res.Result, res.Error)
	}
}

// card is an update reduced to what an editor shows of it.
type card struct {
	Kind      string   // sessionUpdate
	Title     string   // tool_call title, session_info_update title
	ToolKind  string   // tool_call kind
	Status    string   // tool_call status, final tool_call_update status
	Blocks    []string // content block types: "text", "diff", "terminal", "image"
	Text      string   // agent text (chunks joined), plan entries
	MessageID string   // of a chunk
	Locations int
}

// rawUpdate is a session/update's update as the tests decode it.
type rawUpdate struct {
	SessionUpdate string          `json:"sessionUpdate"`
	ToolCallID    string          `json:"toolCallId"`
	Title         *string         `json:"title"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	Content       json.RawMessage `json:"content"`
	Locations     []any           `json:"locations"`
	MessageID     *string         `json:"messageId"`
	Entries       []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"entries"`
}

func sessionUpdates(t *testing.T, msgs []message) []rawUpdate {
	t.Helper()
	var out []rawUpdate
	for _, m := range msgs {
		if m.Method != "session/update" {
			continue
		}
		var p struct {
			Update rawUpdate `json:"update"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("session/update %s: %v", m.Params, err)
		}
		out = append(out, p.Update)
	}
	return out
}

// blocks returns the types of a tool call's content items, and their text.
func blocks(raw json.RawMessage) ([]string, string) {
	var items []struct {
		Type    string `json:"type"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &items)
	var types []string
	var text strings.Builder
	for _, it := range items {
		if it.Type == "content" {
			types = append(types, it.Content.Type)
			text.WriteString(it.Content.Text)
			continue
		}
		types = append(types, it.Type)
	}
	return types, text.String()
}

// cards reduces a session's updates to what the editor shows: agent text
// and thoughts (consecutive chunks of one message joined), each tool call
// as announced and as it ended, plans and titles. Streaming progress,
// usage, user messages (live, the editor shows its own) and the command
// list are left out.
func cards(t *testing.T, us []rawUpdate) []card {
	t.Helper()
	var out []card
	for _, u := range us {
		c := card{Kind: u.SessionUpdate}
		switch u.SessionUpdate {
		case "agent_message_chunk", "agent_thought_chunk":
			var block struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(u.Content, &block)
			if u.MessageID != nil {
				c.MessageID = *u.MessageID
			}
			if n := len(out); n > 0 && out[n-1].Kind == c.Kind && out[n-1].MessageID == c.MessageID {
				out[n-1].Text += block.Text
				continue
			}
			c.Text = block.Text
		case "tool_call":
			if u.Title != nil {
				c.Title = *u.Title
			}
			c.ToolKind, c.Locations = u.Kind, len(u.Locations)
		case "tool_call_update":
			if u.Status != "completed" && u.Status != "failed" {
				continue
			}
			c.Status = u.Status
			c.Blocks, c.Text = blocks(u.Content)
		case "plan":
			var entries []string
			for _, e := range u.Entries {
				entries = append(entries, e.Status+" "+e.Content)
			}
			c.Text = strings.Join(entries, "; ")
		case "session_info_update":
			if u.Title != nil {
				c.Title = *u.Title
			}
		default:
			continue
		}
		out = append(out, c)
	}
	return out
}

// replayModel plays one turn that reads a file, patches it, runs a
// command, writes a plan and reads a file that does not exist, thinking
// and talking between the calls.
func replayModel(t *testing.T) *modeltest.Server {
	steps := []modeltest.Turn{
		{Reasoning: []string{"I should ", "read it first."}, Text: []string{"Reading ", "notes.txt."}, ToolCalls: []modeltest.ToolCall{{ID: "call_read", Name: "read_file", Arguments: `{"path":"notes.txt"}`}}},
		{Text: []string{"Fixing the typo."}, ToolCalls: []modeltest.ToolCall{{ID: "call_patch", Name: "patch", Arguments: `{"mode":"replace","path":"notes.txt","old_string":"helo","new_string":"hello"}`}}},
		{ToolCalls: []modeltest.ToolCall{{ID: "call_term", Name: "terminal", Arguments: `{"command":"echo replay-check; echo second line"}`}}},
		{ToolCalls: []modeltest.ToolCall{{ID: "call_todo", Name: "todo", Arguments: `{"todos":[{"id":"1","content":"Fix the typo","status":"completed"},{"id":"2","content":"Check the rest","status":"in_progress"}]}`}}},
		{ToolCalls: []modeltest.ToolCall{{ID: "call_fail", Name: "read_file", Arguments: `{"path":"missing.txt"}`}}},
		{Text: []string{"Done: ", "the typo is fixed."}},
	}
	after := map[string]int{"call_read": 1, "call_patch": 2, "call_term": 3, "call_todo": 4, "call_fail": 5}
	return startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		if last.Role == "user" {
			return steps[0]
		}
		if i, ok := after[last.ToolCallID]; ok && last.Role == "tool" {
			return steps[i]
		}
		t.Errorf("replay model: unexpected request ending with %s %q", last.Role, truncate(last.Content, 200))
		return modeltest.Turn{Status: 500}
	})
}

func TestReplayMatchesLiveTurn(t *testing.T) {
	t.Parallel()
	srv := replayModel(t)
	env := baseEnv(t, modelEnv(srv)...)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("helo world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const prompt = "Fix the typo in notes.txt\nand check the rest."

	a := startRaw(t, nil, env)
	a.initialize(t)
	var created sessionState
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &created)
	sid := created.SessionID
	a.result(t, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "dont_ask"}, nil)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	live := sessionUpdates(t, a.result(t, "session/prompt", map[string]any{
		"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": prompt}},
	}, &res))
	if res.StopReason != "end_turn" {
		t.Fatalf("prompt stopped with %q, want end_turn", res.StopReason)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "hello world\n" {
		t.Fatalf("notes.txt = %q after the turn, want the typo fixed", got)
	}
	if _, err := a.waitExit(t); err != nil {
		t.Fatalf("first agent: %v", err)
	}

	b := startRaw(t, nil, env)
	b.initialize(t)
	var loaded sessionState
	replayed := sessionUpdates(t, b.result(t, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, &loaded))
	b.expectQuiet(t, "session/load", quietAfterReply)
	if loaded.Modes.CurrentModeID != "dont_ask" {
		t.Errorf("loaded mode = %q, want dont_ask", loaded.Modes.CurrentModeID)
	}
	if n := len(replayed); n == 0 || replayed[n-1].SessionUpdate != "available_commands_update" {
		t.Errorf("the replay does not end with the command list (before the reply): %+v", replayed)
	}

	// The replay starts with the prompt, as the user wrote it, with an id.
	if len(replayed) == 0 || replayed[0].SessionUpdate != "user_message_chunk" || replayed[0].MessageID == nil {
		t.Fatalf("the replay starts with %+v, want the user's message with a messageId", replayed[:min(1, len(replayed))])
	}
	var first struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(replayed[0].Content, &first)
	if first.Text != prompt {
		t.Errorf("replayed prompt = %q, want %q", first.Text, prompt)
	}

	want, got := cards(t, live), cards(t, replayed)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the replay in a new process differs from the live turn (-live +replay):\n%s", diff)
	}
	// What the cards must hold, live and replayed alike.
	byTitle := map[string]bool{}
	var sawDiff, sawOutput, sawFailure, sawPlan, sawTitle bool
	for _, c := range got {
		switch {
		case c.Kind == "tool_call":
			byTitle[c.ToolKind] = true
		case c.Kind == "tool_call_update" && slices.Contains(c.Blocks, "diff"):
			sawDiff = true
		case c.Kind == "tool_call_update" && strings.Contains(c.Text, "replay-check\nsecond line"):
			sawOutput = true
		case c.Kind == "tool_call_update" && c.Status == "failed" && strings.Contains(c.Text, "❌"):
			sawFailure = true
		case c.Kind == "plan" && c.Text == "completed Fix the typo; in_progress Check the rest":
			sawPlan = true
		case c.Kind == "session_info_update" && c.Title == "Fix the typo in notes.txt":
			sawTitle = true
		}
		if strings.Contains(c.Text, "- **summary**") || strings.Contains(c.Text, `{"cancelled"`) {
			t.Errorf("a card shows a raw JSON dump: %q", c.Text)
		}
	}
	for _, k := range []string{"read", "edit", "execute"} {
		if !byTitle[k] {
			t.Errorf("no tool call of kind %q in the replay: %+v", k, got)
		}
	}
	for what, ok := range map[string]bool{"the patch's diff": sawDiff, "the command's output": sawOutput, "the failed call": sawFailure, "the plan": sawPlan, "the title": sawTitle} {
		if !ok {
			t.Errorf("the replay lacks %s: %s", what, fmt.Sprint(got))
		}
	}
	// The plan comes where the todo tool ran: before the failed call.
	plan := slices.IndexFunc(got, func(c card) bool { return c.Kind == "plan" })
	fail := slices.IndexFunc(got, func(c card) bool { return c.Kind == "tool_call_update" && c.Status == "failed" })
	if plan < 0 || fail < 0 || plan > fail {
		t.Errorf("plan at %d, failed call at %d: want the plan before the failed call", plan, fail)
	}
}

func TestCancelledFirstTurnHasTitle(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: []string{"Starting on it"}, Block: true}
	})
	env := baseEnv(t, modelEnv(srv)...)
	ws := t.TempDir()
	a := startRaw(t, nil, env)
	a.initialize(t)
	var created sessionState
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &created)
	sid := created.SessionID
	a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":100,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"Rename the config loader\nplease"}]}}`, sid))
	var live []message
	for {
		m := a.next(t)
		live = append(live, m)
		if strings.Contains(string(m.Params), "Starting on it") {
			break
		}
	}
	a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`, sid))
	res, rest := a.until(t)
	live = append(live, rest...)
	var stop struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(res.Result, &stop)
	if stop.StopReason != "cancelled" {
		t.Fatalf("prompt reply %s, want stopReason cancelled", res.Result)
	}
	title := func(us []rawUpdate) string {
		for _, u := range us {
			if u.SessionUpdate == "session_info_update" && u.Title != nil {
				return *u.Title
			}
		}
		return ""
	}
	if got := title(sessionUpdates(t, live)); got != "Rename the config loader" {
		t.Errorf("live title of the cancelled first turn = %q, want the prompt's first line", got)
	}
	if _, err := a.waitExit(t); err != nil {
		t.Fatalf("first agent: %v", err)
	}
	b := startRaw(t, nil, env)
	b.initialize(t)
	replayed := sessionUpdates(t, b.result(t, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, nil))
	if got := title(replayed); got != "Rename the config loader" {
		t.Errorf("replayed title = %q, want the prompt's first line", got)
	}
	var list struct {
		Sessions []struct {
			SessionID string  `json:"sessionId"`
			Title     *string `json:"title"`
		} `json:"sessions"`
	}
	b.result(t, "session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "Rename the config loader" {
		t.Errorf("session/list = %+v, want the cancelled session with its title", list.Sessions)
	}
}

// TestTypeScriptSDKSessions runs conformance/sessions.mjs: the official
// TypeScript SDK loads, resumes, closes and deletes a session never
// prompted, each in a new process, with its mode, and hears nothing after
// the load and resume replies.
func TestTypeScriptSDKSessions(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("conformance", "sessions.mjs"), agentBin)
	cmd.Dir = repoRoot
	cmd.Env = baseEnv(t, "CONFORMANCE_WORKDIR="+t.TempDir())
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node conformance/sessions.mjs %s: %v\n%s", agentBin, err, out)
	}
	t.Logf("%s", out)
}

// TestReplayEditorTerminal: a command run in the editor's terminal shows
// the terminal live; the terminal is released with the turn, so the replay
// in a new process shows the output the editor reported as text, in a
// completed card with the same title and kind.
func TestReplayEditorTerminal(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		if last := r.Last(); last.Role == "tool" {
			return modeltest.Turn{Text: []string{"It printed."}}
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_editor_term", Name: "terminal", Arguments: `{"command":"echo from-the-editor"}`}}}
	})
	env := baseEnv(t, modelEnv(srv)...)
	ws := t.TempDir()
	a := startRaw(t, nil, env)
	a.result(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"terminal": true}}, nil)
	var created sessionState
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &created)
	sid := created.SessionID
	a.result(t, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "dont_ask"}, nil)
	a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":200,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"Run it in my terminal"}]}}`, sid))
	var live []message
	created2 := false
	for {
		m := a.next(t)
		if m.isResponse() && string(m.ID) == "200" {
			break
		}
		if m.Method == "" || len(m.ID) == 0 {
			live = append(live, m)
			continue
		}
		// The editor's side of its terminal.
		var result string
		switch m.Method {
		case "terminal/create":
			created2 = true
			result = `{"terminalId":"term_1"}`
		case "terminal/wait_for_exit":
			result = `{"exitCode":0}`
		case "terminal/output":
			result = `{"output":"from-the-editor\n","truncated":false,"exitStatus":{"exitCode":0}}`
		case "terminal/release", "terminal/kill":
			result = `{}`
		default:
			t.Fatalf("unexpected agent request %s %s", m.Method, m.Params)
		}
		a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
	}
	if !created2 {
		t.Fatal("the agent did not run the command in the editor's terminal")
	}
	liveCards := cards(t, sessionUpdates(t, live))
	final := func(cs []card) (card, bool) {
		for _, c := range cs {
			if c.Kind == "tool_call_update" {
				return c, true
			}
		}
		return card{}, false
	}
	if c, ok := final(liveCards); !ok || c.Status != "completed" || !slices.Equal(c.Blocks, []string{"terminal"}) {
		t.Fatalf("live completion = %+v, want completed with the editor's terminal", c)
	}
	if _, err := a.waitExit(t); err != nil {
		t.Fatalf("first agent: %v", err)
	}

	b := startRaw(t, nil, env)
	b.result(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"terminal": true}}, nil)
	replayed := cards(t, sessionUpdates(t, b.result(t, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, nil)))
	c, ok := final(replayed)
	if !ok || c.Status != "completed" || !slices.Equal(c.Blocks, []string{"text"}) || !strings.Contains(c.Text, "from-the-editor") {
		t.Errorf("replayed completion = %+v, want completed with the terminal's output as text", c)
	}
	callOf := func(cs []card) card {
		for _, c := range cs {
			if c.Kind == "tool_call" {
				return c
			}
		}
		return card{}
	}
	if l, r := callOf(liveCards), callOf(replayed); l.Title == "" || l.Title != r.Title || l.ToolKind != r.ToolKind {
		t.Errorf("replayed tool call %+v, live %+v: want the same title and kind", r, l)
	}
}

// TestUnpromptedSessionsSurviveKill: sessions made and changed but never
// prompted (no database opened yet: their rows wait as small files, see
// agent/internal/store/pending.go) survive kill -9; the next process loads
// each with its mode, deletes one, and a third process finds only the
// other.
func TestUnpromptedSessionsSurviveKill(t *testing.T) {
	t.Parallel()
	env := baseEnv(t)
	ws := t.TempDir()

	a := startRaw(t, nil, env)
	a.initialize(t)
	var one, two sessionState
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &one)
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &two)
	a.result(t, "session/set_mode", map[string]any{"sessionId": one.SessionID, "modeId": "accept_edits"}, nil)
	a.result(t, "session/set_config_option", map[string]any{"sessionId": two.SessionID, "configId": "mode", "value": "dont_ask"}, nil)
	kill9(t, a)

	b := startRaw(t, nil, env)
	b.initialize(t)
	for _, c := range []struct{ id, mode string }{{one.SessionID, "accept_edits"}, {two.SessionID, "dont_ask"}} {
		var loaded sessionState
		b.result(t, "session/load", map[string]any{"sessionId": c.id, "cwd": ws, "mcpServers": []any{}}, &loaded)
		if loaded.Modes.CurrentModeID != c.mode {
			t.Errorf("session/load %s after kill -9: mode %q, want %q", c.id, loaded.Modes.CurrentModeID, c.mode)
		}
	}
	b.result(t, "session/close", map[string]any{"sessionId": two.SessionID}, nil)
	b.result(t, "session/delete", map[string]any{"sessionId": two.SessionID}, nil)
	if _, err := b.waitExit(t); err != nil {
		t.Fatalf("second agent: %v", err)
	}

	c := startRaw(t, nil, env)
	c.initialize(t)
	var resumed sessionState
	c.result(t, "session/resume", map[string]any{"sessionId": one.SessionID, "cwd": ws, "mcpServers": []any{}}, &resumed)
	if resumed.Modes.CurrentModeID != "accept_edits" {
		t.Errorf("session/resume in a third process: mode %q, want accept_edits", resumed.Modes.CurrentModeID)
	}
	res, _ := c.call(t, "session/load", map[string]any{"sessionId": two.SessionID, "cwd": ws, "mcpServers": []any{}})
	if res.Error == nil || res.Error.Code != -32002 {
		t.Errorf("session/load of the deleted session = %s %+v, want error -32002", res.Result, res.Error)
	}
}
