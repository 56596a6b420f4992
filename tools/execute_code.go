package tools

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "embed"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/tools/internal/pycmd"
)

// execute_code runs a Python script that calls the session's tools, as
// hermes-agent's tool of the same name does: the script imports a
// generated hermes_tools module whose functions send each call over a
// private Unix socket back here, where Deps.CallTool runs it through the
// session's pipeline like a call of the model (workspace rules, file
// safety, edit approval, lint). The script runs like a terminal command:
// approved first, in its own process group, under the terminal's sandbox,
// with an environment scrubbed of secrets, killed whole at the timeout or
// on cancel.
var _ = register(registry.Entry{
	Name:        executeCodeName,
	Toolset:     "code_execution",
	Emoji:       "🐍",
	Description: executeCodeDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"code": map[string]any{
				"type": "string",
				"description": "Python code to execute. Import tools with `from hermes_tools import ...` (the functions listed above) " +
					"and print your final result to stdout.",
			},
		},
		"required": []any{"code"},
	},
	MaxResultChars: 100_000,
	Kind:           registry.KindExecute,
	Title:          executeCodeTitle,
	Preview:        executeCodePreview,
	Render:         executeCodeRender,
}, handle(runExecuteCode))

//go:embed execute_code.md
var executeCodeDescription string

//go:embed hermes_tools_header.py
var hermesToolsHeader string

const executeCodeName = "execute_code"

// hermes's limits (tools/code_execution_tool.py).
const (
	defaultCodeTimeout      = 300 * time.Second
	defaultCodeMaxToolCalls = 50
	maxCodeStdoutChars      = 50_000
	maxCodeStderrChars      = 10_000
)

// CodeExecutionConfig is the code_execution section of config.yaml. The
// zero value is hermes's defaults: project mode, 300 s, 50 tool calls.
type CodeExecutionConfig struct {
	// Mode is "project" (the script runs in the workspace, with its
	// .venv or venv python when it has one) or "strict" (a temp folder,
	// python3 from PATH). "" is project.
	Mode string
	// Timeout kills the script after this long (0: 300 s).
	Timeout time.Duration
	// MaxToolCalls is the number of tool calls a script may make (0: 50).
	MaxToolCalls int
	// Python is the interpreter ("": python3 on PATH).
	Python string
}

func (c CodeExecutionConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return defaultCodeTimeout
}

func (c CodeExecutionConfig) maxToolCalls() int {
	if c.MaxToolCalls > 0 {
		return c.MaxToolCalls
	}
	return defaultCodeMaxToolCalls
}

// CallToolFunc runs tool call name with args for a script of the
// execute_code call parentCallID, through the session's pipeline (the
// same hooks, approvals and display as a call of the model, shown under
// the parent call), and returns the text the model would have read: the
// tool's JSON result.
type CallToolFunc func(ctx context.Context, parentCallID, name string, args json.RawMessage) (string, error)

// ScriptApprover decides whether an execute_code script may run: the
// danger check of every command a static look finds in it, the session's
// mode and standing approvals, and when needed the user's answer to a
// permission request shown on tool call callID. The agent implements it
// over ACP; tests use fakes.
type ScriptApprover interface {
	ApproveScript(ctx context.Context, callID string, req ScriptRequest) CommandDecision
}

// ScriptRequest is a script the model wants to run.
type ScriptRequest struct {
	Code string
	// Commands are the commands it runs, in source order, as a static
	// look at the source finds them (tools/internal/pycmd).
	Commands []ScriptCommand
	// Workdir is where it runs (the workspace, or its own folder in
	// strict mode); Where names the terminal backend ("" for this
	// machine).
	Workdir, Where string
}

// ScriptCommand is one command a script runs, or may run unseen.
type ScriptCommand struct {
	Line int
	// Call is what runs it ("os.system", "subprocess.run",
	// "hermes_tools.terminal"), or what hides commands ("exec").
	Call string
	// Text is the command, readable (a part known only at run time as
	// {its source}); Check is it with such parts as one shell word, for
	// the danger check. Both "" when nothing of it is known.
	Text, Check string
	// Hidden: not written as literals; Why says what hides it.
	Hidden bool
	Why    string
	// Tool: it goes through hermes_tools.terminal, which approves it
	// again when the script calls it.
	Tool bool
}

// scriptCommands are the commands pycmd finds in code.
func scriptCommands(code string) []ScriptCommand {
	found := pycmd.Scan(code)
	out := make([]ScriptCommand, len(found))
	for i, c := range found {
		out[i] = ScriptCommand{Line: c.Line, Call: c.Call, Text: c.Text, Check: c.Check, Hidden: c.Hidden, Why: c.Why, Tool: c.Tool}
	}
	return out
}

// sandboxTools are the tools a script may call, in hermes's stub order.
var sandboxTools = []string{"patch", "read_file", "search_files", "terminal", "web_extract", "web_search", "write_file"}

// toolStub is one hermes_tools function: its signature, docstring and the
// arguments it sends (hermes's _TOOL_STUBS).
type toolStub struct{ sig, doc, args string }

var toolStubs = map[string]toolStub{
	"web_search": {"query: str, limit: int = 5",
		`"""Search the web. Returns dict with data.web list of {url, title, description}."""`,
		`{"query": query, "limit": limit}`},
	"web_extract": {"urls: list, char_limit: int = None",
		`"""Extract content from URLs (no LLM summarization). Returns dict with results list of {url, title, content, error}. Pages over char_limit (default 15000) are head+tail truncated with the full text stored on disk; the content footer gives the path. content is markdown."""`,
		`{"urls": urls, "char_limit": char_limit}`},
	"read_file": {"path: str, offset: int = 1, limit: int = 2000",
		`"""Read a file (1-indexed lines). Returns dict with "content" and "total_lines"."""`,
		`{"path": path, "offset": offset, "limit": limit}`},
	"write_file": {"path: str, content: str",
		`"""Write content to a file (always overwrites). Returns dict with status."""`,
		`{"path": path, "content": content}`},
	"search_files": {`pattern: str, target: str = "content", path: str = ".", file_glob: str = None, limit: int = 50, offset: int = 0, output_mode: str = "content", context: int = 0`,
		`"""Search file contents (target="content") or find files by name (target="files"). Returns dict with "matches"."""`,
		`{"pattern": pattern, "target": target, "path": path, "file_glob": file_glob, "limit": limit, "offset": offset, "output_mode": output_mode, "context": context}`},
	"patch": {`path: str = None, old_string: str = None, new_string: str = None, replace_all: bool = False, mode: str = "replace", patch: str = None`,
		`"""Targeted find-and-replace (mode="replace") or V4A multi-file patches (mode="patch"). Returns dict with status."""`,
		`{"path": path, "old_string": old_string, "new_string": new_string, "replace_all": replace_all, "mode": mode, "patch": patch}`},
	"terminal": {"command: str, timeout: int = None, workdir: str = None",
		`"""Run a shell command (foreground only). Returns dict with "output" and "exit_code"."""`,
		`{"command": command, "timeout": timeout, "workdir": workdir}`},
}

// hermesToolsModule is the source of hermes_tools.py for the tools
// enabled: the header (socket client and helpers) and one function each.
func hermesToolsModule(enabled []string) string {
	var b strings.Builder
	b.WriteString(hermesToolsHeader)
	for _, name := range enabled {
		st := toolStubs[name]
		fmt.Fprintf(&b, "\ndef %s(%s):\n    %s\n    return _call(%q, %s)\n", name, st.sig, st.doc, name, st.args)
	}
	return b.String()
}

// scriptTools are the sandbox tools the session enables and can run
// (web_search needs a backend).
func (s *session) scriptTools() []string {
	var out []string
	for _, n := range sandboxTools {
		if s.usable(n) {
			out = append(out, n)
		}
	}
	return out
}

type executeCodeParams struct {
	Code    any `json:"code"`
	Command any `json:"command"`
}

// executeCodeResult is the tool's answer, in hermes's key order.
type executeCodeResult struct {
	Status               string  `json:"status"`
	Output               string  `json:"output"`
	ExitCode             *int    `json:"exit_code,omitempty"`
	ToolCallsMade        int     `json:"tool_calls_made"`
	DurationSeconds      float64 `json:"duration_seconds"`
	Error                string  `json:"error,omitempty"`
	StdoutTruncated      bool    `json:"stdout_truncated,omitempty"`
	StdoutCharsTotal     int     `json:"stdout_chars_total,omitempty"`
	StderrTruncated      bool    `json:"stderr_truncated,omitempty"`
	Approval             string  `json:"approval,omitempty"`
	renderStdout, stderr string  // what Render shows
}

func codeError(msg string, calls int, dur float64) registry.Result {
	return registry.Failed(executeCodeResult{Status: "error", Error: msg, ToolCallsMade: calls, DurationSeconds: dur})
}

func runExecuteCode(ctx context.Context, s *session, call *registry.Call, p *executeCodeParams) (registry.Result, error) {
	if p.Code == nil && p.Command != nil {
		return registry.Error("execute_code received a 'command' parameter, but it requires Python source in 'code'. " +
			"Use terminal(command=...) for shell commands; for Python, retry as execute_code(code=...)."), nil
	}
	code, ok := p.Code.(string)
	if p.Code != nil && !ok {
		return registry.Error(fmt.Sprintf("execute_code received a %s in 'code', but it requires Python source as a string. "+
			"Retry as execute_code(code=\"...\").", pyTypeName(p.Code))), nil
	}
	if strings.TrimSpace(code) == "" {
		return registry.Error("No code provided. execute_code requires a non-empty 'code' parameter containing Python source. " +
			"To run shell commands, use terminal(command=...) instead."), nil
	}
	cfg := s.CodeExecution
	if s.TerminalBackend != nil {
		// Scripts run where commands run: a backend that cannot run
		// commands (an unsupported terminal.backend, an unreachable
		// host) refuses the script rather than running it here.
		if _, err := s.TerminalBackend(); err != nil {
			return codeError("Script not run: the terminal backend is unavailable: "+err.Error(), 0, 0), nil
		}
	}
	python, err := s.codePython(cfg)
	if err != nil {
		return codeError(err.Error(), 0, 0), nil
	}
	if s.Scripts == nil {
		return codeError("Scripts cannot run in this session: it has no script approval (the agent did not set one up).", 0, 0), nil
	}
	// The script is approved like a command: every command it runs is
	// danger-checked, one it hides asks, and the session's policy for
	// scripts applies (the default mode asks for each).
	d := s.Scripts.ApproveScript(ctx, call.ID, ScriptRequest{Code: code, Commands: scriptCommands(code), Workdir: s.Workspace.Cwd()})
	if !d.Allowed {
		msg := d.Message
		if msg == "" {
			msg = "Script denied: " + firstNonEmpty(d.Description, "flagged") + "."
		}
		return codeError(msg, 0, 0), nil
	}

	// The script's folder: in the session's scratch folder when commands
	// run in a sandbox (the one folder of this machine's temporary ones
	// that the sandbox shows, at the same path).
	parent := ""
	if s.sandbox != nil {
		if parent, err = s.sandbox.Scratch(); err != nil {
			return codeError("could not prepare the sandbox: "+err.Error(), 0, 0), nil
		}
	}
	dir, err := os.MkdirTemp(parent, "hermes-exec-")
	if err != nil {
		return codeError("could not create the script's folder: "+err.Error(), 0, 0), nil
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o700); err != nil {
		return codeError("could not protect the script's folder: "+err.Error(), 0, 0), nil
	}
	tools := s.scriptTools()
	script, stderrPath := filepath.Join(dir, "script.py"), filepath.Join(dir, "stderr.txt")
	if err := os.WriteFile(filepath.Join(dir, "hermes_tools.py"), []byte(hermesToolsModule(tools)), 0o600); err != nil {
		return codeError("could not write hermes_tools.py: "+err.Error(), 0, 0), nil
	}
	if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
		return codeError("could not write the script: "+err.Error(), 0, 0), nil
	}
	// The token is in no process's environment: the module reads this
	// file, and removes it, when the script imports it.
	token := randomToken()
	if err := os.WriteFile(filepath.Join(dir, tokenFile), []byte(token), 0o600); err != nil {
		return codeError("could not write the tools token: "+err.Error(), 0, 0), nil
	}
	srv, err := startRPC(ctx, filepath.Join(dir, "rpc.sock"), token, call.ID, tools, cfg.maxToolCalls(), s.CallTool)
	if err != nil {
		return codeError("could not open the tools socket: "+err.Error(), 0, 0), nil
	}
	defer srv.close()

	cwd := s.Workspace.Cwd()
	if cfg.Mode == "strict" {
		cwd = dir
	}
	env := &terminal.Local{Sandbox: s.sandbox, Environ: terminal.Environ{Base: scrubEnv(os.Environ(), dir, srv.path)}}
	command := "exec " + shellQuote(python) + " " + shellQuote(script) + " 2>" + shellQuote(stderrPath)
	timeout := cfg.timeout()
	start := time.Now()
	res, err := terminal.Run(ctx, scriptEnv{env, srv}, terminal.Spec{Command: command, Dir: cwd},
		terminal.RunOptions{Timeout: timeout, MaxChars: maxCodeStdoutChars})
	dur := math.Round(time.Since(start).Seconds()*100) / 100
	srv.close()
	calls := srv.made()
	if err != nil {
		return codeError("could not start python: "+err.Error(), calls, dur), nil
	}
	stdout := res.Output
	if res.TimedOut || res.Cancelled {
		stdout = strings.TrimSuffix(stdout, lastLine(stdout))
	}
	stdout = strings.TrimRight(stdout, "\n")
	stderr, stderrTrunc := readCapped(stderrPath, maxCodeStderrChars)
	stderr = strings.TrimRight(stderr, "\n")
	stdout = terminal.Redact(terminal.StripANSI(stdout), "")
	stderr = terminal.Redact(terminal.StripANSI(stderr), "")
	r := executeCodeResult{Status: "success", Output: stdout, ToolCallsMade: calls, DurationSeconds: dur,
		StdoutTruncated: res.Truncated, StderrTruncated: stderrTrunc, Approval: approvalNote(d),
		renderStdout: stdout, stderr: stderr}
	if res.Truncated {
		r.StdoutCharsTotal = res.TotalChars
	}
	code0 := res.Exit.Code
	switch {
	case res.TimedOut:
		r.Status = "timeout"
		r.Error = fmt.Sprintf("Script timed out after %ds and was killed.", int(timeout.Round(time.Second)/time.Second))
		r.Output = withNotice(stdout, "⏰ "+r.Error)
	case res.Cancelled:
		r.Status = "interrupted"
		r.Output = withNotice(stdout, "[execution interrupted]")
	default:
		r.ExitCode = &code0
		if code0 != 0 {
			r.Status = "error"
			r.Error = fmt.Sprintf("Script exited with code %d", code0)
			if res.Exit.Signal != "" {
				r.Error += " (" + res.Exit.Signal + ")"
			}
		}
	}
	if stderr != "" {
		r.Output += "\n--- stderr ---\n" + stderr
	}
	out := registry.Result{Value: r, IsError: r.Status != "success", Data: r}
	if r.Status != "success" && s.Terminal.Sandbox != nil && terminal.LooksRefused(stderr) {
		out.Hint = "[Hint: " + terminal.SandboxHint + "]"
	}
	return out, nil
}

// withNotice appends a line to output.
func withNotice(output, notice string) string {
	if output == "" {
		return notice
	}
	return output + "\n\n" + notice
}

// lastLine returns the last line of s.
func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// codePython is the interpreter: in project mode the workspace's
// virtualenv python when it has one, else cfg.Python or python3 on PATH.
func (s *session) codePython(cfg CodeExecutionConfig) (string, error) {
	if cfg.Mode != "strict" {
		for _, v := range []string{".venv", "venv"} {
			p := filepath.Join(s.Workspace.Cwd(), v, "bin", "python")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	name := cfg.Python
	if name == "" {
		name = "python3"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("Python 3 is not available (%s not found on PATH). Install python3 to use execute_code, or use the other tools directly.", name)
	}
	return p, nil
}

// secretWords mark a variable the script must not see (hermes's
// _SECRET_SUBSTRINGS), and safeEnvPrefixes the ones it keeps.
var (
	secretWords     = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "PASSWD", "AUTH", "DSN", "WEBHOOK", "CREDS", "BEARER", "APIKEY"}
	safeEnvPrefixes = []string{"PATH", "HOME", "USER", "LANG", "LC_", "TERM", "TMPDIR", "TMP", "TEMP", "SHELL", "LOGNAME", "XDG_", "PYTHONPATH", "VIRTUAL_ENV", "CONDA"}
	hermesEnvAllow  = []string{"HERMES_HOME", "HERMES_PROFILE", "HERMES_CONFIG", "HERMES_ENV"}
)

// scrubEnv is hermes's child environment: variables whose name holds a
// secret word are dropped; of the rest only safe prefixes and a few
// HERMES_ names stay; the socket and the module folder are added (not the
// token: any process that may read /proc/PID/environ would have it).
func scrubEnv(environ []string, dir, sock string) []string {
	var out []string
	pythonPath := dir
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(k)
		if slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(up, w) }) {
			continue
		}
		if k == "PYTHONPATH" {
			if v != "" {
				pythonPath += string(os.PathListSeparator) + v
			}
			continue
		}
		if slices.ContainsFunc(safeEnvPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) || slices.Contains(hermesEnvAllow, k) {
			out = append(out, kv)
		}
	}
	return append(out, "PYTHONPATH="+pythonPath, "HERMES_RPC_SOCKET="+sock,
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1")
}

// tokenFile is the file, beside hermes_tools.py, that holds the script's
// tools token until the module reads and removes it.
const tokenFile = ".rpc-token"

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// shellQuote quotes s for the shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readCapped reads the file at path keeping at most max characters (its
// first 40 % and last 60 %, as terminal output) and reading at most a
// few times that from the disk.
func readCapped(path string, max int) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false
	}
	limit := int64(8 * max)
	if fi.Size() <= limit {
		b, _ := io.ReadAll(f)
		out := terminal.Truncate(string(b), max)
		return out, out != string(b)
	}
	head := make([]byte, limit/2)
	n, _ := io.ReadFull(f, head)
	tail := make([]byte, limit/2)
	m, _ := f.ReadAt(tail, fi.Size()-limit/2)
	return terminal.Truncate(string(head[:n])+"\n...\n"+string(tail[:m]), max), true
}

// rpcServer serves one script's tool calls on its socket. Where the
// system says who connected (Linux), it serves only the script's own
// processes: the script and what it started, not another session's
// processes nor anything else of the same user, whatever token they
// send.
type rpcServer struct {
	path   string
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	count  atomic.Int64
	wg     sync.WaitGroup
	mu     sync.Mutex // guards conns and closed
	conns  []net.Conn
	closed bool
	once   sync.Once

	root     atomic.Int64  // the script's process, once started
	started  chan struct{} // closed when root is set (or the start failed)
	startOne sync.Once
	refused  atomic.Int64 // connections from other processes
}

// scriptEnv starts the script in env and tells srv its process.
type scriptEnv struct {
	terminal.Environment
	srv *rpcServer
}

func (e scriptEnv) Start(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	p, err := e.Environment.Start(ctx, s)
	if err == nil {
		e.srv.root.Store(int64(p.PID()))
	}
	e.srv.startOne.Do(func() { close(e.srv.started) })
	return p, err
}

// refuseMsg is the answer to a connection from outside the script.
const refuseMsg = "Refused: this socket serves only the execute_code script that it was made for (and the processes it started)."

// allowed reports whether connection c comes from the script's processes
// (always, where the system cannot say).
func (s *rpcServer) allowed(c net.Conn) bool {
	if !peerCheck {
		return true
	}
	pid, err := peerPID(c)
	if err != nil {
		return false
	}
	select {
	case <-s.started:
	case <-s.ctx.Done():
		return false
	}
	ok, err := descendantOf(pid, int(s.root.Load()))
	return err == nil && ok
}

// rpcRequest is one call of the script (hermes's wire format).
type rpcRequest struct {
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args"`
	Token string          `json:"token"`
}

// startRPC listens on path and serves each connection in its own
// goroutine until close.
func startRPC(ctx context.Context, path, token, parent string, allowed []string, max int, callTool CallToolFunc) (*rpcServer, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &rpcServer{path: path, ln: ln, ctx: ctx, cancel: cancel, started: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				_ = c.Close()
				return
			}
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c, token, parent, allowed, max, callTool)
			}()
		}
	}()
	return s, nil
}

// serve answers the requests of one connection, one line each; a
// connection from outside the script gets one refusal and is closed.
func (s *rpcServer) serve(c net.Conn, token, parent string, allowed []string, max int, callTool CallToolFunc) {
	defer c.Close()
	if !s.allowed(c) {
		s.refused.Add(1)
		b, _ := json.Marshal(errJSON(refuseMsg))
		_, _ = c.Write(append(b, '\n'))
		return
	}
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		answer := s.answer(line, token, parent, allowed, max, callTool)
		b, _ := json.Marshal(answer)
		if _, err := c.Write(append(b, '\n')); err != nil {
			return
		}
	}
}

// answer runs one request and returns the JSON text the stub decodes.
func (s *rpcServer) answer(line []byte, token, parent string, allowed []string, max int, callTool CallToolFunc) string {
	var req rpcRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return errJSON("Invalid RPC request: " + err.Error())
	}
	if req.Token != token {
		return errJSON("Invalid RPC token")
	}
	if !slices.Contains(allowed, req.Tool) {
		return errJSON(fmt.Sprintf("Tool '%s' is not available in execute_code. Available: %s", req.Tool, strings.Join(allowed, ", ")))
	}
	if n := s.count.Add(1); n > int64(max) {
		s.count.Add(-1)
		return errJSON(fmt.Sprintf("Tool call limit reached (%d). No more tool calls allowed in this execution.", max))
	}
	if callTool == nil {
		return errJSON("Tool calls from scripts are not available in this session.")
	}
	args, err := scriptArgs(req.Tool, req.Args)
	if err != nil {
		return errJSON("Invalid arguments: " + err.Error())
	}
	out, err := callTool(s.ctx, parent, req.Tool, args)
	if err != nil {
		return errJSON(fmt.Sprintf("Tool execution failed: %v", err))
	}
	return out
}

// scriptArgs drops the arguments a stub sends as None (the tool's default
// then applies) and, for terminal, anything that would leave the
// foreground (hermes's blocked terminal parameters).
func scriptArgs(tool string, raw json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
	}
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	if tool == terminalName {
		for _, k := range []string{"background", "pty", "notify_on_complete"} {
			delete(m, k)
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	return json.Marshal(m)
}

func errJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// made returns the number of tool calls served.
func (s *rpcServer) made() int { return int(s.count.Load()) }

// close stops listening, ends the running calls and the connections, and
// waits for the goroutines.
func (s *rpcServer) close() {
	s.once.Do(func() {
		s.cancel()
		_ = s.ln.Close()
		s.mu.Lock()
		s.closed = true
		for _, c := range s.conns {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
}

// executeCodeTitle is hermes's "python: <first non-blank line>" (70
// characters).
func executeCodeTitle(args map[string]any) string {
	for _, l := range strings.Split(strArg(args, "code"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 70 {
				l = string(r[:67]) + "..."
			}
			return "python: " + l
		}
	}
	return executeCodeName
}

// executeCodePreview is the code in a python fence (1 200 characters).
func executeCodePreview(args map[string]any) string {
	code := strArg(args, "code")
	if code == "" {
		return ""
	}
	code = clipRunes(code, 1200)
	f := fence(code)
	return f + "python\n" + code + "\n" + f
}

// executeCodeRender shows what the script printed and how it ended.
func executeCodeRender(_ map[string]any, r registry.Result) string {
	v, ok := r.Data.(executeCodeResult)
	if !ok {
		return ""
	}
	var b strings.Builder
	if v.renderStdout != "" {
		out := clipRunes(v.renderStdout, renderOutputChars)
		f := fence(out)
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", f, out, f)
	}
	if v.stderr != "" {
		e := clipRunes(v.stderr, 1000)
		f := fence(e)
		fmt.Fprintf(&b, "stderr:\n%s\n%s\n%s\n\n", f, e, f)
	}
	fmt.Fprintf(&b, "%s · %d tool call%s · %.2fs", v.Status, v.ToolCallsMade, map[bool]string{true: "", false: "s"}[v.ToolCallsMade == 1], v.DurationSeconds)
	if v.Error != "" {
		b.WriteString(" · " + v.Error)
	}
	return b.String()
}
