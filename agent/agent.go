package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/checkpoint"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/lint/gotypes"
	"github.com/hermes-acp/hermes-acp/mcp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Defaults for [Options].
const (
	DefaultMaxModelCalls   = 90
	DefaultApprovalTimeout = 60 * time.Second
	DefaultContextWindow   = 128_000
)

// DefaultFSTimeout bounds the wait for the editor's answer to an fs/*
// request.
const DefaultFSTimeout = 30 * time.Second

// DefaultMaxToolCallsPerReply caps the tool calls run from one model reply;
// the calls beyond it are answered "not run".
const DefaultMaxToolCallsPerReply = 128

// ModelSetup is what the agent knows about the configured model.
type ModelSetup struct {
	// Provider serves model calls; nil means no model is configured.
	Provider model.Provider
	// Name is the model name requests use (e.g. "gpt-4.1" or "script").
	Name string
	// Choices are extra model names offered in the model picker.
	Choices []string
	// Problem explains why Provider is nil, shown to the user on prompt.
	Problem string
	// ContextWindow is the model's context size in tokens; 0 means
	// DefaultContextWindow.
	ContextWindow int
	// CompressionThreshold is the share of ContextWindow past which the
	// conversation is compressed (config compression.threshold); 0 means
	// hermes's 0.80.
	CompressionThreshold float64
	// CompressionOff turns automatic compression off (compression.enabled:
	// false); /compact still works.
	CompressionOff bool

	// Vision (agent/vision.go). NoVision is model.vision: false: the
	// model cannot see images, so prompts with images are refused, the
	// editor is not told images are welcome, and vision_analyze asks
	// VisionProvider instead.
	NoVision bool
	// VisionProvider serves the auxiliary.vision model VisionModel, which
	// vision_analyze asks when NoVision is set; nil means none.
	VisionProvider model.Provider
	VisionModel    string

	// ApprovalProvider serves the auxiliary.approval model ApprovalModel,
	// the reviewer of approvals.mode: smart (agent/smartapproval.go); nil
	// means the session's own model reviews.
	ApprovalProvider model.Provider
	ApprovalModel    string
}

// Options configures an [Agent]. Zero values are sensible defaults.
type Options struct {
	Version string // reported in agentInfo
	// Model is the model at start-up.
	Model ModelSetup
	// ReloadModel re-reads the configuration (after `hermes-acp --setup`);
	// nil means authenticate cannot pick up a new configuration.
	ReloadModel func() (ModelSetup, error)
	// Setup is how a client that runs terminal authentication starts
	// `hermes-acp --setup` (agent/auth.go); the zero value names
	// "hermes-acp" on the PATH.
	Setup SetupCommand
	// Registry declares the built-in tools (and the agent's own, [Tools]);
	// each session works on its own clone, binds its tools into it and adds
	// its MCP tools. Nil means no tools.
	Registry *registry.Registry
	// Pipeline configures each session's tool pipeline.
	Pipeline registry.PipelineOptions
	// Toolsets and DisabledToolsets select the session's tools
	// (default ["hermes-acp"]).
	Toolsets, DisabledToolsets []string
	// BindTools binds the built-in tools to a new session: it returns the
	// entries, with handlers, of the tools the session enables (env.Enabled)
	// and the hooks their per-session state needs. Nil binds none (the
	// session still binds the agent's own tools).
	BindTools func(env *Env) ([]registry.Entry, []registry.Hook)
	// ApprovalsOff makes new sessions start in dont_ask mode and approves
	// every command but the hardline floor's (approvals.mode: off).
	ApprovalsOff bool
	// ApprovalsSmart is approvals.mode: smart (issue 25 item 6): a flagged
	// command is first shown to the reviewer model, which may approve it
	// (this command only), deny it (the user may still allow it once) or
	// leave it to the user. SmartPolicy is approvals.smart_policy, the
	// operator's rules added to the reviewer's instructions.
	ApprovalsSmart bool
	SmartPolicy    string
	// Network and Credentials are terminal.network and
	// terminal.credentials: whether a command run in the terminal sandbox
	// may have the machine's network, and the credential places, when it
	// asks for them — GrantAsk ("", the default: the user is asked with
	// the command), GrantOn (every command has them) or GrantOff (never).
	Network, Credentials string
	// CommandAllowlist is command_allowlist: commands (exact or globs),
	// prefixes and danger keys the user always allows.
	CommandAllowlist []string
	// SaveAllowlist saves an entry the user added with "allow always" to
	// the configuration file; nil keeps it for this run only.
	SaveAllowlist func(entry string) error
	// RemoveAllowlist removes an entry from the configuration file's
	// command_allowlist (/allowlist remove); nil removes it for this run
	// only.
	RemoveAllowlist func(entry string) error
	// ApprovalTimeout bounds a permission request (approvals.timeout); 0
	// means DefaultApprovalTimeout, except for a client that waits for its
	// user (agent/approvalwait.go).
	ApprovalTimeout time.Duration
	// MaxModelCalls caps model requests per turn; 0 means
	// DefaultMaxModelCalls.
	MaxModelCalls int
	// FSTimeout bounds the wait for the editor's answer to an fs/*
	// request (fs.timeout); 0 means DefaultFSTimeout.
	FSTimeout time.Duration
	// MaxToolCallsPerReply caps the tool calls run from one model reply;
	// 0 means DefaultMaxToolCallsPerReply.
	MaxToolCallsPerReply int
	// LintRefuse makes JSON, YAML and TOML writes that introduce syntax
	// errors fail before writing (lint.on_new_errors: refuse).
	LintRefuse bool
	// Linter lints every session's edits and remembers what it parsed
	// clean; nil means one of the agent's own.
	Linter *lint.Linter
	// GoTypes type-checks the Go edits of every session (lint.go_types,
	// agent/gotypes.go); nil: Go files get the syntax lint only, and
	// GoTypesOff says why, for /context.
	GoTypes    *gotypes.Checker
	GoTypesOff string
	// GoTypesWait bounds how long an edit's approval prompt, and its
	// result, wait for its type check, from its start; 0 means
	// DefaultGoTypesWait.
	GoTypesWait time.Duration
	// HermesHome holds the session database; "" disables persistence.
	HermesHome string
	// Checkpoints records the workspace before each turn's first change
	// (issue 29, agent/checkpoints.go) for /rewind, /undo and the
	// _hermes/rewind/* methods; nil turns checkpoints off.
	Checkpoints *checkpoint.Manager
	// Notices are start-up problems (e.g. of the configuration file) shown
	// once, at the first session/prompt of the process, before the turn's
	// output (agent/notices.go).
	Notices []Notice
	// MCPServers are the MCP servers of the configuration file (enabled
	// ones only); every session connects them plus the servers its request
	// names, the request's server winning on a name clash.
	MCPServers []mcp.Server
	// Delegation configures delegate_task (agent/delegate.go): the config
	// file's delegation section. Zero values are hermes's defaults.
	Delegation DelegationOptions
	// TerminalBackends (issue 18) are the terminal backends sessions can
	// choose from; zero: local only, no config option.
	TerminalBackends TerminalBackends
	// SandboxStatus says how commands on this machine are confined (the
	// terminal sandbox's summary), for /context; nil says nothing.
	SandboxStatus func() string
	// SkillsIndex (issue #14) returns the skill index of a new session's
	// system prompt (the skills it can load, one line each), or "" for none.
	// It is called once when the session opens, after its tools are bound,
	// and the text is kept for the whole session. Nil means no index.
	SkillsIndex func(env *Env) string
	// SkillsBlocked (issue 25) returns the skills the threat scan leaves
	// out of the index and skill_view, one line each ("name: SKILL.md —
	// findings"), for /context; nil reports none.
	SkillsBlocked func(env *Env) []string
	// Hooks observe workspaces and tool results (lint, watchers); nil is fine.
	Hooks SessionHooks
	Log   *slog.Logger
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

// SessionHooks lets the composition root attach per-session services.
type SessionHooks interface {
	// Opened is called when a session starts (new, load or resume); the
	// returned func is called when it ends.
	Opened(env *Env) (closed func())
}

// Agent implements [acp.Agent]. It is safe for concurrent use; call Close
// when the connection ends.
type Agent struct {
	opts Options
	log  *slog.Logger
	now  func() time.Time

	// approvalTimeoutSet: Options.ApprovalTimeout was given (the user set
	// approvals.timeout), so it bounds every client's permission requests.
	approvalTimeoutSet bool

	mu         sync.Mutex // guards the fields below
	sessions   map[string]*Session
	setup      ModelSetup
	clientInfo *acp.Implementation
	clientCaps acp.ClientCapabilities
	closed     bool
	notices    []Notice  // shown at the next prompt (agent/notices.go)
	allow      allowlist // command_allowlist (agent/shell.go)

	store *store.Store // opened on first use; safe for concurrent use

	// safety is the workspace safety places, resolved once and shared by
	// every session.
	safety func() *workspace.Safety
}

var _ acp.Agent = (*Agent)(nil)

// New returns an agent.
func New(opts Options) *Agent {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxModelCalls <= 0 {
		opts.MaxModelCalls = DefaultMaxModelCalls
	}
	if opts.FSTimeout <= 0 {
		opts.FSTimeout = DefaultFSTimeout
	}
	if opts.MaxToolCallsPerReply <= 0 {
		opts.MaxToolCallsPerReply = DefaultMaxToolCallsPerReply
	}
	approvalTimeoutSet := opts.ApprovalTimeout > 0
	if !approvalTimeoutSet {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	if len(opts.Toolsets) == 0 {
		opts.Toolsets = []string{"hermes-acp"}
	}
	if opts.Linter == nil {
		opts.Linter = &lint.Linter{}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	a := &Agent{opts: opts, approvalTimeoutSet: approvalTimeoutSet, log: opts.Log, now: now, sessions: map[string]*Session{}, setup: opts.Model}
	a.notices = append(a.notices, opts.Notices...)
	a.allow = allowlist{entries: slices.Clone(opts.CommandAllowlist), save: opts.SaveAllowlist, remove: opts.RemoveAllowlist}
	if opts.HermesHome != "" {
		a.store = store.New(opts.HermesHome, opts.Log, a.storeNotice)
	}
	a.safety = sync.OnceValue(func() *workspace.Safety {
		return workspace.NewSafety(workspace.Options{HermesHome: opts.HermesHome})
	})
	// Resolve the safety places (dozens of realpaths) now, off the first
	// session/new's reply path; a session opened before this ends waits for it.
	go a.safety()
	return a
}

// Close cancels every session's work, waits for it, and closes the store.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	sessions := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.sessions = map[string]*Session{}
	a.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
	if a.store != nil {
		return a.store.Close()
	}
	return nil
}

// Initialize answers at once, without disk or network access.
func (a *Agent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	a.mu.Lock()
	a.clientInfo = req.ClientInfo
	a.clientCaps = req.ClientCapabilities
	a.mu.Unlock()
	title := "Hermes ACP"
	res := &acp.InitializeResponse{
		// Version negotiation: we speak 1; a client offering 1 or more gets
		// 1 (and disconnects if it cannot speak it).
		ProtocolVersion: acp.ProtocolVersion,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        a.store != nil,
			PromptCapabilities: acp.PromptCapabilities{Image: !a.modelSetup().NoVision, EmbeddedContext: true},
			McpCapabilities:    a.mcpCapabilities(),
			SessionCapabilities: acp.SessionCapabilities{
				Close:                 &acp.Marker{},
				AdditionalDirectories: &acp.Marker{},
			},
			Meta: acp.Meta{"hermes": a.hermesCapabilities()},
		},
		AgentInfo: &acp.Implementation{Name: "hermes-acp", Title: &title, Version: a.opts.Version},
	}
	if a.store != nil {
		res.AgentCapabilities.SessionCapabilities.List = &acp.Marker{}
		res.AgentCapabilities.SessionCapabilities.Resume = &acp.Marker{}
		res.AgentCapabilities.SessionCapabilities.Delete = &acp.Marker{}
	}
	res.AuthMethods = a.authMethods(req.ClientCapabilities) // agent/auth.go
	return res, nil
}

// mcpCapabilities reports the MCP transports sessions accept besides stdio
// (package mcp).
func (a *Agent) mcpCapabilities() acp.McpCapabilities {
	return acp.McpCapabilities{HTTP: true, SSE: true}
}

// modelSetup returns the current model configuration.
func (a *Agent) modelSetup() ModelSetup {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.setup
}

// session returns the live session id or the -32002 error.
func (a *Agent) session(id string) (*Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, acp.SessionNotFound(id)
}

// Cancel is called on the read goroutine when session/cancel arrives; the
// prompt contexts of the session are already cancelled. It must not block.
func (a *Agent) Cancel(sessionID string) {
	a.mu.Lock()
	s := a.sessions[sessionID]
	a.mu.Unlock()
	if s != nil {
		s.cancelled()
	}
}

func newSessionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "sess_" + hex.EncodeToString(b[:])
}

// errClosed is returned when the agent is shutting down.
var errClosed = errors.New("agent: closed")
