package main_test

// The official ACP TypeScript SDK plays an editor while a hostile scripted
// model tries to get out of the terminal sandbox (conformance/sandbox.mjs,
// issue #24): device writes, metadata changes and writes outside the
// workspace, the network (TCP and UDP to loopback listeners outside the
// sandbox; granted by "Run with the network"), the agent's secrets in the
// environment, credentials and $HERMES_HOME, signals to the agent and to
// another process of the user, setsid double forks outliving their command,
// their session and the agent, another session's /tmp, and editor
// terminals run by a client that joins terminal/create's command line into
// one sh -c string. The user rejects whatever is asked unless a step says
// otherwise. It runs as this test's user (root in CI) and, when that is
// root, again as nobody with a workspace nobody owns.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTypeScriptSDKSandbox(t *testing.T) {
	t.Parallel()
	runSandboxScript(t, nil)
}

func TestTypeScriptSDKSandboxAsNobody(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("switching to nobody needs root; the test as this user is TestTypeScriptSDKSandbox")
	}
	runSandboxScript(t, &syscall.Credential{Uid: 65534, Gid: 65534})
}

// runSandboxScript runs conformance/sandbox.mjs as cred's user (nil: this
// process's) with everything it needs in a folder that user owns, outside
// /tmp (the sandbox gives commands a /tmp of their own, so a file there
// would prove nothing).
func runSandboxScript(t *testing.T, cred *syscall.Credential) {
	node := requireNode(t)
	base, err := os.MkdirTemp("/var/tmp", "hermes-sandbox-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := func(name string) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	home, outside, work, hermes, tmp, bin := dir("home"), dir("outside"), dir("work"), dir("hermes"), dir("tmp"), dir("bin")
	f := filepath.Join(outside, "f")
	if err := os.WriteFile(f, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(f, old, old); err != nil {
		t.Fatal(err)
	}
	exe := agentBin
	if cred != nil {
		// The agent's binary where that user can run it.
		exe = filepath.Join(bin, "hermes-acp")
		if err := copyFile(agentBin, exe, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(base, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := filepath.Walk(base, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, int(cred.Uid), int(cred.Gid))
		}); err != nil {
			t.Fatal(err)
		}
	}
	transcript := filepath.Join(base, "transcript.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "sandbox.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, script, exe)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = []string{
		// No developer folders on PATH (nobody cannot read /root's).
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + home, "HERMES_HOME=" + hermes, "TMPDIR=" + tmp, "LANG=C.UTF-8",
		"CONFORMANCE_WORKDIR=" + work, "CONFORMANCE_TRANSCRIPT=" + transcript,
		"SANDBOX_OUTSIDE=" + outside, "SANDBOX_PYTHON=/usr/bin/python3",
		// Secrets the agent has and its commands must not.
		"ANTHROPIC_API_KEY=sk-ant-api03-sandbox-e2e-secret", "GH_TOKEN=ghp_sandboxE2Esecret000000000000000000",
		"OPENAI_API_KEY=sk-sandbox-e2e-secret", "HERMES_SANDBOX_PROBE=kept",
	}
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("node %s %s: %v\n%s", script, exe, err, out)
	} else {
		t.Logf("%s", out)
	}
	sdkRun{transcript: transcript}.transcriptOf(t) // every agent line validates against the ACP schema

	// The outside file is as it was, whatever the script saw.
	fi, err := os.Stat(f)
	if err != nil || fi.Mode().Perm() != 0o644 || !fi.ModTime().Equal(old) {
		t.Errorf("%s after the run: %v %v (%v), want mode 0644 and %v", f, fi.Mode(), fi.ModTime(), err, old)
	}
	for _, name := range []string{"new", "joined", "ll"} {
		if _, err := os.Lstat(filepath.Join(outside, name)); err == nil {
			t.Errorf("a command wrote %s outside the workspace", name)
		}
	}

	// hermes-acp tools names the forced fallback.
	tools := exec.CommandContext(ctx, exe, "tools")
	tools.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "HERMES_HOME=" + filepath.Join(work, "hermes-home-landlock"), "TMPDIR=" + tmp}
	if cred != nil {
		tools.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	b, err := tools.CombinedOutput()
	if want := "Sandbox (commands on this machine): Commands run in a weaker sandbox (landlock) because terminal.sandbox is landlock; it does not confine: "; err != nil || !strings.Contains(string(b), want) {
		t.Errorf("hermes-acp tools with terminal.sandbox: landlock (%v):\n%s\nwant %q", err, b, want)
	}
}
