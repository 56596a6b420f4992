package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// ssh (issue 18): the session's Environment (an SSH host) replaces this
// machine for the terminal and process tools.

// recordingEnv runs commands locally and records the specs it was given.
type recordingEnv struct {
	mu    sync.Mutex
	specs []terminal.Spec
	local terminal.Local
}

func (r *recordingEnv) Start(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	r.mu.Lock()
	r.specs = append(r.specs, s)
	r.mu.Unlock()
	s.Command = "echo '[remote]'; " + s.Command
	return r.local.Start(ctx, s)
}

func TestTerminalUsesTheSessionEnvironment(t *testing.T) {
	fe := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "x"}})
	e := &termEnv{fakeEnv: fe}
	rec := &recordingEnv{}
	editor := &fakeTerminals{}
	d := fe.Deps
	d.Commands = e
	d.Output = e
	d.Terminals = editor
	d.Environment = rec
	d.OnClose = func(f func()) {
		e.mu.Lock()
		e.onClose = append(e.onClose, f)
		e.mu.Unlock()
	}
	e.sess = newSession(d)
	t.Cleanup(e.close)

	_, v := e.call(t, "terminal", map[string]any{"command": "echo hi"})
	if v["output"] != "[remote]\nhi" || v["exit_code"] != float64(0) {
		t.Fatalf("foreground result %v, want the environment's output", v)
	}
	if len(editor.cmds) != 0 {
		t.Errorf("the editor's terminal ran %v; commands must run in the session's environment", editor.cmds)
	}
	_, v = e.call(t, "terminal", map[string]any{"command": "sleep 30", "background": true})
	id, _ := v["session_id"].(string)
	if id == "" {
		t.Fatalf("background start: %v", v)
	}
	_, v = e.call(t, "process", map[string]any{"action": "list"})
	if b, _ := json.Marshal(v); !strings.Contains(string(b), "sleep 30") {
		t.Errorf("process list %v does not show the background command", v)
	}
	if _, v = e.call(t, "process", map[string]any{"action": "kill", "session_id": id}); v["status"] == "error" {
		t.Errorf("kill: %v", v)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.specs) != 2 || rec.specs[1].Command != "sleep 30" || !rec.specs[1].Stdin {
		t.Errorf("environment saw %+v, want both commands (the background one with stdin)", rec.specs)
	}
}
