package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// terminal runs a shell command, as hermes-agent's tool of the same name
// does: foreground with a timeout (in an editor terminal when the editor
// has them, else here with the output streamed to the editor), or in the
// background (see process). Every command is approved first (the
// dangerous-command check), runs in its own process group that a timeout
// or a cancel kills whole, and its output reaches the model capped (40 %
// head, 60 % tail), without ANSI sequences and with secrets redacted.
var _ = declare(registry.Tool[terminalDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           terminalName,
		Toolset:        "terminal",
		Emoji:          "💻",
		Description:    terminalDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindExecute,
		ChangesFiles:   true,      // checkpointed first (issue 29)
		CommandArg:     "command", // plan mode runs the read-only commands
		Title:          terminalTitle,
		Preview:        terminalPreview,
		Render:         terminalRender,
	}, Params: terminalParams{}},
	New: func(d terminalDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *terminalParams) (registry.Result, error) {
			return runTerminal(ctx, d, call, p)
		})
	},
})

//go:embed terminal.md
var terminalDescription string

// terminalName is the tool's name, for other tools' hints.
const terminalName = "terminal"

// TerminalConfig is the terminal and process tools' settings. The zero
// value is hermes's defaults without a sandbox.
type TerminalConfig struct {
	// DefaultTimeout is terminal.timeout: a foreground command's timeout
	// when the call gives none, and process wait's longest wait
	// (0: 180 s).
	DefaultTimeout time.Duration
	// MaxForegroundTimeout is terminal.max_foreground_timeout: a longer
	// foreground timeout is refused (0: 600 s).
	MaxForegroundTimeout time.Duration
	// MaxOutputChars is tool_output.max_bytes: the characters of output a
	// result keeps (0: 50 000).
	MaxOutputChars int
	// Sandbox, when set, runs every command on this machine in it: each
	// session in its own (terminal.sandbox; Unconfined when off).
	Sandbox *terminal.Sandbox
	// Environ builds the environment of commands run on this machine:
	// the agent's secrets removed (terminal.env_passthrough keeps some).
	Environ terminal.Environ
}

func (c TerminalConfig) defaultTimeout() time.Duration {
	if c.DefaultTimeout > 0 {
		return c.DefaultTimeout
	}
	return 180 * time.Second
}

func (c TerminalConfig) maxForeground() time.Duration {
	if c.MaxForegroundTimeout > 0 {
		return c.MaxForegroundTimeout
	}
	return 600 * time.Second
}

func (c TerminalConfig) maxChars() int {
	if c.MaxOutputChars > 0 {
		return c.MaxOutputChars
	}
	return terminal.DefaultMaxChars
}

// terminalParams are terminal's arguments. Command is any: hermes answers
// a command of another type with its own error.
type terminalParams struct {
	Command          any    `json:"command" schema:"required,type=string" desc:"The command to execute on the VM"`
	Background       bool   `json:"background" schema:"default=false" desc:"Run the command in the background. Two legitimate patterns: (1) Long-lived processes that never exit (servers, watchers, daemons). (2) Long-running bounded tasks (tests, builds, deploys, CI pollers, batch jobs); you are told when the process exits. For short commands, prefer foreground with a generous timeout instead."`
	Timeout          *int   `json:"timeout" schema:"minimum=1" desc:"Max seconds to wait (default: 180, foreground max: 600). Returns INSTANTLY when command finishes — set high for long tasks, you won't wait unnecessarily. Foreground timeout above 600s is rejected; use background=true for longer commands."`
	Workdir          string `json:"workdir" desc:"Working directory for this command (absolute path, or relative to the workspace root; inside the workspace). Defaults to the workspace root."`
	PTY              bool   `json:"pty" schema:"default=false" desc:"Run in pseudo-terminal (PTY) mode for interactive CLI tools like Codex, Claude Code, or Python REPL. Default: false."`
	NotifyOnComplete bool   `json:"notify_on_complete" schema:"default=false" desc:"When true (and background=true), you'll be notified when the process finishes. Background processes that exit by themselves are always announced; this flag is kept for compatibility."`
	Network          bool   `json:"network" schema:"default=false" desc:"Run with network access. Commands run in a sandbox without network (only a loopback of this session's own, shared by its commands); set true for installs, downloads, git fetch/push and the like — the user is asked. With it the command uses the machine's network and loopback instead. Default: false."`
	Credentials      bool   `json:"credentials" schema:"default=false" desc:"Run with the user's credential folders visible (~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc …), which the sandbox hides; set true for git push over SSH, cloud CLIs and the like — the user is asked. Default: false."`
}

// terminalResult is terminal's answer for a command that ran (or was
// refused before running), in hermes's key order.
type terminalResult struct {
	Output          string `json:"output"`
	ExitCode        int    `json:"exit_code"`
	Error           any    `json:"error"` // null when the command ran
	Status          string `json:"status,omitempty"`
	Approval        string `json:"approval,omitempty"`
	ExitCodeMeaning string `json:"exit_code_meaning,omitempty"`
	PTYNote         string `json:"pty_note,omitempty"`
	// Sandbox, in the session's first command result, says that the
	// sandbox is weaker than the namespace sandbox, and why.
	Sandbox string `json:"sandbox,omitempty"`
	// Grants says what the command ran with beyond the sandbox's defaults
	// (the network, credentials), or why not what it asked for.
	Grants string `json:"grants,omitempty"`
}

// terminalBackgroundResult is terminal's answer for a background start.
type terminalBackgroundResult struct {
	Output           string `json:"output"`
	SessionID        string `json:"session_id"`
	PID              int    `json:"pid"`
	ExitCode         int    `json:"exit_code"`
	Error            any    `json:"error"`
	Approval         string `json:"approval,omitempty"`
	PTYNote          string `json:"pty_note,omitempty"`
	NotifyOnComplete bool   `json:"notify_on_complete,omitempty"`
	Sandbox          string `json:"sandbox,omitempty"`
	Grants           string `json:"grants,omitempty"`
}

// terminalRenderData is what Render shows of a foreground command.
type terminalRenderData struct {
	Output   string
	ExitCode int
	Sandbox  string // the session's first result: a weaker sandbox
	Backend  string // where it ran when not here (issue 18), else ""
}

// refused is hermes's shape for a command that did not run.
func refused(status, msg string) registry.Result {
	return registry.Failed(terminalResult{Output: "", ExitCode: -1, Error: msg, Status: status})
}

func runTerminal(ctx context.Context, s terminalDeps, call *registry.Call, p *terminalParams) (registry.Result, error) {
	command, ok := p.Command.(string)
	if !ok {
		return refused("error", fmt.Sprintf("Invalid command: expected string, got %s", pyfmt.TypeName(p.Command))), nil
	}
	cfg := s.TerminalSettings()
	timeout := cfg.defaultTimeout()
	if p.Timeout != nil && *p.Timeout > 0 {
		timeout = time.Duration(*p.Timeout) * time.Second
		if !p.Background && timeout > cfg.maxForeground() {
			return registry.Error(fmt.Sprintf("Foreground timeout %ds exceeds the maximum of %ds. "+
				"Use background=true with notify_on_complete=true for long-running commands.",
				*p.Timeout, int(cfg.maxForeground()/time.Second))), nil
		}
	}
	if !p.Background {
		if g := terminal.LongLivedGuidance(command); g != "" {
			return refused("error", g), nil
		}
	}
	if msg := terminal.CheckWorkdir(p.Workdir); msg != "" {
		return refused("blocked", msg), nil
	}
	dir, msg := commandDir(s.Workspace(), p.Workdir)
	if msg != "" {
		return refused("blocked", msg), nil
	}
	commands := s.Commands()
	if commands == nil {
		return refused("blocked", "Commands cannot run in this session: it has no command approval (the agent did not set one up)."), nil
	}
	env, backend, msg := terminalEnv(s, p.Background)
	if msg != "" {
		return refused("error", msg), nil
	}
	d := commands.ApproveCommand(ctx, call.ID, CommandRequest{Command: command, Workdir: dir, Background: p.Background,
		Network: p.Network, Credentials: p.Credentials, Confines: confines(s, backend)})
	if !d.Allowed {
		msg := d.Message
		if msg == "" {
			msg = "Command denied: " + firstNonEmpty(d.Description, "command flagged") + ". Use the approval prompt to allow it, or rephrase the command."
		}
		return refused("blocked", msg), nil
	}
	approval := approvalNote(d)
	pty, ptyNote := p.PTY, ""
	if pty && terminal.NeedsPipedStdin(command) {
		pty, ptyNote = false, terminal.PTYDisabledNote
	}
	grants := grantsNote(d, backend, p.Network || p.Credentials)
	if p.Background {
		b, err := s.Processes().Start(context.WithoutCancel(ctx), env, terminal.Spec{Command: command, Dir: dir, PTY: pty, Stdin: true,
			Network: d.Network, Credentials: d.Credentials}, p.NotifyOnComplete)
		if err != nil {
			return registry.Failed(terminalResult{Output: "", ExitCode: -1, Error: "Failed to start background process: " + err.Error()}), nil
		}
		note := sandboxNote(s, backend)
		return registry.Result{Value: terminalBackgroundResult{
			Output: "Background process started" + backendNote(backend), SessionID: b.ID, PID: b.PID, ExitCode: 0,
			Approval: approval, PTYNote: ptyNote, NotifyOnComplete: p.NotifyOnComplete, Sandbox: note, Grants: grants,
		}, Data: terminalRenderData{Backend: describe(backend), Sandbox: note}}, nil
	}

	var output string
	var code int
	spec := terminal.Spec{Command: command, Dir: dir, PTY: pty, Network: d.Network, Credentials: d.Credentials}
	var editorArgv []string
	release := func() {}
	terminals := s.EditorTerminals()
	if local, ok := env.(*terminal.Local); ok && terminals != nil && !pty {
		argv, rel, err := local.EditorArgv(spec)
		switch {
		case err == nil:
			editorArgv, release = argv, rel
		case errors.Is(err, terminal.ErrNoHelper):
			// Run it here instead, streamed.
		default:
			return registry.Failed(terminalResult{Output: "", ExitCode: -1, Error: fmt.Sprintf("Command execution failed: %v", err)}), nil
		}
	}
	if editorArgv != nil {
		out, err := terminals.Run(ctx, call.ID, TerminalCommand{
			Argv: editorArgv, Dir: dir, OutputByteLimit: 4 * cfg.maxChars(), Timeout: timeout,
		})
		release()
		if err != nil {
			return registry.Failed(terminalResult{Output: "", ExitCode: -1, Error: fmt.Sprintf("Command execution failed: %v", err)}), nil
		}
		code = editorExitCode(out)
		output, code = terminal.Interrupted(terminal.Truncate(out.Output, cfg.maxChars()), code, out.TimedOut, out.Cancelled, timeout)
	} else {
		var sink func([]byte)
		if output := s.CommandOutput(); output != nil {
			sink = func(chunk []byte) { output.Output(call.ID, chunk) }
		}
		res, err := terminal.Run(ctx, env, spec, terminal.RunOptions{Timeout: timeout, MaxChars: cfg.maxChars(), Sink: sink})
		if err != nil {
			return registry.Failed(terminalResult{Output: "", ExitCode: -1, Error: fmt.Sprintf("Command execution failed%s: %v", backendNote(backend), err)}), nil
		}
		output, code = res.Output, res.ExitCode
	}
	output = terminal.Redact(strings.TrimSpace(terminal.StripANSI(output)), command)
	meaning := terminal.ExitMeaning(command, code)
	note := sandboxNote(s, backend)
	r := terminalResult{Output: output, ExitCode: code, Approval: approval, ExitCodeMeaning: meaning, PTYNote: ptyNote, Sandbox: note, Grants: grants}
	res := registry.Result{Value: r, IsError: code != 0 && !strings.Contains(meaning, "not an error"),
		Data: terminalRenderData{Output: output, ExitCode: code, Backend: describe(backend), Sandbox: note}}
	if code != 0 && cfg.Sandbox != nil && backend == nil {
		res.Hint = sandboxHint(output, d)
	}
	return res, nil
}

// sandboxHint is the hint of a failed command run in the sandbox whose
// output looks like the sandbox refused it something: the network or the
// credentials it ran without (retry asking for them), or a write.
func sandboxHint(output string, d CommandDecision) string {
	switch {
	case !d.Network && terminal.LooksOffline(output):
		return "[Hint: " + terminal.NetworkHint + "]"
	case !d.Credentials && terminal.LooksUnauthenticated(output):
		return "[Hint: " + terminal.CredentialsHint + "]"
	case terminal.LooksRefused(output):
		return "[Hint: " + terminal.SandboxHint + "]"
	}
	return ""
}

// grantsNote tells the model what a command ran with beyond the sandbox's
// defaults on this machine when it asked (wanted) or the user was asked,
// or why not what it asked for.
func grantsNote(d CommandDecision, backend TerminalBackend, wanted bool) string {
	if backend != nil || (!wanted && !d.Asked && d.GrantNote == "") {
		return ""
	}
	var with []string
	if d.Network {
		with = append(with, "the network")
	}
	if d.Credentials {
		with = append(with, "the credentials")
	}
	note := ""
	if len(with) > 0 {
		note = "Ran with " + strings.Join(with, " and ")
		if d.Asked {
			note += " (allowed by the user)"
		}
		note += "."
	}
	if d.GrantNote != "" {
		note = strings.TrimSpace(note + " " + d.GrantNote)
	}
	return note
}

// approvalNote is hermes's approval field for a command that needed one.
func approvalNote(d CommandDecision) string {
	if d.Approval == "" {
		return ""
	}
	desc := firstNonEmpty(d.Description, "flagged as dangerous")
	switch d.Approval {
	case "once", "session", "always":
		return fmt.Sprintf("Command required approval (%s) and was approved by the user.", desc)
	default:
		return fmt.Sprintf("Command was flagged (%s) and auto-approved (%s).", desc, d.Approval)
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// editorExitCode is an editor terminal's exit code, or 128 + the signal
// number (as shells report it) when a signal ended the command.
func editorExitCode(o TerminalOutcome) int {
	if o.ExitCode != nil {
		return *o.ExitCode
	}
	signals := map[string]int{"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGABRT": 6, "SIGKILL": 9, "SIGSEGV": 11, "SIGPIPE": 13, "SIGTERM": 15}
	if n, ok := signals[strings.ToUpper(o.Signal)]; ok {
		return 128 + n
	}
	return -1
}

// commandDir resolves workdir inside the workspace ws (the first root when
// empty); msg says why it cannot be used.
func commandDir(ws *workspace.Workspace, workdir string) (dir, msg string) {
	if strings.TrimSpace(workdir) == "" {
		return ws.Cwd(), ""
	}
	p, err := ws.Resolve(workdir)
	if err != nil {
		if errors.Is(err, workspace.ErrOutsideWorkspace) {
			return "", fmt.Sprintf("Blocked: workdir %s is outside the workspace (%s); commands run only inside it.",
				workdir, strings.Join(ws.Roots(), ", "))
		}
		return "", "Blocked: workdir: " + err.Error()
	}
	fi, err := os.Stat(p.Abs())
	if err != nil {
		return "", fmt.Sprintf("workdir %s does not exist; create it first or give an existing directory inside the workspace.", workdir)
	}
	if !fi.IsDir() {
		return "", fmt.Sprintf("workdir %s is not a directory.", workdir)
	}
	return p.Abs(), ""
}

// localEnv is the session's environment for commands run here (and the
// argv of editor terminals). Background processes get a shorter grace
// between SIGTERM and SIGKILL: they are all killed when the agent exits,
// which waits less than a second.
func localEnv(d commandDeps, background bool) *terminal.Local {
	l := &terminal.Local{Sandbox: d.Sandbox(), Environ: d.TerminalSettings().Environ}
	if background {
		l.KillGrace = backgroundKillGrace
	}
	return l
}

// terminal backends (issue 18)

// terminalEnv is the environment the next command runs in: the session's
// backend when it has one, else this machine. msg says why the backend
// cannot run it.
func terminalEnv(d commandDeps, background bool) (env terminal.Environment, backend TerminalBackend, msg string) {
	b, err := d.Backend()
	if err != nil {
		return nil, nil, fmt.Sprintf("Command not run: the terminal backend is unavailable: %v", err)
	}
	if b != nil {
		return b, b, ""
	}
	return localEnv(d, background), nil, ""
}

// sandboxNote is, for the session's first command run here, what the
// model and the user must know of a sandbox weaker than the namespace one.
func sandboxNote(d commandDeps, backend TerminalBackend) string {
	sb := d.Sandbox()
	if backend != nil || sb == nil {
		return ""
	}
	return sb.Note()
}

// confines says what the sandbox withholds from a command that runs on
// backend (nil: this machine) unless the user grants it: nothing on a
// Docker or SSH backend or with the sandbox off; the network in every
// sandbox here; the credentials where the sandbox hides them (not under
// Landlock alone).
func confines(d commandDeps, backend TerminalBackend) Confines {
	sb := d.Sandbox()
	if backend != nil || sb == nil {
		return Confines{}
	}
	switch sb.Confinement().Kind {
	case terminal.KindNamespaces, terminal.KindSeatbelt:
		return Confines{Network: true, Credentials: true}
	case terminal.KindLandlock:
		return Confines{Network: true}
	}
	return Confines{}
}

// backendNote is " in <where>" for a command run by a backend, else "".
func backendNote(b TerminalBackend) string {
	if b == nil {
		return ""
	}
	return " in " + b.Describe()
}

func describe(b TerminalBackend) string {
	if b == nil {
		return ""
	}
	return b.Describe()
}

// backgroundKillGrace is the time a killed background process has
// between SIGTERM and SIGKILL.
const backgroundKillGrace = 400 * time.Millisecond

// processExitMessage is what the user and the model are told when a
// background process ended by itself, in hermes's words, with the end of
// its output.
func processExitMessage(snap terminal.Snapshot) string {
	status := "exited"
	if snap.Exit.Code == 0 {
		status = "completed normally"
	}
	sig := ""
	if snap.Exit.Code == 128+15 {
		sig = ", SIGTERM"
	}
	out := terminal.Redact(terminal.StripANSI(tailChars(snap.Output, processCompletionChars)), snap.Command)
	return fmt.Sprintf("[IMPORTANT: Background process %s %s (exit code %d%s).\nCommand: %s\nOutput:\n%s]",
		snap.ID, status, snap.Exit.Code, sig, terminal.Redact(snap.Command, ""), out)
}

// tailChars returns the last n characters of s.
func tailChars(s string, n int) string {
	count := 0
	for i := len(s); i > 0; {
		_, size := lastRune(s[:i])
		i -= size
		count++
		if count == n {
			return s[i:]
		}
	}
	return s
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		if s[i]&0xC0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, 1
}

// terminalTitle is hermes's "terminal: <command>", the command cut to 80
// characters.
func terminalTitle(args map[string]any) string {
	cmd := strings.Join(strings.Fields(strArg(args, "command")), " ")
	if cmd == "" {
		return terminalName
	}
	if r := []rune(cmd); len(r) > 80 {
		cmd = string(r[:77]) + "..."
	}
	return "terminal: " + cmd
}

// terminalPreview is hermes's "$ <command>".
func terminalPreview(args map[string]any) string {
	if cmd := strArg(args, "command"); cmd != "" {
		return "$ " + cmd
	}
	return ""
}

// terminalRender shows a foreground command's output in a fence and its
// exit code; a background start says which process it is.
func terminalRender(args map[string]any, r registry.Result) string {
	switch v := r.Value.(type) {
	case terminalBackgroundResult:
		data, _ := r.Data.(terminalRenderData)
		warn := ""
		if data.Sandbox != "" {
			warn = "⚠️ " + data.Sandbox + "\n\n"
		}
		if data.Backend != "" {
			return fmt.Sprintf("%sBackground process `%s` started in %s", warn, v.SessionID, data.Backend)
		}
		return fmt.Sprintf("%sBackground process `%s` started (pid %d)", warn, v.SessionID, v.PID)
	case terminalResult:
		data, _ := r.Data.(terminalRenderData)
		var b strings.Builder
		if data.Sandbox != "" {
			fmt.Fprintf(&b, "⚠️ %s\n\n", data.Sandbox)
		}
		if data.Backend != "" {
			fmt.Fprintf(&b, "Ran in %s\n\n", data.Backend)
		}
		if cmd := strArg(args, "command"); cmd != "" {
			f := fence(cmd)
			fmt.Fprintf(&b, "%s\n$ %s\n%s\n\n", f, cmd, f)
		}
		if data.Output != "" {
			out := clipRunes(data.Output, renderOutputChars)
			f := fence(out)
			fmt.Fprintf(&b, "%s\n%s\n%s\n\n", f, out, f)
		}
		fmt.Fprintf(&b, "Exit code: %d", data.ExitCode)
		if v.ExitCodeMeaning != "" {
			fmt.Fprintf(&b, " (%s)", v.ExitCodeMeaning)
		}
		return b.String()
	}
	return ""
}

// renderOutputChars bounds the output shown in the editor's completed
// call (hermes's ACP rendering keeps 5 000 characters).
const renderOutputChars = 4000

// commandDeps is what the tools that run commands (terminal, process,
// execute_code) use of their session to know where commands run.
type commandDeps interface {
	// Workspace is the session's workspace: commands run inside it.
	Workspace() *workspace.Workspace
	// TerminalSettings are the terminal tools' settings (timeouts, the
	// output cap, the sandbox, the commands' environment).
	TerminalSettings() TerminalConfig
	// Sandbox is the session's sandbox on this machine; nil: the
	// configuration has none.
	Sandbox() *terminal.SandboxSession
	// Backend is the session's current terminal environment when it is
	// not this machine (a Docker container, an SSH host); (nil, nil):
	// this machine. An error says why the backend cannot run commands now.
	Backend() (TerminalBackend, error)
}

// terminalDeps is what the terminal tool uses of its session besides:
// the approval of each command, the editor's terminals and the stream of
// the output of the commands it runs itself, and the table of background
// processes it shares with process.
type terminalDeps interface {
	commandDeps
	// Commands approves commands; nil refuses every command.
	Commands() CommandApprover
	// EditorTerminals runs foreground commands in editor terminals; nil
	// when the client has none.
	EditorTerminals() EditorTerminals
	// CommandOutput shows the output of the commands the tool runs
	// itself; nil shows nothing until they end.
	CommandOutput() OutputSink
	// Processes is the session's table of background processes.
	Processes() *terminal.Table
}
