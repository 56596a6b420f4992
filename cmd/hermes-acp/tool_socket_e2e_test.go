package main_test

// The official ACP TypeScript SDK plays the editor of
// conformance/tool_socket.mjs (issue 24): a hostile script in one session
// looks for another session's execute_code tool socket and token (in
// /proc/PID/environ, in the temporary folders) and tries to make it read
// that session's secret; it must fail, and the other session must see no
// call but its own. As root (as CI runs), and again as user 65534 when the
// test runs as root.

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestTypeScriptSDKToolSocket(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	t.Run("as this user", func(t *testing.T) {
		t.Parallel()
		runToolSocket(t, node, t.TempDir(), agentBin, nil)
	})
	t.Run("as user 65534", func(t *testing.T) {
		t.Parallel()
		dir, bin, attr := asNobody(t)
		own := filepath.Join(dir, "own")
		if err := os.Mkdir(own, 0o700); err != nil || os.Chown(own, 65534, 65534) != nil {
			t.Fatalf("prepare %s: %v", own, err)
		}
		runToolSocket(t, node, own, bin, attr)
	})
}

// runToolSocket runs tool_socket.mjs with the agent bin, its folders in
// dir, as the user of attr (nil: this one).
func runToolSocket(t *testing.T, node, dir, bin string, attr *syscall.SysProcAttr) {
	t.Helper()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if attr != nil {
			if err := os.Chown(p, int(attr.Credential.Uid), int(attr.Credential.Gid)); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	wsA, wsB := mk("wsA"), mk("wsB")
	if err := os.WriteFile(filepath.Join(wsA, "secret.txt"), []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if attr != nil {
		_ = os.Chown(filepath.Join(wsA, "secret.txt"), int(attr.Credential.Uid), int(attr.Credential.Gid))
	}
	model := startModel(t, sshModel(t))
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "tool_socket.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin)
	cmd.Env = append(modelEnv(model),
		"PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"LANG=C.UTF-8",
		"HOME="+mk("home"),
		"HERMES_HOME="+mk("hermes"),
		"TMPDIR="+mk("tmp"),
		"SOCKET_WS_A="+wsA,
		"SOCKET_WS_B="+wsB,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(mk("transcript"), "transcript.jsonl"),
	)
	cmd.SysProcAttr = attr
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, bin, err, out)
	}
	t.Logf("%s", out)
}

// asNobody prepares a run of the agent as user 65534 (the test must run as
// root): a folder it can enter, outside the temporary folders the sandbox
// lets commands write, holding a copy of the binary (the test binary's
// folder is private), and the process attributes that switch to the user.
func asNobody(t *testing.T) (dir, bin string, attr *syscall.SysProcAttr) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("switching to another user needs root")
	}
	dir, err := os.MkdirTemp("/var/tmp", "hermes-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "hermes-acp")
	if err := copyFile(agentBin, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, bin, &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
