package main_test

// The official ACP TypeScript SDK plays the editor of
// conformance/unsupported_backend.mjs (issue 24): with terminal.backend set
// to one hermes-acp does not have, a hostile model's commands and scripts
// are refused naming the backend, and nothing runs on this machine instead.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKUnsupportedBackend(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("terminal:\n  backend: modal\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// `hermes-acp tools` says the backend is unusable and why.
	tools := exec.Command(agentBin, "tools")
	tools.Env = baseEnv(t, "HERMES_HOME="+home)
	out, err := tools.Output()
	if err != nil {
		t.Fatalf("hermes-acp tools: %v\n%s", err, out)
	}
	if want := `Terminal backend: modal (offered: local, modal); unavailable: the terminal backend "modal" is hermes-agent's Modal cloud sandbox`; !strings.Contains(string(out), want) {
		t.Errorf("hermes-acp tools says:\n%s\nwant %q", out, want)
	}

	ws := t.TempDir()
	model := startModel(t, sshModel(t))
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "unsupported_backend.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = baseEnv(t, append(modelEnv(model),
		"HERMES_HOME="+home,
		"BACKEND_WS="+ws,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)
	for _, name := range []string{"fg-ran", "bg-ran", "py-ran"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err == nil {
			t.Errorf("%s exists: the refused backend's command ran on this machine", name)
		}
	}
}
