package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// codeEnv is a session whose execute_code scripts call the session's own
// built-in tools through a fake CallTool (the agent's pipeline is tested
// in agent/), recording each call.
type codeEnv struct {
	*termEnv
	mu      sync.Mutex
	calls   []string // "parent name args"
	scripts []ScriptRequest
	decide  func(ScriptRequest) CommandDecision
}

type codeEnvOptions struct {
	Files  map[string]string
	Config CodeExecutionConfig
	Term   TerminalConfig
	Decide func(CommandRequest) CommandDecision // the commands of hermes_tools.terminal
	// DecideScript approves scripts (nil allows them).
	DecideScript func(ScriptRequest) CommandDecision
	Enabled      func(string) bool
}

func newCodeEnv(t testing.TB, o codeEnvOptions) *codeEnv {
	t.Helper()
	te := newTermEnv(t, termEnvOptions{Files: o.Files, Config: o.Term, Decide: o.Decide})
	e := &codeEnv{termEnv: te, decide: o.DecideScript}
	d := te.sess.Deps
	d.Scripts = e
	d.CodeExecution = o.Config
	if d.CodeExecution.Python == "" {
		d.CodeExecution.Python = testPython()
	}
	if o.Enabled != nil {
		d.Enabled = o.Enabled
	}
	d.CallTool = func(ctx context.Context, parent, name string, args json.RawMessage) (string, error) {
		e.mu.Lock()
		e.calls = append(e.calls, parent+" "+name+" "+string(args))
		n := len(e.calls)
		e.mu.Unlock()
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			return "", err
		}
		r, err := runBuiltin(ctx, e.sess, fmt.Sprintf("%s.py%d", parent, n), name, m)
		if err != nil {
			return "", err
		}
		return r.Encode(), nil
	}
	te.sess = newSession(d)
	return e
}

func (e *codeEnv) ApproveScript(_ context.Context, _ string, req ScriptRequest) CommandDecision {
	e.mu.Lock()
	e.scripts = append(e.scripts, req)
	e.mu.Unlock()
	if e.decide == nil {
		return CommandDecision{Allowed: true}
	}
	return e.decide(req)
}

func (e *codeEnv) Calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

// run runs code and returns the result and its JSON object.
func (e *codeEnv) run(t testing.TB, ctx context.Context, code string) (registry.Result, map[string]any) {
	t.Helper()
	return e.callCtx(t, ctx, executeCodeName, map[string]any{"code": code})
}

func needPython(t testing.TB) {
	t.Helper()
	if testPython() == "" {
		t.Fatal("python3 is needed by execute_code's tests (.ci/run installs it)")
	}
}

// testPython is the interpreter python3 on PATH runs (a version manager's
// shim would add a second to every script).
var testPython = sync.OnceValue(func() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// A script reads three files through hermes_tools and prints; each read
// goes through CallTool under the execute_code call, and the output and
// the number of calls come back.
func TestExecuteCodeReadsFiles(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Files: map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"}})
	r, m := e.run(t, t.Context(), `
from hermes_tools import read_file
total = 0
for name in ["a.txt", "b.txt", "c.txt"]:
    res = read_file(name)
    print(name, res["content"], res["total_lines"])
`)
	if r.IsError || m["status"] != "success" || m["tool_calls_made"] != 3.0 || m["exit_code"] != 0.0 {
		t.Fatalf("result = %s, want success with 3 tool calls", r.Encode())
	}
	if want := "a.txt 1|alpha 1\nb.txt 1|beta 1\nc.txt 1|gamma 1"; m["output"] != want {
		t.Errorf("output = %q, want %q", m["output"], want)
	}
	calls := e.Calls()
	if len(calls) != 3 || !strings.HasPrefix(calls[0], "call-1 read_file ") || !strings.Contains(calls[0], `"path":"a.txt"`) {
		t.Errorf("tool calls = %q, want three read_file calls under call-1", calls)
	}
	// None arguments are dropped: the tool's default applies.
	if strings.Contains(calls[0], "null") {
		t.Errorf("call args %q carry nulls", calls[0])
	}
}

// A patch from a script is a patch of the session: it goes through the
// edit approval, and a rejection leaves the file and tells the script.
func TestExecuteCodePatchRejected(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Files: map[string]string{"a.txt": "alpha\n"}})
	e.fakeEnv.approve = func(string, []workspace.Change) workspace.Decision { return workspace.Decision{} }
	r, m := e.run(t, t.Context(), `
from hermes_tools import patch
res = patch(path="a.txt", old_string="alpha", new_string="beta")
print("patch:", res.get("error") or res)
`)
	if r.IsError || !strings.Contains(m["output"].(string), "patch: ") || !strings.Contains(m["output"].(string), "denied") {
		t.Errorf("result = %s, want the script to print the denial", r.Encode())
	}
	if got := e.ReadFile(t, "a.txt"); got != "alpha\n" {
		t.Errorf("a.txt = %q, want it unchanged after the rejection", got)
	}
	if len(e.Approvals()) != 1 {
		t.Errorf("approvals = %d, want the patch shown once", len(e.Approvals()))
	}
}

// The 51st call of a script fails with hermes's message; the first 50 ran.
func TestExecuteCodeToolCallLimit(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Files: map[string]string{"a.txt": "alpha\n"}, Config: CodeExecutionConfig{MaxToolCalls: 3}})
	r, m := e.run(t, t.Context(), `
from hermes_tools import read_file
for i in range(5):
    res = read_file("a.txt", limit=10 + i)
    print(i, res.get("error", "ok"))
`)
	want := "0 ok\n1 ok\n2 ok\n3 Tool call limit reached (3). No more tool calls allowed in this execution.\n4 Tool call limit reached (3). No more tool calls allowed in this execution."
	if r.IsError || m["output"] != want || m["tool_calls_made"] != 3.0 {
		t.Errorf("result = %s, want 3 calls made and the limit error after", r.Encode())
	}
	if n := len(e.Calls()); n != 3 {
		t.Errorf("calls run = %d, want 3", n)
	}
}

// A script may call only the sandbox tools the session enables: the
// module has no function for the others and the socket refuses them.
func TestExecuteCodeOnlyEnabledTools(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Enabled: func(n string) bool { return n != "terminal" && n != "web_search" }})
	_, m := e.run(t, t.Context(), `
import hermes_tools
print(hasattr(hermes_tools, "terminal"), hasattr(hermes_tools, "read_file"), hasattr(hermes_tools, "web_search"))
print(hermes_tools._call("terminal", {"command": "id"})["error"])
print(hermes_tools._call("process", {"action": "list"})["error"])
`)
	want := "False True False\nTool 'terminal' is not available in execute_code. Available: patch, read_file, search_files, web_extract, write_file\n" +
		"Tool 'process' is not available in execute_code. Available: patch, read_file, search_files, web_extract, write_file"
	if m["output"] != want || len(e.Calls()) != 0 {
		t.Errorf("output = %q (calls %q), want %q", m["output"], e.Calls(), want)
	}
	var desc string
	entries, _ := Bind(e.sess.Deps)
	for _, en := range entries {
		if en.Name == executeCodeName {
			desc = en.Description
		}
	}
	if !strings.Contains(desc, "read_file(path: str") || strings.Contains(desc, "terminal(") || strings.Contains(desc, "web_search(") {
		t.Errorf("description lists other functions than the enabled ones:\n%s", desc)
	}
}

// scriptPgid runs a script that writes its process group to pidfile and
// loops; it returns when the pid file exists.
func waitPgid(t *testing.T, path string, stop <-chan struct{}) int {
	t.Helper()
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		select {
		case <-stop:
			return 0
		case <-time.After(10 * time.Millisecond):
		}
	}
}

const loopScript = `
import os, subprocess
subprocess.Popen(["sleep", "1000"])
with open(%q, "w") as f:
    f.write(str(os.getpgid(0)) + "\n")
while True:
    pass
`

// while True: pass is killed at the timeout with everything it started.
func TestExecuteCodeTimeout(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Config: CodeExecutionConfig{Timeout: time.Second}})
	pidFile := e.Abs("pgid")
	r, m := e.run(t, t.Context(), fmt.Sprintf(loopScript, pidFile))
	if !r.IsError || m["status"] != "timeout" || m["error"] != "Script timed out after 1s and was killed." ||
		!strings.Contains(m["output"].(string), "⏰ Script timed out after 1s") {
		t.Errorf("result = %s, want hermes's timeout", r.Encode())
	}
	pgid := waitPgid(t, pidFile, closed())
	if pgid == 0 {
		t.Fatal("the script never wrote its process group")
	}
	if alive := groupAlive(t, pgid); len(alive) > 0 {
		t.Errorf("processes %v of the script are still running", alive)
	}
}

func closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// A cancel kills the script and everything it started.
func TestExecuteCodeCancel(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{})
	pidFile := e.Abs("pgid")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	var pgid int
	go func() {
		pgid = waitPgid(t, pidFile, done)
		cancel()
	}()
	r, m := e.run(t, ctx, fmt.Sprintf(loopScript, pidFile))
	close(done)
	if !r.IsError || m["status"] != "interrupted" || m["output"] != "[execution interrupted]" {
		t.Errorf("result = %s, want hermes's interrupted result", r.Encode())
	}
	if pgid == 0 {
		t.Fatal("the script never wrote its process group")
	}
	if alive := groupAlive(t, pgid); len(alive) > 0 {
		t.Errorf("processes %v of the script are still running", alive)
	}
}

// stdout keeps 50 000 characters (head and tail), stderr 10 000.
func TestExecuteCodeOutputCaps(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{})
	r, m := e.run(t, t.Context(), `
import sys
print("HEAD" + "x" * 100000 + "TAIL")
sys.stderr.write("EHEAD" + "e" * 50000 + "ETAIL")
`)
	out := m["output"].(string)
	stdout, stderr, _ := strings.Cut(out, "\n--- stderr ---\n")
	if r.IsError || m["stdout_truncated"] != true || m["stderr_truncated"] != true || m["stdout_chars_total"] != 100009.0 {
		t.Errorf("result keys = %v, want both streams truncated", m["stdout_truncated"])
	}
	if n := len([]rune(stdout)); n > maxCodeStdoutChars+200 || !strings.HasPrefix(stdout, "HEAD") || !strings.HasSuffix(stdout, "TAIL") {
		t.Errorf("stdout = %d chars (%q…), want ≤ 50000 with head and tail", n, stdout[:20])
	}
	if n := len([]rune(stderr)); n > maxCodeStderrChars+200 || !strings.HasPrefix(stderr, "EHEAD") || !strings.HasSuffix(stderr, "ETAIL") {
		t.Errorf("stderr = %d chars, want ≤ 10000 with head and tail", n)
	}
}

// A script sees no secrets: variables naming keys and tokens are gone,
// ordinary ones stay; the commands' environment rules apply too (the
// variable the configuration reads the model's key from is removed, a
// terminal.env_passthrough variable kept).
func TestExecuteCodeScrubsEnvironment(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "sk-secret-value")
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	t.Setenv("GH_TOKEN", "gh_passed")
	t.Setenv("LC_MODEL_KEYRING", "x")
	t.Setenv("LC_LLM", "sk-in-an-odd-name")
	t.Setenv("LANG", "C.UTF-8")
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Term: TerminalConfig{Environ: terminal.Environ{Block: []string{"lc_llm"}, Passthrough: []string{"gh_token"}}}})
	_, m := e.run(t, t.Context(), `
import os
print(*[os.environ.get(k) for k in ("OPENROUTER_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "LC_MODEL_KEYRING", "LC_LLM", "LANG")], "HERMES_RPC_SOCKET" in os.environ)
`)
	if want := "None None gh_passed None None C.UTF-8 True"; m["output"] != want {
		t.Errorf("output = %q, want %q: the secrets unset, the passthrough kept", m["output"], want)
	}
}

// The script is approved before it runs, with the commands a static look
// finds in it; a denial runs nothing of it.
func TestExecuteCodeApproval(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{DecideScript: func(r ScriptRequest) CommandDecision {
		return CommandDecision{Message: "BLOCKED: User denied this script."}
	}})
	marker := e.Abs("ran")
	code := fmt.Sprintf("import os, subprocess\nopen(%q, 'w').close()\nos.system('rm -rf /tmp/nothing-here')\nsubprocess.run(['ls', d])\n", marker)
	r, m := e.run(t, t.Context(), code)
	if !r.IsError || m["status"] != "error" || m["error"] != "BLOCKED: User denied this script." {
		t.Errorf("result = %s, want the denial", r.Encode())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the denied script ran")
	}
	e.mu.Lock()
	req := e.scripts[0]
	e.mu.Unlock()
	want := []ScriptCommand{
		{Line: 3, Call: "os.system", Text: "rm -rf /tmp/nothing-here", Check: "rm -rf /tmp/nothing-here"},
		{Line: 4, Call: "subprocess.run", Text: "ls {d}", Check: "ls ${HERMES_PY_VALUE}", Hidden: true, Why: "parts of the command are computed at run time"},
	}
	if req.Code != code || req.Workdir != e.Root || !slices.Equal(req.Commands, want) {
		t.Errorf("approval request = %+v, want the script in the workspace with its commands %+v", req, want)
	}
}

// With the sandbox, a direct write into $HOME fails inside the script (an
// OSError it can print: EROFS in the namespace sandbox, where the world is
// read-only, EACCES under Landlock alone); the workspace stays writable.
func TestExecuteCodeSandboxRefusesHome(t *testing.T) {
	t.Parallel()
	needPython(t)
	if terminal.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	home, err := os.MkdirTemp("/var/tmp", "hermes-code-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb := &terminal.Sandbox{Exe: exe, Home: home, Getenv: func(string) string { return "" }}
	e := newCodeEnv(t, codeEnvOptions{Term: TerminalConfig{Sandbox: sb}})
	target := filepath.Join(home, "x")
	r, m := e.run(t, t.Context(), fmt.Sprintf(`
import errno
try:
    open(%q, "w").write("x")
    print("wrote")
except OSError as err:
    print("refused:", errno.errorcode[err.errno])
open("inside.txt", "w").write("ok")
`, target))
	want := "refused: EACCES"
	if sb.Confinement().Kind == terminal.KindNamespaces {
		want = "refused: EROFS"
	}
	if r.IsError || m["output"] != want {
		t.Errorf("result = %s, want %q", r.Encode(), want)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the script wrote %s", target)
	}
	if e.ReadFile(t, "inside.txt") != "ok" {
		t.Errorf("the workspace write failed")
	}
}

// A script gets the commands' resource limits (terminal.limits): a file
// larger than file_size cannot be written, and a loop past cpu_time is
// killed (by SIGXCPU, or SIGKILL at the hard limit) long before the
// script's timeout, in the sandbox as any command.
func TestExecuteCodeSandboxLimits(t *testing.T) {
	t.Parallel()
	needPython(t)
	if terminal.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb := &terminal.Sandbox{Exe: exe, Home: t.TempDir(), Getenv: func(string) string { return "" },
		Limits: terminal.Limits{CPUTime: 2, FileSize: 1 << 20}}
	e := newCodeEnv(t, codeEnvOptions{Term: TerminalConfig{Sandbox: sb}, Config: CodeExecutionConfig{Timeout: 60 * time.Second}})
	r, m := e.run(t, t.Context(), `
import errno, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
try:
    with open("big.bin", "wb") as f:
        f.write(b"x" * (2 << 20))
    print("wrote 2 MiB")
except OSError as err:
    print("refused:", errno.errorcode[err.errno], flush=True)
while True:
    pass
`)
	if m["status"] != "error" || !strings.HasPrefix(m["output"].(string), "refused: EFBIG") || !strings.Contains(m["error"].(string), "SIGXCPU") && !strings.Contains(m["error"].(string), "(killed)") {
		t.Errorf("result = %s, want the big write refused and the loop killed by SIGXCPU", r.Encode())
	}
}

// A script runs without the network unless its approval granted it: a
// loopback listener of this machine (outside the sandbox's network) is
// unreachable from a script without the grant, and reached with it; the
// request says which grants the sandbox confines here, and a failed
// offline script gets the hint to ask through hermes_tools.terminal.
func TestExecuteCodeNetworkGrant(t *testing.T) {
	t.Parallel()
	needPython(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb := &terminal.Sandbox{Exe: exe, Home: t.TempDir(), Getenv: func(string) string { return "" }}
	if sb.Confinement().Kind != terminal.KindNamespaces {
		t.Skip("the sandbox has no network namespace here: " + sb.Confinement().Reason)
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
	code := fmt.Sprintf(`
import socket
s = socket.create_connection(("127.0.0.1", %d), timeout=10)
print(s.recv(100).decode().strip())
`, ln.Addr().(*net.TCPAddr).Port)
	for _, grant := range []bool{false, true} {
		e := newCodeEnv(t, codeEnvOptions{Term: TerminalConfig{Sandbox: sb}, DecideScript: func(req ScriptRequest) CommandDecision {
			return CommandDecision{Allowed: true, Network: grant, Asked: grant}
		}})
		r, m := e.run(t, t.Context(), code)
		if req := e.scripts[0]; !req.Confines.Network {
			t.Errorf("request %+v: want the network confined here", req.Confines)
		}
		switch {
		case grant && (r.IsError || m["output"] != "hello from outside" || !strings.Contains(fmt.Sprint(m["grants"]), "the network")):
			t.Errorf("granted: result = %s, want the listener's greeting and the grant named", r.Encode())
		case !grant && (!r.IsError || strings.Contains(fmt.Sprint(m["output"]), "hello")):
			t.Errorf("not granted: result = %s, want the connection refused", r.Encode())
		}
	}
	// the hint, for output that shows a missing network (as pip's, without
	// sending a query anywhere)
	e := newCodeEnv(t, codeEnvOptions{Term: TerminalConfig{Sandbox: sb}})
	r, _ := e.run(t, t.Context(), `raise OSError("[Errno -3] Temporary failure in name resolution")`)
	if !r.IsError || !strings.Contains(r.Hint, "hermes_tools.terminal(command, network=True)") {
		t.Errorf("offline failure: result %s, hint %q; want the hint to ask through hermes_tools.terminal", r.Encode(), r.Hint)
	}
}

// strict mode runs in a temp folder; project mode in the workspace, with
// its .venv python.
func TestExecuteCodeModes(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Config: CodeExecutionConfig{Mode: "strict"}})
	_, m := e.run(t, t.Context(), "import os\nprint(os.getcwd())")
	if out := m["output"].(string); out == e.Root || !strings.Contains(out, "hermes-exec-") {
		t.Errorf("strict cwd = %q, want a temp folder", out)
	}
	p := newCodeEnv(t, codeEnvOptions{})
	py := testPython()
	venv := p.Abs(".venv/bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(venv, "python"), []byte("#!/bin/sh\necho venv python\nexec "+py+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, m = p.run(t, t.Context(), "import os\nprint(os.getcwd())")
	if want := "venv python\n" + p.Root; m["output"] != want {
		t.Errorf("project output = %q, want %q", m["output"], want)
	}
}

// A failing script reports its exit code and stderr; hermes's argument
// errors.
func TestExecuteCodeErrors(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{})
	r, m := e.run(t, t.Context(), "print('before')\nraise SystemExit(3)")
	if !r.IsError || m["status"] != "error" || m["exit_code"] != 3.0 || m["error"] != "Script exited with code 3" || m["output"] != "before" {
		t.Errorf("exit 3 = %s", r.Encode())
	}
	_, m = e.run(t, t.Context(), "1/0")
	if out := m["output"].(string); !strings.Contains(out, "--- stderr ---\nTraceback") || !strings.Contains(out, "ZeroDivisionError") {
		t.Errorf("traceback output = %q", out)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "ls"}, "execute_code received a 'command' parameter, but it requires Python source in 'code'."},
		{map[string]any{"code": 5}, "execute_code received a int in 'code'"},
		{map[string]any{"code": "  \n"}, "No code provided."},
	} {
		r, _ := e.callCtx(t, t.Context(), executeCodeName, c.args)
		if !r.IsError || !strings.Contains(r.ErrorMessage(), c.want) {
			t.Errorf("execute_code(%v) = %s, want %q", c.args, r.Encode(), c.want)
		}
	}
}

// hermes's §9 case: the title is the first non-blank line; the preview is
// the code in a python fence.
func TestExecuteCodeTitleAndPreview(t *testing.T) {
	t.Parallel()
	args := map[string]any{"code": "\nfrom hermes_tools import terminal\nprint(terminal('ls'))"}
	if got := executeCodeTitle(args); got != "python: from hermes_tools import terminal" {
		t.Errorf("title = %q", got)
	}
	if got := executeCodeTitle(map[string]any{}); got != "execute_code" {
		t.Errorf("title without code = %q", got)
	}
	if got := executeCodeTitle(map[string]any{"code": strings.Repeat("x", 100)}); got != "python: "+strings.Repeat("x", 67)+"..." {
		t.Errorf("long title = %q", got)
	}
	if got := executeCodePreview(args); got != "```python\n"+args["code"].(string)+"\n```" {
		t.Errorf("preview = %q", got)
	}
}

// The tools token is in no environment: the module reads it from a file
// beside it and removes the file; the calls still work.
func TestExecuteCodeTokenNotInEnvironment(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newCodeEnv(t, codeEnvOptions{Files: map[string]string{"a.txt": "alpha\n"}})
	r, m := e.run(t, t.Context(), `
import os, hermes_tools
from hermes_tools import read_file
here = os.path.dirname(hermes_tools.__file__)
print(sorted(k for k in os.environ if "TOKEN" in k), os.path.exists(os.path.join(here, ".rpc-token")), len(hermes_tools._token) >= 32)
print(read_file("a.txt")["content"])
`)
	if r.IsError || m["output"] != "[] False True\n1|alpha" {
		t.Errorf("result = %s, want no token variable, the token file gone, and the call served", r.Encode())
	}
}

// The socket serves only the script's own processes: another process
// connecting with the right token is refused (the cross-session attack,
// where a second session's script found the socket and the token).
func TestRPCServesOnlyTheScriptsProcesses(t *testing.T) {
	t.Parallel()
	if !peerCheck {
		t.Skip("peer credentials are not checked on this system")
	}
	called := make(chan string, 1)
	callTool := func(_ context.Context, _, name string, _ json.RawMessage) (string, error) {
		called <- name
		return `{"ok":true}`, nil
	}
	ask := func(t *testing.T, root int) string {
		t.Helper()
		dir := t.TempDir()
		srv, err := startRPC(t.Context(), filepath.Join(dir, "rpc.sock"), "tok", "call-1", []string{"read_file"}, 5, callTool)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.close()
		srv.set(root)
		c, err := net.Dial("unix", srv.path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte(`{"tool":"read_file","args":{"path":"a"},"token":"tok"}` + "\n")); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	// This process is the "script": served.
	if got := ask(t, os.Getpid()); !strings.Contains(got, "ok") {
		t.Errorf("the script's own connection got %q", got)
	}
	if name := <-called; name != "read_file" {
		t.Errorf("called %q", name)
	}
	// Another process is the script: this one is refused, token or not.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	if got := ask(t, other.Process.Pid); !strings.Contains(got, "Refused: this socket serves only the execute_code script") {
		t.Errorf("a connection from outside the script got %q, want the refusal", got)
	}
	select {
	case name := <-called:
		t.Errorf("the refused connection ran %s", name)
	default:
	}
}

func TestDescendantOf(t *testing.T) {
	t.Parallel()
	if !peerCheck {
		t.Skip("not on this system")
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	for _, c := range []struct {
		pid, root int
		want      bool
	}{
		{child.Process.Pid, os.Getpid(), true},
		{os.Getpid(), os.Getpid(), true},
		{os.Getpid(), child.Process.Pid, false},
		{1, child.Process.Pid, false},
	} {
		if got, err := descendantOf(c.pid, c.root); got != c.want || err != nil {
			t.Errorf("descendantOf(%d, %d) = %v, %v; want %v", c.pid, c.root, got, err, c.want)
		}
	}
}
