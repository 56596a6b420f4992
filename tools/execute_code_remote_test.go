package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// scriptBackend is a terminal backend on this machine with helpers: it
// runs execute_code's relay as a remote backend would (terminal/docker
// and terminal/ssh are tested end to end in cmd/hermes-acp), recording
// which commands were commands and which were helpers.
type scriptBackend struct {
	fakeBackend
	hmu     sync.Mutex
	helpers []terminal.Spec
}

func (b *scriptBackend) StartHelper(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	b.hmu.Lock()
	b.helpers = append(b.helpers, s)
	b.hmu.Unlock()
	return b.Local.Start(ctx, s)
}

// newBackendCodeEnv is a session whose terminal backend is a
// scriptBackend with its own temporary folder and python3 first on PATH.
func newBackendCodeEnv(t testing.TB, files map[string]string, path string) (*codeEnv, *scriptBackend, string) {
	t.Helper()
	e := newCodeEnv(t, codeEnvOptions{Files: files, Config: CodeExecutionConfig{Timeout: 20 * time.Second}})
	tmp := t.TempDir()
	if path == "" {
		path = filepath.Dir(testPython()) + ":" + os.Getenv("PATH")
	}
	b := &scriptBackend{}
	b.Local.Environ.Base = []string{"PATH=" + path, "TMPDIR=" + tmp, "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	d := e.sess.Deps
	d.TerminalBackend = func() (TerminalBackend, error) { return b, nil }
	e.sess = newSession(d)
	return e, b, tmp
}

// On a terminal backend the script runs as the backend's command beside
// a helper (the relay), its tool calls reach the session through the
// relay, its stderr comes back, and the relay's folder is gone after.
func TestExecuteCodeOnBackend(t *testing.T) {
	t.Parallel()
	needPython(t)
	e, b, tmp := newBackendCodeEnv(t, map[string]string{"a.txt": "alpha\n"}, "")
	r, m := e.run(t, t.Context(), `
import os, sys
from hermes_tools import read_file, terminal
print(read_file("a.txt")["content"], os.getcwd())
print("not in the environment:", [k for k in os.environ if "TOKEN" in k])
print("oops", file=sys.stderr)
raise SystemExit(4)
`)
	if m["status"] != "error" || m["exit_code"] != 4.0 || m["tool_calls_made"] != 1.0 {
		t.Fatalf("result = %s, want exit 4 after one tool call", r.Encode())
	}
	if want := "1|alpha " + e.Root + "\nnot in the environment: []\n--- stderr ---\noops"; m["output"] != want {
		t.Errorf("output = %q, want %q", m["output"], want)
	}
	b.mu.Lock()
	commands := len(b.starts)
	b.mu.Unlock()
	if commands != 1 || len(b.helpers) != 1 || !strings.Contains(b.helpers[0].Command, "python3 -u -c") || !b.helpers[0].Stdin {
		t.Errorf("backend ran %d commands and helpers %+v, want the script as a command and the relay as a helper", commands, b.helpers)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "hermes-exec-*")); len(left) != 0 {
		t.Errorf("the relay's folders are left: %v", left)
	}
	if got := executeCodeRender(nil, r); !strings.Contains(got, "Ran in docker container 0123456789ab") {
		t.Errorf("render = %q, want where it ran", got)
	}
}

// A backend without python3 refuses the script clearly.
func TestExecuteCodeOnBackendWithoutPython(t *testing.T) {
	t.Parallel()
	needPython(t)
	e, _, _ := newBackendCodeEnv(t, nil, "/nonexistent-bin:/usr/local/sbin:/sbin")
	r, m := e.run(t, t.Context(), "print('hi')")
	if !r.IsError || !strings.Contains(m["error"].(string), "Python 3 is not available there") || !strings.Contains(m["error"].(string), "docker container 0123456789ab") {
		t.Errorf("result = %s, want python3 missing in the backend", r.Encode())
	}
}

// The timeout kills the script on the backend; the relay is stopped and
// its folder removed.
func TestExecuteCodeOnBackendTimeout(t *testing.T) {
	t.Parallel()
	needPython(t)
	e, _, tmp := newBackendCodeEnv(t, nil, "")
	d := e.sess.Deps
	d.CodeExecution.Timeout = time.Second
	e.sess = newSession(d)
	r, m := e.run(t, t.Context(), "import hermes_tools\nwhile True:\n    pass\n")
	if m["status"] != "timeout" {
		t.Fatalf("result = %s, want the timeout", r.Encode())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "hermes-exec-*")); len(left) != 0 {
		t.Errorf("the relay's folders are left: %v", left)
	}
}

// The socket serves the script and the processes it started, not a
// process that left its tree (reparented away), even with the token —
// here and through a backend's relay.
func TestExecuteCodeSocketRefusesStrays(t *testing.T) {
	t.Parallel()
	needPython(t)
	if !peerCheck {
		t.Skip("peer credentials are not checked on this system")
	}
	script := `
import json, os, subprocess, sys, time
import hermes_tools
ask = """
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["HERMES_RPC_SOCKET"])
s.sendall((json.dumps({"tool": "read_file", "args": {"path": "a.txt"}, "token": sys.argv[1]}) + "\\n").encode())
open(sys.argv[2], "w").write(s.recv(65536).decode())
"""
# a child of the script, with the token: served
subprocess.run([sys.executable, "-c", ask, hermes_tools._token, "child.out"], check=True)
# a grandchild whose parent exits at once: reparented, out of the tree
subprocess.run(["sh", "-c", '"$0" -c "$1" "$2" "$3" > stray.err 2>&1 &', sys.executable, "import time; time.sleep(0.5)\n" + ask, hermes_tools._token, "stray.out"], check=True)
for _ in range(200):
    if os.path.exists("stray.out") and open("stray.out").read():
        break
    time.sleep(0.05)
print("child:", "alpha" in open("child.out").read())
print("stray:", open("stray.out").read() if os.path.exists("stray.out") else open("stray.err").read())
`
	for _, where := range []string{"here", "backend"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"a.txt": "alpha\n"}
			var e *codeEnv
			if where == "here" {
				e = newCodeEnv(t, codeEnvOptions{Files: files})
			} else {
				e, _, _ = newBackendCodeEnv(t, files, "")
			}
			r, m := e.run(t, t.Context(), script)
			out, _ := m["output"].(string)
			if !strings.Contains(out, "child: True") || !strings.Contains(out, "stray: ") || !strings.Contains(out, "Refused: this socket serves only") || strings.Count(out, "alpha") != 0 {
				t.Errorf("result = %s, want the child served and the stray refused", r.Encode())
			}
		})
	}
}
