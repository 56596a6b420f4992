package tools

import (
	"context"
	"sync"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/skills"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/web"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Deps is what the built-in tools need from the session they run in. The
// agent supplies one per session (the composition root wires it); tests
// build their own. The fields up to SavedResult must be set; Enabled nil
// enables every tool, and the command seams after it say what nil means.
type Deps struct {
	// Workspace is the session's workspace: its roots and path rules.
	Workspace *workspace.Workspace
	// Files reads and writes through the editor when it can, else the disk.
	Files *workspace.Files
	// State records what the agent read and wrote, for staleness checks.
	State *workspace.State
	// Approver shows proposed edits to the user and decides.
	Approver EditApprover
	// Lint receives the lint of what the tools read and wrote.
	Lint LintSink
	// Linter lints edits. It is shared (the agent's sessions share one) and
	// remembers the Go declarations it has parsed clean.
	Linter *lint.Linter
	// RefuseNewLintErrors is lint.on_new_errors: refuse — a JSON, YAML or
	// TOML write that introduces syntax errors is refused before writing.
	RefuseNewLintErrors bool
	// Types type-checks the Go files of edits against their packages
	// (lint.go_types); nil: Go files get the syntax lint only.
	Types TypeChecker
	// SavedResult reports whether path names exactly a file in which this
	// session's result budget saved an oversized result, and returns its
	// real path: read_file opens those, and only those, outside the
	// workspace. Nil means none.
	SavedResult func(path string) (real string, ok bool)
	// Enabled reports whether a tool is enabled in the session: descriptions
	// and result hints name only enabled tools.
	Enabled func(tool string) bool

	// Commands approves the commands of the terminal tool (and of anything
	// else that runs commands). Nil refuses every command.
	Commands CommandApprover
	// Terminals runs foreground commands in editor terminals; nil when the
	// client has none (the tools then run them and stream to Output).
	Terminals EditorTerminals
	// Output shows the output of commands the tools run themselves; nil
	// shows nothing until they end.
	Output OutputSink
	// Announce tells the user (in the chat) and the model (at its next
	// turn) something that happened outside a tool call, such as a
	// background process that finished. Nil drops it.
	Announce func(text string)
	// OnClose registers f to run when the session closes (background
	// processes are killed then). Nil: the tools never learn it.
	OnClose func(f func())

	// browser: the seams of the browser_* tools.
	//
	// Browsers makes the session's browser, started on the first browser
	// call and closed with the session (OnClose) or when the set closes
	// (the agent's exit). Nil: the browser tools are unavailable.
	Browsers *browser.Set
	// BrowserVision answers question about an image (browser_vision's
	// screenshot); nil: browser_vision reports that no vision model is
	// configured (the screenshot is still shown in the editor).
	BrowserVision func(ctx context.Context, image []byte, mime, question string) (string, error)
	// ApproveCDP asks whether browser_cdp may send method, one of the
	// methods that reach outside the page or touch files, on tool call
	// callID; detail says what it would do (the files the page would get,
	// where downloads would land), "" when nothing more. Nil refuses them.
	ApproveCDP func(ctx context.Context, callID, method, detail string) bool
	// vision (tools/vision_analyze.go).
	// Vision asks a model that can see images about image (of type mime)
	// in a request of its own and returns the model's answer; an error is
	// the request's failure, shown to the model. Nil means no model can see
	// images: vision_analyze is not offered.
	Vision func(ctx context.Context, image []byte, mime, question string) (string, error)
	// FetchImage downloads an http(s) image URL under the agent's network
	// policy, reading at most maxBytes (more is an error); it returns the
	// bytes and the server's content type. Nil refuses every URL.
	FetchImage func(ctx context.Context, url string, maxBytes int64) (data []byte, mime string, err error)
	// Skills (issue #14) is the library the skill tools read and write:
	// the user's and the project's skills folders. Nil means an empty
	// library with nowhere to create skills.
	Skills *skills.Library
	// terminal: the terminal and process tools' settings (timeouts, the
	// output cap, the sandbox); the zero value is hermes's defaults
	// without a sandbox.
	Terminal TerminalConfig
	// web: web_search and web_extract. Nil Web: no search backend (the
	// environment's credentials are still detected), in-process extraction
	// under the strict URL policy, no summaries.
	Web *Web

	// execute_code (issue #16): CallTool runs the tool calls of a script
	// through the session's pipeline, shown under the execute_code call
	// (nil: scripts cannot call tools); CodeExecution is the
	// code_execution section of config.yaml.
	CallTool      CallToolFunc
	CodeExecution CodeExecutionConfig
	// Scripts approves execute_code scripts (issue 24). Nil refuses every
	// script.
	Scripts ScriptApprover
	// terminal backends (issue 18): the session's current terminal
	// environment when it is not this machine. Called before every
	// command (the session may switch backends between commands); nil, or
	// (nil, nil), runs commands here. An error is why the backend cannot
	// run commands now; the command fails with it.
	TerminalBackend func() (TerminalBackend, error)
}

// terminal backends (issue 18)

// TerminalBackend is an environment other than this machine that runs the
// terminal tool's commands (a Docker container, an SSH host). Commands
// run in it take the same paths (the workspace's) and are approved the
// same way; editor terminals are not used for them.
type TerminalBackend interface {
	terminal.Environment
	// Name is the backend's config name ("docker", "ssh").
	Name() string
	// Describe says where commands run, for the editor ("docker container
	// 1a2b3c4d5e6f (image busybox)").
	Describe() string
}

// web: what web_search and web_extract need from the session.

// Web configures the web tools for a session; the composition root builds
// it from the web section of config.yaml and the auxiliary model settings.
type Web struct {
	// Backends selects and reaches the search and extraction backends.
	Backends web.Config
	// Policy checks every URL web_extract fetches; nil is the strict
	// default (public addresses only).
	Policy *web.Policy
	// Decoder turns the HTML and PDF pages web_extract fetches into text
	// under the request's budgets (nil: web.InProcess; the agent gives a
	// web.Isolated that runs it in a child process with a memory budget).
	Decoder web.Decoder
	// CharLimit is web.extract_char_limit, the default char_limit of
	// web_extract (0: 15 000).
	CharLimit int
	// NoSummarize is web.extract_summarize: false — long pages are cut to
	// char_limit instead of summarised.
	NoSummarize bool
	// Summarize asks the auxiliary model (auxiliary.web_extract, else the
	// session's model) to follow instructions on text and returns its
	// answer. Nil: no summaries; long pages are cut to char_limit.
	Summarize func(ctx context.Context, instructions, text string) (string, error)
	// SaveResult saves the full text of a long page where read_file can
	// read it back (the session's results dir) and returns its path. Nil:
	// the full text is not kept.
	SaveResult func(id, content string) (path string, err error)
}

// EditApprover shows the proposed changes of tool call callID to the user
// (as diffs on the tool call) and decides, by the session's mode or by
// asking, whether they may be made. lints holds the lint of each change's
// new content, in the same order (a zero Result when not linted).
type EditApprover interface {
	ApproveEdit(ctx context.Context, callID string, changes []workspace.Change, lints []lint.Result) workspace.Decision
}

// TypeChecker type-checks the Go files of a tool call's changes against
// their packages (the agent's, over package lint/gotypes).
type TypeChecker interface {
	// CheckTypes starts the type check of tool call callID's proposed
	// changes (decoded texts), whose syntax lints are lints, in the same
	// order; nil when none of them is checked. It starts before the
	// approval, which includes it when it is ready in time.
	CheckTypes(callID string, changes []workspace.Change, lints []lint.Result) TypeCheck
}

// TypeCheck is one call's type check, from [TypeChecker.CheckTypes]. The
// call reports each file it wrote or removed, and calls Done when it has
// made every change it will make (or none); the findings of what it wrote
// then reach the editor when they are ready.
type TypeCheck interface {
	// Wrote records that the call wrote p, whose decoded text is now
	// text, and returns res, its lint, with the type errors the change
	// introduced merged in when the check finishes within its budget
	// (else res is marked TypesPending).
	Wrote(p workspace.Path, text []byte, res lint.Result) lint.Result
	// Removed records that the call deleted p or moved it away.
	Removed(p workspace.Path)
	// Done ends the call's part in the check.
	Done()
}

// LintSink receives lint results for the editor.
type LintSink interface {
	// ReportLint records the lint of a file the call wrote: it goes on the
	// completing tool_call_update and, as the file's full diagnostics, to
	// the editor. content is the file's new text.
	ReportLint(callID string, path workspace.Path, content []byte, res lint.Result)
	// LearnLint lets the Linter learn content, the text of path that the
	// model just read, off the call: the lint of a later edit of it then
	// parses only what the edit changed. content is not modified after.
	LearnLint(path workspace.Path, content []byte)
}

// session is one session's binding of the built-in tools: its dependencies
// and the tools' per-session state.
type session struct {
	Deps
	// ungated makes Enabled ignore the tools' gates (Entries' descriptions).
	ungated bool
	reads   *readFileTracker // read_file's dedup and loop guard
	patches *patchFailures   // patch's consecutive failure counters
	procs   *terminal.Table  // the terminal tool's background processes
	// sandbox runs the session's commands on this machine (nil: the
	// terminal config has no sandbox); closed with the session.
	sandbox *terminal.SandboxSession
	web     *browserSession // the browser tools' browser
	// browserOK reports, once per session, whether the browser tools can
	// run (a browser set and a browser found): descriptions name them
	// only then.
	browserOK func() bool
	// browserCheck is the availability of the session's browser tools,
	// one check for all of them (nil without a browser set).
	browserCheck *registry.Check
}

func newSession(d Deps) *session {
	if d.Enabled == nil {
		d.Enabled = func(string) bool { return true }
	}
	s := &session{Deps: d, reads: newReadTracker(), patches: newPatchFailures(), web: &browserSession{}}
	s.browserOK = sync.OnceValue(func() bool { return d.Browsers != nil && d.Browsers.Available() == nil })
	if d.Browsers != nil {
		s.browserCheck = registry.NewCheck(d.Browsers.Available) // one for all the browser tools
	}
	s.procs = terminal.NewTable(terminal.TableOptions{OnExit: func(snap terminal.Snapshot) {
		if d.Announce != nil {
			d.Announce(processExitMessage(snap))
		}
	}})
	if d.Terminal.Sandbox != nil && d.Workspace != nil {
		s.sandbox = d.Terminal.Sandbox.NewSession(d.Workspace.Roots())
	}
	if d.OnClose != nil {
		if s.sandbox != nil {
			// After the processes (closers run last registered first).
			d.OnClose(func() { _ = s.sandbox.Close() })
		}
		d.OnClose(s.procs.Close)
	}
	return s
}

// Enabled reports whether the session offers tool: its toolsets select it
// (Deps.Enabled) and the session can run it (its availability rule
// passes). Descriptions and result hints name only these.
func (s *session) Enabled(tool string) bool {
	return s.Deps.Enabled(tool) && (s.ungated || s.canRun(tool))
}

// services is a session's services as the tools declared with their
// constructors ([declare]) see them: each such tool asks, through the
// interface it declares, for exactly what it uses, and never sees the
// session. It implements every one of those interfaces (a test binds each
// declared tool to it).
//
// Every built-in tool is declared; services still reads the session's
// Deps, which the agent fills per session (issue #32, item 1: the agent's
// per-session services are to take the place of Deps).
type services struct{ s *session }

func (s *session) services() services { return services{s} }

// Enabled reports whether the session offers tool: descriptions and result
// hints name only those.
func (v services) Enabled(tool string) bool { return v.s.Enabled(tool) }

// emptyLibrary serves sessions that have no skills library.
var emptyLibrary = skills.New(skills.Options{})

// SkillLibrary is the session's skills library (Deps.Skills), or an empty
// one with nowhere to create skills.
func (v services) SkillLibrary() *skills.Library {
	if v.s.Skills == nil {
		return emptyLibrary
	}
	return v.s.Skills
}

// ApproveEdit asks the session's approver (Deps.Approver).
func (v services) ApproveEdit(ctx context.Context, callID string, changes []workspace.Change, lints []lint.Result) workspace.Decision {
	return v.s.Approver.ApproveEdit(ctx, callID, changes, lints)
}

// RecordWrite records that a tool wrote content at abs: inside the
// workspace, the read/write state records it and read_file forgets what
// it read there.
func (v services) RecordWrite(abs string, content []byte) {
	ws := v.s.Workspace
	if ws == nil {
		return
	}
	if p, err := ws.Resolve(abs); err == nil && ws.InRoots(p) {
		if v.s.State != nil {
			v.s.State.RecordWrite(p, content)
		}
		v.s.reads.forget(p)
	}
}

// WebTools is the session's web configuration (Deps.Web; nil: defaults).
func (v services) WebTools() *Web { return v.s.Web }

// Workspace is the session's workspace (Deps.Workspace).
func (v services) Workspace() *workspace.Workspace { return v.s.Workspace }

// Files is the session's file access (Deps.Files).
func (v services) Files() *workspace.Files { return v.s.Files }

// State is the session's read/write state (Deps.State).
func (v services) State() *workspace.State { return v.s.State }

// Reads is read_file's per-session dedup and loop guard.
func (v services) Reads() *readFileTracker { return v.s.reads }

// PatchFailures is patch's per-session count of consecutive failures.
func (v services) PatchFailures() *patchFailures { return v.s.patches }

// ReportLint hands the lint of a written file to the session (Deps.Lint).
func (v services) ReportLint(callID string, p workspace.Path, content []byte, res lint.Result) {
	v.s.Lint.ReportLint(callID, p, content, res)
}

// LearnLint lets the session's linter learn a file just read (Deps.Lint).
func (v services) LearnLint(p workspace.Path, content []byte) { v.s.Lint.LearnLint(p, content) }

// Linter is the shared linter (Deps.Linter).
func (v services) Linter() *lint.Linter { return v.s.Linter }

// RefuseNewLintErrors is lint.on_new_errors: refuse (Deps.RefuseNewLintErrors).
func (v services) RefuseNewLintErrors() bool { return v.s.RefuseNewLintErrors }

// TypeChecker is the Go type check of edits (Deps.Types; nil: none).
func (v services) TypeChecker() TypeChecker { return v.s.Types }

// SavedResult reports whether path is a result this session's budget saved
// (Deps.SavedResult; nil: none).
func (v services) SavedResult(path string) (string, bool) {
	if v.s.SavedResult == nil {
		return "", false
	}
	return v.s.SavedResult(path)
}

// TerminalSettings are the terminal tools' settings (Deps.Terminal).
func (v services) TerminalSettings() TerminalConfig { return v.s.Terminal }

// Sandbox is the session's sandbox on this machine (nil: none).
func (v services) Sandbox() *terminal.SandboxSession { return v.s.sandbox }

// Backend is the session's current terminal backend (Deps.TerminalBackend;
// nil: this machine).
func (v services) Backend() (TerminalBackend, error) {
	if v.s.TerminalBackend == nil {
		return nil, nil
	}
	return v.s.TerminalBackend()
}

// Commands approves commands (Deps.Commands; nil refuses them).
func (v services) Commands() CommandApprover { return v.s.Commands }

// EditorTerminals are the editor's terminals (Deps.Terminals; nil: none).
func (v services) EditorTerminals() EditorTerminals { return v.s.Terminals }

// CommandOutput shows the output of commands (Deps.Output; nil: none).
func (v services) CommandOutput() OutputSink { return v.s.Output }

// Processes is the session's table of background processes.
func (v services) Processes() *terminal.Table { return v.s.procs }

// CodeExecution is the code_execution section (Deps.CodeExecution).
func (v services) CodeExecution() CodeExecutionConfig { return v.s.CodeExecution }

// Scripts approves execute_code scripts (Deps.Scripts; nil refuses them).
func (v services) Scripts() ScriptApprover { return v.s.Scripts }

// CallTool runs a script's tool calls (Deps.CallTool; nil: none).
func (v services) CallTool() CallToolFunc { return v.s.CallTool }

// Usable reports whether the session offers tool and can run it.
func (v services) Usable(tool string) bool { return v.s.usable(tool) }

// Browser returns the session's browser, made on first use and closed
// with the session; nil without a browser set (Deps.Browsers).
func (v services) Browser() *browser.Browser {
	s := v.s
	if s.Browsers == nil {
		return nil
	}
	s.web.mu.Lock()
	defer s.web.mu.Unlock()
	if s.web.b == nil {
		s.web.b = s.Browsers.New()
		if s.OnClose != nil {
			s.OnClose(s.web.b.Close)
		}
	}
	return s.web.b
}

// BrowserCheck is the one availability check of the session's browser
// tools: its browser set's (which honours browser.executable); without a
// set, none can run — except in the ungated session of [Entries], where it
// is whether this machine has a browser.
func (v services) BrowserCheck() *registry.Check {
	switch {
	case v.s.Browsers != nil:
		return v.s.browserCheck
	case v.s.ungated:
		return browserCheck
	}
	return noBrowserCheck
}

// ApproveCDP asks the session (Deps.ApproveCDP; nil refuses).
func (v services) ApproveCDP(ctx context.Context, callID, method, detail string) bool {
	return v.s.ApproveCDP != nil && v.s.ApproveCDP(ctx, callID, method, detail)
}

// BrowserVision is browser_vision's model (Deps.BrowserVision; nil: none).
func (v services) BrowserVision() func(ctx context.Context, image []byte, mime, question string) (string, error) {
	return v.s.BrowserVision
}

// Vision is vision_analyze's model (Deps.Vision; nil: none can see).
func (v services) Vision() func(ctx context.Context, image []byte, mime, question string) (string, error) {
	return v.s.Vision
}

// FetchImage downloads image URLs (Deps.FetchImage; nil refuses them).
func (v services) FetchImage() func(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
	return v.s.FetchImage
}

// VisionCheck is vision_analyze's availability: none without a model that
// can see (Deps.Vision nil), except in the ungated session of [Entries]
// (the composition root marks it from the configuration).
func (v services) VisionCheck() *registry.Check {
	if v.s.Vision == nil && !v.s.ungated {
		return noVisionCheck
	}
	return nil
}
