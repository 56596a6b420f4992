package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "embed"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/tools/internal/pycmd"
)

// execute_code runs a Python script that calls the session's tools, as
// hermes-agent's tool of the same name does: the script imports a
// generated hermes_tools module whose functions send each call over a
// private Unix socket back here, where the session's CallTool runs it through the
// session's pipeline like a call of the model (workspace rules, file
// safety, edit approval, lint). The script runs like a terminal command:
// approved first, in its own process group, under the terminal's sandbox,
// with an environment scrubbed of secrets, killed whole at the timeout or
// on cancel.
var _ = declare(registry.Tool[executeCodeDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           executeCodeName,
		Toolset:        "code_execution",
		Emoji:          "🐍",
		Description:    executeCodeDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindExecute,
		ChangesFiles:   true, // checkpointed first (issue 29)
		Title:          executeCodeTitle,
		Preview:        executeCodePreview,
		Render:         executeCodeRender,
	}, Params: executeCodeParams{}},
	New: func(d executeCodeDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *executeCodeParams) (registry.Result, error) {
			return runExecuteCode(ctx, d, call, p)
		})
	},
})

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
	// Confines says which sandbox grants mean something where it runs
	// (as CommandRequest's).
	Confines Confines
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
	"terminal": {"command: str, timeout: int = None, workdir: str = None, network: bool = None, credentials: bool = None",
		`"""Run a shell command (foreground only). network=True / credentials=True ask the user to run it with the network / your credentials. Returns dict with "output" and "exit_code"."""`,
		`{"command": command, "timeout": timeout, "workdir": workdir, "network": network, "credentials": credentials}`},
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
func scriptTools(d executeCodeDeps) []string {
	var out []string
	for _, n := range sandboxTools {
		if d.Usable(n) {
			out = append(out, n)
		}
	}
	return out
}

type executeCodeParams struct {
	Code any "json:\"code\" schema:\"required,type=string\" desc:\"Python code to execute. Import tools with `from hermes_tools import ...` (the functions listed above) and print your final result to stdout.\""
	// Command is not offered: a model that sends it is told to use code.
	Command any `json:"command" schema:"-"`
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
	Grants               string  `json:"grants,omitempty"`
	renderStdout, stderr string  // what Render shows
	where                string  // the terminal backend it ran on, "" here
}

func codeError(msg string, calls int, dur float64) registry.Result {
	return registry.Failed(executeCodeResult{Status: "error", Error: msg, ToolCallsMade: calls, DurationSeconds: dur})
}

func runExecuteCode(ctx context.Context, s executeCodeDeps, call *registry.Call, p *executeCodeParams) (registry.Result, error) {
	if p.Code == nil && p.Command != nil {
		return registry.Error("execute_code received a 'command' parameter, but it requires Python source in 'code'. " +
			"Use terminal(command=...) for shell commands; for Python, retry as execute_code(code=...)."), nil
	}
	code, ok := p.Code.(string)
	if p.Code != nil && !ok {
		return registry.Error(fmt.Sprintf("execute_code received a %s in 'code', but it requires Python source as a string. "+
			"Retry as execute_code(code=\"...\").", pyfmt.TypeName(p.Code))), nil
	}
	if strings.TrimSpace(code) == "" {
		return registry.Error("No code provided. execute_code requires a non-empty 'code' parameter containing Python source. " +
			"To run shell commands, use terminal(command=...) instead."), nil
	}
	cfg := s.CodeExecution()
	// Scripts run where commands run: on the session's terminal backend
	// when it has one; a backend that cannot run commands (an
	// unsupported terminal.backend, an unreachable host) refuses the
	// script rather than running it here.
	backend, err := s.Backend()
	if err != nil {
		return codeError("Script not run: the terminal backend is unavailable: "+err.Error(), 0, 0), nil
	}
	var python string
	if backend == nil {
		var err error
		if python, err = codePython(s.Workspace().Cwd(), cfg); err != nil {
			return codeError(err.Error(), 0, 0), nil
		}
	}
	scripts := s.Scripts()
	if scripts == nil {
		return codeError("Scripts cannot run in this session: it has no script approval (the agent did not set one up).", 0, 0), nil
	}
	// The script is approved like a command: every command it runs is
	// danger-checked, one it hides asks, and the session's policy for
	// scripts applies (the default mode asks for each).
	d := scripts.ApproveScript(ctx, call.ID, ScriptRequest{Code: code, Commands: scriptCommands(code), Workdir: s.Workspace().Cwd(), Where: describe(backend), Confines: confines(s, backend)})
	if !d.Allowed {
		msg := d.Message
		if msg == "" {
			msg = "Script denied: " + firstNonEmpty(d.Description, "flagged") + "."
		}
		return codeError(msg, 0, 0), nil
	}

	job := scriptJob{code: code, tools: scriptTools(s), token: randomToken(), parent: call.ID, timeout: cfg.timeout()}
	start := time.Now()
	var run scriptRun
	if backend != nil {
		run, err = runRemoteScript(ctx, s, backend, job)
	} else {
		run, err = runLocalScript(ctx, s, python, job, d)
	}
	dur := math.Round(time.Since(start).Seconds()*100) / 100
	if err != nil {
		return codeError(err.Error(), run.calls, dur), nil
	}
	res := run.res
	stdout := res.Output
	if res.TimedOut || res.Cancelled {
		stdout = strings.TrimSuffix(stdout, lastLine(stdout))
	}
	stdout = strings.TrimRight(stdout, "\n")
	stderr := strings.TrimRight(run.stderr, "\n")
	stdout = terminal.Redact(terminal.StripANSI(stdout), "")
	stderr = terminal.Redact(terminal.StripANSI(stderr), "")
	r := executeCodeResult{Status: "success", Output: stdout, ToolCallsMade: run.calls, DurationSeconds: dur,
		StdoutTruncated: res.Truncated, StderrTruncated: run.stderrTruncated, Approval: approvalNote(d), Grants: grantsNote(d, backend, false),
		renderStdout: stdout, stderr: stderr, where: describe(backend)}
	if res.Truncated {
		r.StdoutCharsTotal = res.TotalChars
	}
	code0 := res.Exit.Code
	switch {
	case res.TimedOut:
		r.Status = "timeout"
		r.Error = fmt.Sprintf("Script timed out after %ds and was killed.", int(job.timeout.Round(time.Second)/time.Second))
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
	if r.Status != "success" && backend == nil && s.TerminalSettings().Sandbox != nil {
		switch {
		case terminal.LooksRefused(stderr):
			out.Hint = "[Hint: " + terminal.SandboxHint + "]"
		case !d.Network && terminal.LooksOffline(stdout+"\n"+stderr):
			out.Hint = "[Hint: " + scriptNetworkHint + "]"
		}
	}
	return out, nil
}

// scriptNetworkHint is added to the result of a failed script that ran
// without the network and whose output looks like it needed it.
const scriptNetworkHint = "Scripts run in a sandbox without network (only the session's own loopback), and so do the commands they start, " +
	"unless the user allowed the network for the commands the script visibly runs (npm install, git fetch …). " +
	"For a command that needs the network, call hermes_tools.terminal(command, network=True): the user is asked to allow it."

// scriptJob is a script to run: its code, the tools its module offers,
// its token, its execute_code call and its timeout.
type scriptJob struct {
	code, token, parent string
	tools               []string
	timeout             time.Duration
}

// scriptRun is how a script ended: its stdout (with the runner's end),
// its stderr and the tool calls it made.
type scriptRun struct {
	res             terminal.Result
	stderr          string
	stderrTruncated bool
	calls           int
}

// runLocalScript runs job on this machine with python, under the
// terminal's sandbox: the script's folder (module, script, token file,
// socket) is private to the user, and the socket serves only the script's
// processes.
func runLocalScript(ctx context.Context, s executeCodeDeps, python string, job scriptJob, d CommandDecision) (scriptRun, error) {
	// The script's folder: in the session's scratch folder when commands
	// run in a sandbox (the one folder of this machine's temporary ones
	// that the sandbox shows, at the same path).
	parent := ""
	sandbox := s.Sandbox()
	if sandbox != nil {
		var err error
		if parent, err = sandbox.Scratch(); err != nil {
			return scriptRun{}, fmt.Errorf("could not prepare the sandbox: %w", err)
		}
	}
	dir, err := os.MkdirTemp(parent, "hermes-exec-")
	if err != nil {
		return scriptRun{}, fmt.Errorf("could not create the script's folder: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o700); err != nil {
		return scriptRun{}, fmt.Errorf("could not protect the script's folder: %w", err)
	}
	script, stderrPath := filepath.Join(dir, "script.py"), filepath.Join(dir, "stderr.txt")
	for name, text := range scriptFiles(job) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return scriptRun{}, fmt.Errorf("could not write %s: %w", name, err)
		}
	}
	cfg := s.CodeExecution()
	srv, err := startRPC(ctx, filepath.Join(dir, "rpc.sock"), job.token, job.parent, job.tools, cfg.maxToolCalls(), s.CallTool())
	if err != nil {
		return scriptRun{}, fmt.Errorf("could not open the tools socket: %w", err)
	}
	defer srv.close()

	cwd := s.Workspace().Cwd()
	if cfg.Mode == "strict" {
		cwd = dir
	}
	env := &terminal.Local{Sandbox: sandbox, Environ: scriptEnviron(s.TerminalSettings().Environ, dir, srv.path)}
	command := "exec " + shellQuote(python) + " " + shellQuote(script) + " 2>" + shellQuote(stderrPath)
	res, err := terminal.Run(ctx, scriptEnv{env, srv.set}, terminal.Spec{Command: command, Dir: cwd, Network: d.Network, Credentials: d.Credentials},
		terminal.RunOptions{Timeout: job.timeout, MaxChars: maxCodeStdoutChars})
	srv.close()
	run := scriptRun{res: res, calls: srv.made()}
	if err != nil {
		return run, fmt.Errorf("could not start python: %w", err)
	}
	run.stderr, run.stderrTruncated = readCapped(stderrPath, maxCodeStderrChars)
	return run, nil
}

// scriptFiles are the files of a script's folder: the module, the script
// and the token file. The token is in no process's environment: the module
// reads the file, and removes it, when the script imports it.
func scriptFiles(job scriptJob) map[string]string {
	return map[string]string{"hermes_tools.py": hermesToolsModule(job.tools), "script.py": job.code, tokenFile: job.token}
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

// codePython is the interpreter: in project mode the virtualenv python
// of the workspace folder cwd when it has one, else cfg.Python or python3
// on PATH.
func codePython(cwd string, cfg CodeExecutionConfig) (string, error) {
	if cfg.Mode != "strict" {
		for _, v := range []string{".venv", "venv"} {
			p := filepath.Join(cwd, v, "bin", "python")
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

// scriptEnviron builds a script's environment from the commands' builder
// cmd: hermes's child environment (scrubEnv) as the base, then the
// commands' rules over it (hermes-agent's secret list, the variables the
// configuration reads keys from); terminal.env_passthrough keeps its
// variables for scripts as for commands.
func scriptEnviron(cmd terminal.Environ, dir, sock string) terminal.Environ {
	base := cmd.Base
	if base == nil {
		base = os.Environ()
	}
	cmd.Base = scrubEnv(base, dir, sock, cmd.Passthrough)
	return cmd
}

// scrubEnv is hermes's child environment: variables named in passthrough
// stay; of the others, those whose name holds a secret word are dropped,
// and of the rest only safe prefixes and a few HERMES_ names stay; the
// socket and the module folder are added (not the token: any process that
// may read /proc/PID/environ would have it).
func scrubEnv(environ []string, dir, sock string, passthrough []string) []string {
	var out []string
	pythonPath := dir
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(k)
		if k != "PYTHONPATH" && slices.ContainsFunc(passthrough, func(p string) bool { return strings.EqualFold(p, k) }) {
			out = append(out, kv)
			continue
		}
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
	if v.where != "" {
		fmt.Fprintf(&b, "Ran in %s\n\n", v.where)
	}
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

// executeCodeDeps is what execute_code uses of its session: where
// commands run (a script runs like one), the code_execution settings, the
// approval of scripts, the session's pipeline that runs the scripts' tool
// calls, and which of the tools a script may call the session can run.
type executeCodeDeps interface {
	commandDeps
	// CodeExecution is the code_execution section of config.yaml.
	CodeExecution() CodeExecutionConfig
	// Scripts approves scripts; nil refuses every script.
	Scripts() ScriptApprover
	// CallTool runs a script's tool call through the session's pipeline;
	// nil: scripts cannot call tools.
	CallTool() CallToolFunc
	// Usable reports whether the session offers tool and can run it (its
	// availability rule passes): the scripts' module and execute_code's
	// description name only those.
	Usable(tool string) bool
}
