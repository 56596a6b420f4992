package main_test

// The official ACP TypeScript SDK plays the editor of
// conformance/execute_code_backend.mjs (issue 24): execute_code scripts run
// where commands run — in the session's Docker container (a local daemon,
// the workspace mounted, and the same daemon reached over TCP, the
// workspace copied) and on an SSH host — their tool calls served through
// the relay, and they are killed, with what they started, at the timeout
// and on a cancel.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

func TestTypeScriptSDKExecuteCodeBackends(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	t.Run("docker", func(t *testing.T) {
		t.Parallel()
		d, _ := privateDockerd(t)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		image, err := d.PythonImageIn(ctx)
		if err != nil {
			t.Fatalf("python image: %v", err)
		}
		for _, host := range []string{d.Host, d.TCP} {
			cfg := "terminal:\n  backend: docker\n  docker:\n    image: " + image + "\n    host: " + host + "\ncode_execution:\n  timeout: 5\n"
			runExecuteCodeBackend(t, node, "docker", cfg, "")
		}
	})
	t.Run("ssh", func(t *testing.T) {
		t.Parallel()
		srv := sshdtest.Start(t)
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		remote := filepath.Join(t.TempDir(), "remote")
		cfg := fmt.Sprintf("terminal:\n  backend: ssh\n  ssh:\n    host: 127.0.0.1\n    port: %d\n    user: %s\n    identity_file: %s\n    known_hosts: %s\n    remote_dir: %s\n    ssh_config: none\ncode_execution:\n  timeout: 5\n",
			srv.Port, u.Username, srv.UserKey, srv.KnownHosts, remote)
		runExecuteCodeBackend(t, node, "ssh", cfg, remote)
	})
}

func runExecuteCodeBackend(t *testing.T, node, backend, cfg, remote string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "input.txt"), []byte("hello from here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	model := startModel(t, sshModel(t))
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "execute_code_backend.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = baseEnv(t, append(modelEnv(model),
		"HERMES_HOME="+home,
		"BACKEND="+backend,
		"BACKEND_WS="+ws,
		"BACKEND_REMOTE="+remote,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)
}
