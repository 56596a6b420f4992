package tools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// terminal backends (issue 18)

// fakeBackend runs commands on this machine but counts them and names
// itself like a container.
type fakeBackend struct {
	terminal.Local
	mu     sync.Mutex
	starts []terminal.Spec
}

func (b *fakeBackend) Start(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	b.mu.Lock()
	b.starts = append(b.starts, s)
	b.mu.Unlock()
	return b.Local.Start(ctx, s)
}
func (b *fakeBackend) Name() string     { return "docker" }
func (b *fakeBackend) Describe() string { return "docker container 0123456789ab (image test)" }

// TestTerminalBackendSelected: a session with a backend runs foreground
// and background commands in it (not in editor terminals), the editor's
// content names it, switching back to local applies to the next command,
// and an unavailable backend is a result naming why.
func TestTerminalBackendSelected(t *testing.T) {
	t.Parallel()
	ft := &fakeTerminals{}
	e := newTermEnv(t, termEnvOptions{Terminals: ft})
	fb := &fakeBackend{}
	var current TerminalBackend = fb
	var unavailable error
	e.sess.TerminalBackend = func() (TerminalBackend, error) { return current, unavailable }

	r, m := e.call(t, "terminal", map[string]any{"command": "echo hi"})
	if r.IsError || m["output"] != "hi" || len(fb.starts) != 1 || len(ft.cmds) != 0 {
		t.Fatalf("backend run = %s; backend starts %d, editor terminal runs %d; want the backend to run it", r.Encode(), len(fb.starts), len(ft.cmds))
	}
	if fb.starts[0].Dir != e.Root {
		t.Errorf("backend got dir %q, want the workspace root %q", fb.starts[0].Dir, e.Root)
	}
	if got := terminalRender(map[string]any{"command": "echo hi"}, r); !strings.HasPrefix(got, "Ran in docker container 0123456789ab (image test)\n") {
		t.Errorf("editor content = %q, want the backend named first", got)
	}
	if len(e.chunks) == 0 {
		t.Error("the backend's output was not streamed to the editor")
	}

	r, m = e.call(t, "terminal", map[string]any{"command": "sleep 30", "background": true})
	if r.IsError || !strings.Contains(m["output"].(string), "in docker container") || len(fb.starts) != 2 {
		t.Errorf("background start = %s, want it started in the backend and said so", r.Encode())
	}
	if got := terminalRender(nil, r); !strings.Contains(got, "started in docker container") {
		t.Errorf("background content = %q, want the backend named", got)
	}

	current = nil // the user switched the session back to local
	code := 0
	ft.outcome = TerminalOutcome{Output: "local\n", ExitCode: &code}
	e.call(t, "terminal", map[string]any{"command": "echo local"})
	if len(ft.cmds) != 1 || len(fb.starts) != 2 {
		t.Errorf("after switching to local: editor runs %d, backend starts %d; want the editor terminal", len(ft.cmds), len(fb.starts))
	}

	unavailable = errors.New("docker daemon unix:///x.sock: connection refused")
	r, m = e.call(t, "terminal", map[string]any{"command": "echo no"})
	if !r.IsError || !strings.Contains(m["error"].(string), "connection refused") || m["exit_code"] != -1.0 {
		t.Errorf("unavailable backend = %s, want a failed result naming why", r.Encode())
	}
}
