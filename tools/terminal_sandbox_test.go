package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// TestMain lets the test binary be the sandbox helper of the sandboxed
// sessions below.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == terminal.SandboxCommand {
		os.Exit(terminal.SandboxMain(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}

// TestTerminalSandboxHint: a write the sandbox refuses fails, and the
// result tells the model why and how the user can allow the folder.
func TestTerminalSandboxHint(t *testing.T) {
	t.Parallel()
	if terminal.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	outside, err := os.MkdirTemp("/var/tmp", "hermes-hint-test-")
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if tmp, _ := filepath.EvalSymlinks(os.TempDir()); strings.HasPrefix(outside, tmp) {
		t.Skip("/var/tmp is the temporary directory here")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := newTermEnv(t, termEnvOptions{Config: TerminalConfig{Sandbox: &terminal.Sandbox{Exe: exe}}})
	target := filepath.Join(outside, "x")
	r, m := e.call(t, "terminal", map[string]any{"command": "touch " + target})
	if !r.IsError || m["exit_code"] != 1.0 || !terminal.LooksRefused(m["output"].(string)) ||
		!strings.Contains(r.Hint, "terminal.sandbox_writable") {
		t.Errorf("refused write = %s (hint %q), want a failure with the sandbox hint", r.Encode(), r.Hint)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the sandboxed command wrote %s", target)
	}
	r, m = e.call(t, "terminal", map[string]any{"command": "touch inside && ls"})
	if r.IsError || m["output"] != "inside" || r.Hint != "" {
		t.Errorf("write in the workspace = %s (hint %q), want it to work", r.Encode(), r.Hint)
	}
}
