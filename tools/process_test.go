package tools

import (
	"strings"
	"testing"
	"time"
)

// startBackground starts command in the background and returns its id and
// pid.
func startBackground(t *testing.T, e *termEnv, command string) (string, int) {
	t.Helper()
	r, m := e.call(t, "terminal", map[string]any{"command": command, "background": true})
	id, _ := m["session_id"].(string)
	pid, _ := m["pid"].(float64)
	if r.IsError || m["output"] != "Background process started" || m["exit_code"] != 0.0 || !strings.HasPrefix(id, "proc_") || pid <= 0 {
		t.Fatalf("background start = %s, want hermes's started shape", r.Encode())
	}
	if _, ok := m["error"]; !ok || m["error"] != nil {
		t.Errorf("background start = %s, want error null", r.Encode())
	}
	return id, int(pid)
}

// TestProcessLifecycle drives a background process through poll, submit,
// write, close, wait and log, and checks its end is announced.
func TestProcessLifecycle(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	id, _ := startBackground(t, e, `echo ready; while read line; do echo "got $line"; done; echo "bye"; exit 3`)

	_, m := e.call(t, "process", map[string]any{"action": "poll", "session_id": id})
	if m["status"] != "running" || m["session_id"] != id {
		t.Errorf("poll = %v, want running", m)
	}
	if _, m = e.call(t, "process", map[string]any{"action": "submit", "session_id": id, "data": "one"}); m["status"] != "ok" || m["bytes_written"] != 4.0 {
		t.Errorf("submit = %v, want ok with 4 bytes", m)
	}
	if _, m = e.call(t, "process", map[string]any{"action": "write", "session_id": id[5:11], "data": "two\n"}); m["status"] != "ok" {
		t.Errorf("write by prefix = %v, want ok", m)
	}
	if _, m = e.call(t, "process", map[string]any{"action": "close", "session_id": id}); m["status"] != "ok" {
		t.Errorf("close = %v, want ok", m)
	}
	r, m := e.call(t, "process", map[string]any{"action": "wait", "session_id": id, "timeout": 60})
	if r.IsError || m["status"] != "exited" || m["exit_code"] != 3.0 || m["output"] != "ready\ngot one\ngot two\nbye\n" {
		t.Errorf("wait = %s, want exited 3 with the whole output", r.Encode())
	}
	ann := e.Announced()
	if len(ann) != 1 || !strings.HasPrefix(ann[0], "[IMPORTANT: Background process "+id+" exited (exit code 3).\nCommand: ") || !strings.HasSuffix(ann[0], "Output:\nready\ngot one\ngot two\nbye\n]") {
		t.Errorf("announcements = %q, want hermes's completion notice", ann)
	}
	_, m = e.call(t, "process", map[string]any{"action": "log", "session_id": id, "offset": 1, "limit": 2})
	if m["output"] != "got one\ngot two" || m["total_lines"] != 4.0 || m["showing"] != "2 lines" || m["status"] != "exited" {
		t.Errorf("log = %v, want lines 2-3 of 4", m)
	}
	_, m = e.call(t, "process", map[string]any{"action": "log", "session_id": id, "limit": 1})
	if m["output"] != "bye" {
		t.Errorf("log default offset = %v, want the last line", m)
	}
	r, m = e.call(t, "process", map[string]any{"action": "write", "session_id": id, "data": "late"})
	if !r.IsError || m["status"] != "already_exited" || m["error"] != "Process has already finished" {
		t.Errorf("write after exit = %s", r.Encode())
	}
	_, m = e.call(t, "process", map[string]any{"action": "list"})
	procs, _ := m["processes"].([]any)
	if len(procs) != 1 || procs[0].(map[string]any)["status"] != "exited" || procs[0].(map[string]any)["exit_code"] != 3.0 {
		t.Errorf("list = %v, want the exited process", m)
	}
}

func TestProcessKillAndErrors(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	id, pgid := startBackground(t, e, "sleep 100 & sleep 100; wait")
	r, m := e.call(t, "process", map[string]any{"action": "kill", "session_id": id})
	if r.IsError || m["status"] != "killed" || m["completion_reason"] != "killed" || m["session_id"] != id {
		t.Errorf("kill = %s, want killed", r.Encode())
	}
	if left := groupAlive(t, pgid); len(left) > 0 {
		t.Errorf("processes of group %d left after kill: %v", pgid, left)
	}
	if ann := e.Announced(); len(ann) != 0 {
		t.Errorf("a killed process was announced: %q", ann)
	}
	_, m = e.call(t, "process", map[string]any{"action": "kill", "session_id": id})
	if m["status"] != "already_exited" {
		t.Errorf("second kill = %v, want already_exited", m)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "poll"}, `{"error":"session_id is required for poll"}`},
		{map[string]any{"action": "dance", "session_id": id}, `{"error":"Unknown process action: dance. Use: list, poll, log, wait, kill, write, submit, close"}`},
		{map[string]any{"action": "poll", "session_id": "proc_000000000000"}, `{"status":"not_found","error":"No process with ID proc_000000000000"}`},
		{map[string]any{"action": "wait", "session_id": id, "timeout": 0}, `{"status":"error","error":"timeout must be positive (got 0)"}`},
	} {
		r, _ := e.call(t, "process", tc.args)
		if r.Encode() != tc.want || !r.IsError {
			t.Errorf("process %v = %s (IsError %v), want %s", tc.args, r.Encode(), r.IsError, tc.want)
		}
	}
}

func TestProcessWaitTimeoutClamped(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{Config: TerminalConfig{DefaultTimeout: time.Second}})
	id, _ := startBackground(t, e, "echo waiting; sleep 100")
	r, m := e.call(t, "process", map[string]any{"action": "wait", "session_id": id, "timeout": 5})
	note, _ := m["timeout_note"].(string)
	if r.IsError || m["status"] != "timeout" || m["process_running"] != true ||
		!strings.HasPrefix(note, "Requested wait of 5s was clamped to configured limit of 1s. Wait window of 1s elapsed — the process is still running. This is not an error.") {
		t.Errorf("wait = %s, want a clamped timeout that is not an error", r.Encode())
	}
}

// TestProcessesKilledOnClose: closing the session kills its background
// processes, whole groups included.
func TestProcessesKilledOnClose(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	var groups []int
	for range 3 {
		_, pgid := startBackground(t, e, "trap '' TERM; sleep 100 & sleep 100; wait")
		groups = append(groups, pgid)
	}
	e.close()
	for _, g := range groups {
		if left := groupAlive(t, g); len(left) > 0 {
			t.Errorf("processes of group %d left after the session closed: %v", g, left)
		}
	}
	if ann := e.Announced(); len(ann) != 0 {
		t.Errorf("processes killed at close were announced: %q", ann)
	}
	r, _ := e.call(t, "terminal", map[string]any{"command": "sleep 1", "background": true})
	if !r.IsError {
		t.Errorf("background start after close = %s, want an error", r.Encode())
	}
}
