package main_test

// Outbound requests to the editor run under the turn's context (#32 item
// 2): when the user cancels a turn while the agent waits for the editor —
// a file read, a permission dialog, a file write, a command in an editor
// terminal — the agent withdraws that request with $/cancel_request before
// it answers the prompt with "cancelled", and the session goes on.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

func TestCancelWithdrawsTheOpenEditorRequest(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		call := func(name, args string) modeltest.Turn {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_" + name, Name: name, Arguments: args}}}
		}
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "read the notes"):
			return call("read_file", `{"path":"notes.txt"}`)
		case last.Role == "user" && strings.Contains(last.Content, "write a file"):
			return call("write_file", `{"path":"new.txt","content":"new\n"}`)
		case last.Role == "user" && strings.Contains(last.Content, "run a command"):
			return call("terminal", `{"command":"echo hi"}`)
		case last.Role == "user" && strings.Contains(last.Content, "say hello"):
			return modeltest.Turn{Text: []string{"hello"}}
		}
		t.Errorf("fake model: unexpected request after %s %q (a cancelled turn asked the model again?)", last.Role, truncate(last.Content, 200))
		return modeltest.Turn{Status: 500}
	})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startRaw(t, nil, baseEnv(t, modelEnv(srv)...))
	a.result(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true,
	}}, nil)
	var created struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &created)
	sid := created.SessionID

	cases := []struct {
		prompt, mode string
		open         string // the editor request left unanswered
	}{
		{"read the notes", "default", "fs/read_text_file"},
		{"write a file", "default", "session/request_permission"},
		{"write a file", "accept_edits", "fs/write_text_file"},
		{"run a command", "default", "terminal/wait_for_exit"},
	}
	for _, c := range cases {
		a.result(t, "session/set_mode", map[string]any{"sessionId": sid, "modeId": c.mode}, nil)
		id := a.nextID
		a.nextID++
		a.send(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": map[string]any{
			"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": c.prompt}},
		}}))
		var openID json.RawMessage
		withdrawn := false
		var stop string
		for stop == "" {
			m := a.next(t)
			switch {
			case m.isResponse():
				if string(m.ID) != mustJSON(t, id) {
					t.Fatalf("%s: unexpected response %+v", c.open, m)
				}
				var res struct {
					StopReason string `json:"stopReason"`
				}
				if m.Error != nil || json.Unmarshal(m.Result, &res) != nil {
					t.Fatalf("%s: prompt answered %+v", c.open, m)
				}
				stop = res.StopReason
			case m.Method == c.open && len(m.ID) > 0:
				if openID != nil {
					t.Errorf("%s: asked twice", c.open)
				}
				openID = m.ID
				a.send(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}}))
			case m.Method == "$/cancel_request":
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if err := json.Unmarshal(m.Params, &p); err != nil {
					t.Fatal(err)
				}
				if openID == nil || !bytes.Equal(p.RequestID, openID) {
					t.Errorf("%s: $/cancel_request for %s, want only the open request (%s)", c.open, p.RequestID, openID)
				}
				withdrawn = true
			case len(m.ID) > 0 && m.Method != "":
				a.send(t, editorAnswer(t, m, ws))
			}
		}
		if openID == nil {
			t.Errorf("%q: the agent never sent %s", c.prompt, c.open)
		}
		if stop != "cancelled" {
			t.Errorf("%s left open, then session/cancel: the prompt ended %q, want cancelled", c.open, stop)
		}
		if !withdrawn {
			t.Errorf("%s left open, then session/cancel: no $/cancel_request for it before the prompt's reply", c.open)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("new.txt was written by a cancelled turn")
	}
	// The session goes on.
	if stop, text := a.prompt(t, sid, "say hello"); stop != "end_turn" || !strings.Contains(text, "hello") {
		t.Errorf("prompt after the cancels: %q %q, want end_turn and hello", stop, text)
	}
}

// editorAnswer answers an editor request as a plain editor would: files
// from disk (new.txt does not exist), every permission allowed once, a
// terminal that exists and has printed nothing.
func editorAnswer(t *testing.T, m message, ws string) string {
	t.Helper()
	reply := func(result any) string {
		return mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}
	var p struct {
		Path    string `json:"path"`
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "fs/read_text_file":
		b, err := os.ReadFile(p.Path)
		if err != nil {
			return mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32002, "message": "Resource not found: " + p.Path}})
		}
		return reply(map[string]any{"content": string(b)})
	case "session/request_permission":
		for _, o := range p.Options {
			if o.Kind == "allow_once" {
				return reply(map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}})
			}
		}
	case "terminal/create":
		return reply(map[string]any{"terminalId": "term-1"})
	case "terminal/output":
		return reply(map[string]any{"output": "", "truncated": false})
	case "terminal/kill", "terminal/release", "fs/write_text_file":
		return reply(map[string]any{})
	}
	t.Errorf("the agent sent an unexpected %s: %s", m.Method, m.Params)
	return mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
