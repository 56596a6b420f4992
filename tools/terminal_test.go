package tools

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
)

// termEnv is a session with the command seams faked: an approver that
// records requests and decides by a function, an output sink, an
// announcement list and the session's close hooks.
type termEnv struct {
	*fakeEnv
	sess *session

	mu        sync.Mutex // guards the fields below
	requests  []CommandRequest
	decide    func(CommandRequest) CommandDecision
	chunks    []byte
	outCalls  int
	announced []string
	onClose   []func()
}

type termEnvOptions struct {
	Decide    func(CommandRequest) CommandDecision // nil allows everything
	Terminals EditorTerminals
	Config    TerminalConfig
	NoOutput  bool // Deps.Output nil
	Files     map[string]string
}

func newTermEnv(t testing.TB, o termEnvOptions) *termEnv {
	t.Helper()
	fe := newFakeEnv(t, fakeEnvOptions{Files: o.Files})
	e := &termEnv{fakeEnv: fe, decide: o.Decide}
	d := fe.Deps
	d.Commands = e
	d.Terminals = o.Terminals
	if !o.NoOutput {
		d.Output = e
	}
	d.Announce = func(s string) {
		e.mu.Lock()
		e.announced = append(e.announced, s)
		e.mu.Unlock()
	}
	d.OnClose = func(f func()) {
		e.mu.Lock()
		e.onClose = append(e.onClose, f)
		e.mu.Unlock()
	}
	d.Terminal = o.Config
	e.sess = newSession(d)
	t.Cleanup(e.close)
	return e
}

// close runs the session's close hooks (kills background processes).
func (e *termEnv) close() {
	e.mu.Lock()
	fs := e.onClose
	e.onClose = nil
	e.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (e *termEnv) ApproveCommand(_ context.Context, callID string, req CommandRequest) CommandDecision {
	e.mu.Lock()
	e.requests = append(e.requests, req)
	decide := e.decide
	e.mu.Unlock()
	if decide == nil {
		return CommandDecision{Allowed: true}
	}
	return decide(req)
}

func (e *termEnv) Output(_ string, chunk []byte) {
	e.mu.Lock()
	e.chunks = append(e.chunks, chunk...)
	e.outCalls++
	e.mu.Unlock()
}

func (e *termEnv) Announced() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.announced...)
}

// call runs tool with args in the session and returns the result and its
// value as a JSON object.
func (e *termEnv) call(t testing.TB, tool string, args map[string]any) (registry.Result, map[string]any) {
	t.Helper()
	return e.callCtx(t, t.Context(), tool, args)
}

func (e *termEnv) callCtx(t testing.TB, ctx context.Context, tool string, args map[string]any) (registry.Result, map[string]any) {
	t.Helper()
	r, err := runBuiltin(ctx, e.sess, "call-1", tool, args)
	if err != nil {
		t.Fatalf("%s(%v) returned error %v", tool, args, err)
	}
	return r, resultObject(t, r)
}

func TestTerminalForeground(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	r, m := e.call(t, "terminal", map[string]any{"command": "echo hello; pwd"})
	want := "hello\n" + e.Root
	if r.IsError || m["output"] != want || m["exit_code"] != 0.0 || m["error"] != nil {
		t.Errorf("terminal = %s (IsError %v), want output %q, exit 0, error null", r.Encode(), r.IsError, want)
	}
	if _, ok := m["error"]; !ok {
		t.Errorf("result %s has no error key; hermes always sends one", r.Encode())
	}
	if len(e.requests) != 1 || e.requests[0] != (CommandRequest{Command: "echo hello; pwd", Workdir: e.Root}) {
		t.Errorf("approval requests = %+v, want one for the command in the workspace root", e.requests)
	}
	if string(e.chunks) != "hello\n"+e.Root+"\n" {
		t.Errorf("streamed output = %q, want the command's output", e.chunks)
	}
	if got := terminalRender(map[string]any{"command": "echo hello; pwd"}, r); !strings.Contains(got, "```\nhello\n") || !strings.Contains(got, "Exit code: 0") {
		t.Errorf("render = %q, want the output fenced and the exit code", got)
	}
}

func TestTerminalExitCodes(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{Files: map[string]string{"a.txt": "alpha\n"}})
	r, m := e.call(t, "terminal", map[string]any{"command": "grep nothing a.txt"})
	if m["exit_code"] != 1.0 || m["exit_code_meaning"] != "No matches found (not an error)" || r.IsError {
		t.Errorf("grep without match = %s (IsError %v), want exit 1 with its meaning, not an error", r.Encode(), r.IsError)
	}
	r, m = e.call(t, "terminal", map[string]any{"command": "echo broken >&2; exit 2"})
	if m["exit_code"] != 2.0 || m["output"] != "broken" || !r.IsError || m["exit_code_meaning"] != nil {
		t.Errorf("exit 2 = %s (IsError %v), want a failed result with exit 2", r.Encode(), r.IsError)
	}
}

func TestTerminalOutputCleaned(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{Config: TerminalConfig{MaxOutputChars: 1000}})
	_, m := e.call(t, "terminal", map[string]any{"command": `printf '\033[31mred\033[0m key=sk-abcdefghij1234567890XYZ\n'`})
	if m["output"] != "red key=sk-abc...0XYZ" {
		t.Errorf("output = %q, want ANSI stripped and the key redacted", m["output"])
	}
	_, m = e.call(t, "terminal", map[string]any{"command": "seq 1 35000"})
	out := m["output"].(string)
	if !strings.HasPrefix(out, "1\n2\n") || !strings.Contains(out, "\n\n... [OUTPUT TRUNCATED - 197894 chars omitted out of 198894 total] ...\n\n") || !strings.HasSuffix(out, "\n35000") {
		t.Errorf("capped output = %q…%q, want head, hermes's marker and tail", out[:40], out[len(out)-40:])
	}
}

func TestTerminalRefusals(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	e := newTermEnv(t, termEnvOptions{Files: map[string]string{"sub/x.txt": "x"}})
	for _, tc := range []struct {
		name   string
		args   map[string]any
		status string
		errHas string
	}{
		{"non-string command", map[string]any{"command": 42.0}, "error", "Invalid command: expected string, got int"},
		{"null command", map[string]any{"command": nil}, "error", "Invalid command: expected string, got NoneType"},
		{"long-lived server", map[string]any{"command": "npm run dev"}, "error", "appears to start a long-lived server/watch process"},
		{"trailing ampersand", map[string]any{"command": "./server &"}, "error", "Foreground command uses '&' backgrounding"},
		{"nohup", map[string]any{"command": "nohup python app.py"}, "error", "shell-level background wrappers"},
		{"workdir outside", map[string]any{"command": "ls", "workdir": outside}, "blocked", "is outside the workspace"},
		{"workdir dotdot", map[string]any{"command": "ls", "workdir": "../.."}, "blocked", "is outside the workspace"},
		{"workdir metachar", map[string]any{"command": "ls", "workdir": "sub;rm -rf x"}, "blocked", "Blocked: workdir contains disallowed character ';'"},
		{"workdir missing", map[string]any{"command": "ls", "workdir": "nope"}, "blocked", "does not exist"},
	} {
		r, m := e.call(t, "terminal", tc.args)
		msg, _ := m["error"].(string)
		if !r.IsError || m["status"] != tc.status || !strings.Contains(msg, tc.errHas) || m["exit_code"] != -1.0 || m["output"] != "" {
			t.Errorf("%s: terminal = %s (IsError %v), want status %s with error containing %q", tc.name, r.Encode(), r.IsError, tc.status, tc.errHas)
		}
	}
	if len(e.requests) != 0 {
		t.Errorf("refused commands were sent for approval: %+v", e.requests)
	}
	r, m := e.call(t, "terminal", map[string]any{"command": "vite --help", "workdir": "sub"})
	if r.IsError && m["status"] == "error" {
		t.Errorf("vite --help refused: %s", r.Encode())
	}
	if len(e.requests) != 1 || e.requests[0].Workdir != filepath.Join(e.Root, "sub") {
		t.Errorf("approval requests = %+v, want one in %s", e.requests, filepath.Join(e.Root, "sub"))
	}
	_, m = e.call(t, "terminal", map[string]any{"command": "sleep 1", "timeout": 601})
	if m["error"] != "Foreground timeout 601s exceeds the maximum of 600s. Use background=true with notify_on_complete=true for long-running commands." {
		t.Errorf("timeout 601 = %v, want hermes's refusal", m)
	}
}

func TestTerminalApproval(t *testing.T) {
	t.Parallel()
	marker := "marker.txt"
	e := newTermEnv(t, termEnvOptions{Decide: func(req CommandRequest) CommandDecision {
		if strings.Contains(req.Command, "rm ") {
			return CommandDecision{Message: "BLOCKED: User denied this command. Do NOT retry.", Description: "delete"}
		}
		if strings.Contains(req.Command, "chmod") {
			return CommandDecision{Allowed: true, Approval: "once", Description: "world-writable permissions"}
		}
		return CommandDecision{Allowed: true}
	}})
	r, m := e.call(t, "terminal", map[string]any{"command": "touch " + marker + "; rm -r x"})
	if !r.IsError || m["status"] != "blocked" || m["error"] != "BLOCKED: User denied this command. Do NOT retry." || m["exit_code"] != -1.0 {
		t.Errorf("denied command = %s, want hermes's blocked shape", r.Encode())
	}
	if _, err := os.Stat(e.Abs(marker)); err == nil {
		t.Error("the denied command ran: the marker file exists")
	}
	_, m = e.call(t, "terminal", map[string]any{"command": "chmod 777 ."})
	if m["approval"] != "Command required approval (world-writable permissions) and was approved by the user." {
		t.Errorf("approved command = %v, want hermes's approval note", m)
	}
	nilApprover := newTermEnv(t, termEnvOptions{})
	nilApprover.sess.Commands = nil
	r, m = nilApprover.call(t, "terminal", map[string]any{"command": "touch " + marker})
	if !r.IsError || m["status"] != "blocked" {
		t.Errorf("without an approver = %s, want blocked", r.Encode())
	}
	if _, err := os.Stat(nilApprover.Abs(marker)); err == nil {
		t.Error("a command ran without an approver")
	}
}

// fakeTerminals is an editor that records the terminal commands it is
// asked to run and answers with a canned outcome.
type fakeTerminals struct {
	mu      sync.Mutex
	cmds    []TerminalCommand
	outcome TerminalOutcome
}

func (f *fakeTerminals) Run(_ context.Context, _ string, cmd TerminalCommand) (TerminalOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, cmd)
	return f.outcome, nil
}

func TestTerminalEditorTerminals(t *testing.T) {
	t.Parallel()
	code := 0
	ft := &fakeTerminals{outcome: TerminalOutcome{Output: "\x1b[32mok\x1b[0m token ghp_abcdefghijklmnopqrstuvwxyz12\n", ExitCode: &code}}
	sb := &terminal.Sandbox{Exe: "/opt/hermes-acp", Getenv: func(string) string { return "" }, Home: "/home/u"}
	e := newTermEnv(t, termEnvOptions{Terminals: ft, Config: TerminalConfig{Sandbox: sb, DefaultTimeout: 7 * time.Second}})
	r, m := e.call(t, "terminal", map[string]any{"command": "make test"})
	if r.IsError || m["output"] != "ok token ghp_ab...yz12" || m["exit_code"] != 0.0 {
		t.Errorf("editor terminal result = %s, want the cleaned output", r.Encode())
	}
	if len(ft.cmds) != 1 {
		t.Fatalf("editor terminal runs = %d, want 1", len(ft.cmds))
	}
	// The helper with a one-time ticket and the command as the editor
	// shows it; no policy on the line.
	c := ft.cmds[0]
	ticket := regexp.MustCompile(`^[A-Za-z0-9_-]+\.[0-9a-f]{32}$`)
	if c.Dir != e.Root || c.Timeout != 7*time.Second || len(c.Argv) != 4 || c.Argv[0] != "/opt/hermes-acp" || c.Argv[1] != "sandbox-exec" ||
		!ticket.MatchString(c.Argv[2]) || c.Argv[3] != "'make test'" || c.OutputByteLimit != 200_000 || len(c.Env) != 0 {
		t.Errorf("terminal command = %+v, want the sandbox helper, a ticket and the quoted command, in the root with the timeout", c)
	}
	if len(e.chunks) != 0 {
		t.Errorf("the agent streamed %q although the editor ran the command", e.chunks)
	}

	ft.outcome = TerminalOutcome{Output: "partial", TimedOut: true}
	r, m = e.call(t, "terminal", map[string]any{"command": "sleep 100", "timeout": 3})
	if m["output"] != "partial\n[Command timed out after 3s]" || m["exit_code"] != 124.0 || !r.IsError {
		t.Errorf("timed out editor terminal = %s, want hermes's timeout marker and 124", r.Encode())
	}
	ft.outcome = TerminalOutcome{Cancelled: true, Signal: "SIGTERM"}
	_, m = e.call(t, "terminal", map[string]any{"command": "sleep 100"})
	if m["output"] != "[Command interrupted]" || m["exit_code"] != 130.0 {
		t.Errorf("cancelled editor terminal = %v, want hermes's interrupt marker and 130", m)
	}
}

// groupAlive lists the live (not zombie) processes of process group pgid.
func groupAlive(t *testing.T, pgid int) []int {
	t.Helper()
	m, err := terminal.GroupMembers(pgid)
	if err != nil {
		t.Fatalf("no /proc: %v", err)
	}
	return m
}

// TestTerminalCancel: a cancel during sleep 30 returns hermes's interrupted
// result and leaves no process of the command behind.
func TestTerminalCancel(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pidFile := e.Abs("pid")
	e.sess.Output = outputFunc(func(b []byte) {
		if strings.Contains(string(b), "started") {
			cancel()
		}
	})
	r, m := e.callCtx(t, ctx, "terminal", map[string]any{"command": "echo $$ > pid; echo started; sleep 30"})
	if m["output"] != "started\n\n[Command interrupted]" || m["exit_code"] != 130.0 || !r.IsError {
		t.Fatalf("cancelled = %s, want the interrupt marker and 130", r.Encode())
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if left := groupAlive(t, pgid); pgid == 0 || len(left) > 0 {
		t.Errorf("processes of group %d left after cancel: %v", pgid, left)
	}
}

type outputFunc func([]byte)

func (f outputFunc) Output(_ string, b []byte) { f(b) }

func TestTerminalTitlePreview(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200)
	if got := terminalTitle(map[string]any{"command": long}); !strings.Contains(got, "...") || len(got) >= 120 {
		t.Errorf("title of a 200-char command = %q (%d), want it cut with ... under 120", got, len(got))
	}
	if got := terminalTitle(map[string]any{"command": "go test ./..."}); got != "terminal: go test ./..." {
		t.Errorf("title = %q", got)
	}
	if got := terminalTitle(map[string]any{"command": nil}); got != "terminal" {
		t.Errorf("title without command = %q", got)
	}
	if got := terminalPreview(map[string]any{"command": "ls -la"}); got != "$ ls -la" {
		t.Errorf("preview = %q, want $ ls -la", got)
	}
}

// TestTerminalOutputStreamingBounded: 5 MB of output reaches the sink in
// full while the result stays capped.
func TestTerminalOutputStreamingBounded(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	r, m := e.call(t, "terminal", map[string]any{"command": "head -c 5000000 /dev/zero | tr '\\0' 'a'"})
	out, _ := m["output"].(string)
	if r.IsError || len(out) > 50_200 || !strings.Contains(out, "[OUTPUT TRUNCATED - 4950000 chars omitted out of 5000000 total]") {
		t.Errorf("5 MB output result has %d chars, want it capped at 50 000 with the marker", len(out))
	}
	if len(e.chunks) != 5_000_000 {
		t.Errorf("sink received %d bytes, want 5 000 000", len(e.chunks))
	}
}

// TestTerminalTimeout: a foreground command past its timeout is killed
// with everything it started and answers with hermes's timeout marker.
func TestTerminalTimeout(t *testing.T) {
	t.Parallel()
	e := newTermEnv(t, termEnvOptions{})
	r, m := e.call(t, "terminal", map[string]any{"command": "echo $$ > pid; echo started; sleep 100 | cat", "timeout": 1})
	if m["output"] != "started\n\n[Command timed out after 1s]" || m["exit_code"] != 124.0 || !r.IsError {
		t.Fatalf("timed out = %s, want hermes's marker and 124", r.Encode())
	}
	data, err := os.ReadFile(e.Abs("pid"))
	if err != nil {
		t.Fatal(err)
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if left := groupAlive(t, pgid); pgid == 0 || len(left) > 0 {
		t.Errorf("processes of group %d left after the timeout: %v", pgid, left)
	}
}
