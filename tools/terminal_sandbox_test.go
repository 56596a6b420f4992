package tools

import (
	"fmt"
	"net"
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

// TestTerminalNetworkGrant: the model's network argument reaches the
// approval with what the sandbox confines; a command the approval grants
// the network reaches a loopback listener of this machine, one without it
// does not (the namespace sandbox's loopback is the session's own; under
// Landlock alone TCP is refused), and the result says what it ran with.
func TestTerminalNetworkGrant(t *testing.T) {
	t.Parallel()
	if terminal.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from outside\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := newTermEnv(t, termEnvOptions{
		Config: TerminalConfig{Sandbox: &terminal.Sandbox{Exe: exe}},
		Decide: func(r CommandRequest) CommandDecision {
			return CommandDecision{Allowed: true, Network: r.Network && r.Confines.Network, Asked: r.Network}
		},
	})
	cmd := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port)
	r, m := e.call(t, "terminal", map[string]any{"command": cmd})
	if !r.IsError || strings.Contains(fmt.Sprint(m["output"]), "hello from outside") || m["grants"] != nil {
		t.Errorf("without the network: %s, want the connection to fail", r.Encode())
	}
	r, m = e.call(t, "terminal", map[string]any{"command": cmd, "network": true})
	if r.IsError || m["output"] != "hello from outside" || m["grants"] != "Ran with the network (allowed by the user)." {
		t.Errorf("with the network: %s, want the listener's greeting and the grant named", r.Encode())
	}
	reqs := e.requestsSeen()
	if len(reqs) != 2 || reqs[0].Network || !reqs[1].Network || !reqs[1].Confines.Network {
		t.Errorf("requests = %+v, want the second asking for the network in a sandbox that confines it", reqs)
	}
}

// TestSandboxHints: a failed command's output that looks like a missing
// grant gets the hint to ask for it; one that looks like a refused write
// gets the writable-folders hint.
func TestSandboxHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out  string
		d    CommandDecision
		want string
	}{
		{"curl: (6) Could not resolve host: example.com", CommandDecision{}, "network=true"},
		{"npm error code EAI_AGAIN", CommandDecision{}, "network=true"},
		{"curl: (6) Could not resolve host: example.com", CommandDecision{Network: true}, ""},
		{"git@github.com: Permission denied (publickey).", CommandDecision{Network: true}, "credentials=true"},
		{"touch: cannot touch '/x': Read-only file system", CommandDecision{}, "terminal.sandbox_writable"},
		{"FAIL: 3 tests", CommandDecision{}, ""},
	} {
		got := sandboxHint(tc.out, tc.d)
		if (tc.want == "" && got != "") || !strings.Contains(got, tc.want) {
			t.Errorf("sandboxHint(%q, %+v) = %q, want %q in it", tc.out, tc.d, got, tc.want)
		}
	}
}

// requestsSeen returns the approval requests so far.
func (e *termEnv) requestsSeen() []CommandRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]CommandRequest(nil), e.requests...)
}
