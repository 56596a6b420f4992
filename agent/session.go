package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/compress"
	"github.com/hermes-acp/hermes-acp/agent/internal/queue"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// noModel is the model picker value when no model is configured.
const noModel = "none"

// Session is one conversation bound to a workspace. Its exported methods are
// safe for concurrent use.
type Session struct {
	a      *Agent
	id     string
	client *acp.Client
	env    *Env
	ws     *workspace.Workspace
	reg    *registry.Registry // the session's tools (built-ins plus its MCP tools); nil: none
	pipe   *registry.Pipeline
	mcp    *mcpSet // the session's MCP servers (agent/mcp.go); nil: none
	onEnd  func()
	queue  queue.Queue  // the session's prompts: one turn at a time
	store  *store.Store // the agent's session store; nil: persistence off
	log    *slog.Logger
	proj   *projectContext // AGENTS.md and the like (agent/projctx.go)
	// typeChecks are the Go type checks of the running calls (agent/gotypes.go).
	typeChecks typeCheckSet
	ckpt       *checkpoints      // the session's checkpoints (agent/checkpoints.go); nil: off
	out        *sender           // writes the session's updates, in order, and saves it (agent/sender.go)
	allowed    sessionAllowances // what the user allowed for the session (agent/approvals.go)
	notes      announcements     // for the user and the model (agent/terminals.go)
	calls      callTrackers      // the running calls' cards, by id (agent/toolcall.go)

	mu          sync.Mutex // guards the fields below
	cwd         string
	dirs        []string
	mode        string
	modelName   string
	termBackend string      // terminal backends (issue 18): "" is the default
	lastUsage   model.Usage // of the last model reply, for /context's cache line
	history     []model.Message
	saved       int  // history entries saved (or being saved) to the store
	cleared     bool // /reset: delete the stored history at the next save
	moved       bool // the row changed (new session, workspace, mode, config options): save it
	deleted     bool // session/delete: never saved again
	saveFailed  bool // the last save failed: updates no longer wait for one (agent/persist.go)
	resets      int  // counts /reset, so that a failed save knows it is stale
	title       string
	created     time.Time
	updated     time.Time
	steer       []string
	lastPrompt  string // text of the running prompt, for /steer after a cancel
	interrupted string // text of the last cancelled prompt
	plan        []todoItem
	planGen     int            // plans sent so far: a call that ran while it grew showed one (agent/replay.go)
	memory      string         // the memory as the session opened, for its system prompt (agent/memorytool.go)
	skillsIndex *pendingText   // the skill index as the session opened (Options.SkillsIndex), for its system prompt
	ownNotices  sessionNotices // the session's own notices, until its first prompt shows them (agent/notices.go)
	comp        compress.State // the summary the model sees instead of the middle of history (agent/compress.go)
	ctxTokens   int            // tokens of the last model call, as the provider reported them; 0: unknown
	ctxAt       int            // history length those tokens cover
	compBackoff bool           // automatic compression failed this turn: not again before the next
}

// openSession builds a live session and registers it; its MCP servers (the
// configured ones plus mcpServers) start in the background.
func (a *Agent) openSession(ctx context.Context, id, cwd string, dirs []string, mcpServers []acp.McpServer) (*Session, error) {
	cwd, dirs = filepath.Clean(cwd), cleanAll(dirs)
	ws, err := workspace.Open(cwd, dirs, workspace.Options{Safety: a.safety(), Log: a.log})
	if err != nil {
		var fe *acp.FieldError
		if errors.As(err, &fe) {
			return nil, err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &acp.FieldError{Field: "cwd", Problem: fmt.Sprintf("directory does not exist: %v", err)}
		}
		return nil, &acp.FieldError{Field: "cwd", Problem: err.Error()}
	}
	client := acp.ClientFrom(ctx)
	if client == nil {
		ws.Close()
		return nil, errors.New("agent: no client connection in context")
	}
	setup := a.modelSetup()
	mode := ModeDefault
	if a.opts.ApprovalsOff {
		mode = ModeDontAsk
	}
	name := setup.Name
	if name == "" {
		name = noModel
	}
	now := a.now()
	s := &Session{a: a, id: id, client: client, ws: ws, store: a.store, log: a.log, allowed: &approvals{}, cwd: cwd, dirs: dirs, mode: mode, modelName: name, created: now, updated: now}
	s.out = newSender(s.write, s.save)
	base := a.opts.Registry
	if base == nil && len(a.opts.MCPServers)+len(mcpServers) > 0 {
		base = registry.New(a.log) // MCP tools only
	}
	s.env = newEnv(s)
	s.ckpt = newCheckpoints(s, a.opts.Checkpoints)
	s.proj = newProjectContext(ws, a.log)
	if base != nil {
		s.reg = base.Clone()
		if err := s.bindTools(); err != nil {
			s.out.close()
			ws.Close()
			return nil, fmt.Errorf("agent: bind the session's tools: %w", err)
		}
	}
	if a.opts.SkillsIndex != nil {
		// Listing the skills scans their folders: it runs off the reply
		// path, and the session's first system prompt waits for it.
		s.skillsIndex = startPending(a.log, func() string { return a.opts.SkillsIndex(s.env) })
	}
	s.ownNotices.skills = s.startSkillNotices()
	s.mcp = a.newMCP(s, mcpServers)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		s.out.close()
		ws.Close()
		return nil, errClosed
	}
	if old := a.sessions[id]; old != nil {
		a.mu.Unlock()
		old.close()
		a.mu.Lock()
	}
	a.sessions[id] = s
	a.mu.Unlock()
	if a.opts.Hooks != nil {
		s.onEnd = a.opts.Hooks.Opened(s.env)
	}
	s.mcp.start(ctx)
	return s, nil
}

// bindTools binds the session's tools with fresh per-session state and
// starts a pipeline for them: the built-in tools the session enables
// (Options.BindTools) and the agent's own tools, registered over their
// declarations in the session's registry.
func (s *Session) bindTools() error {
	entries, po := s.toolBinding(s.env)
	if s.env.Enabled(todoName) {
		entries = append(entries, s.todoTool())
	}
	if s.env.Enabled(memoryName) {
		entries = append(entries, s.memoryTool())
	}
	if s.env.Enabled(sessionSearchName) {
		entries = append(entries, s.sessionSearchTool())
	}
	if s.env.Enabled(delegateName) {
		entries = append(entries, s.delegateTool(nil))
	}
	if s.env.Enabled(clarifyName) {
		entries = append(entries, s.clarifyTool())
	}
	if s.env.Enabled(exitPlanModeName) {
		entries = append(entries, s.exitPlanModeTool())
	}
	if err := s.reg.RegisterAll(entries...); err != nil {
		return err
	}
	pipe := registry.NewPipeline(s.reg, po)
	s.mu.Lock()
	s.pipe = pipe
	s.mu.Unlock()
	return nil
}

// toolBinding binds the built-in tools to env (Options.BindTools) and
// returns their entries and the options of a pipeline that runs them: the
// session's own, or a delegated child's (agent/delegate.go).
func (s *Session) toolBinding(env *Env) ([]registry.Entry, registry.PipelineOptions) {
	a := s.a
	po := a.opts.Pipeline
	po.Hooks = slices.Clone(po.Hooks)
	var entries []registry.Entry
	if a.opts.BindTools != nil {
		bound, hooks := a.opts.BindTools(env)
		entries = append(entries, bound...)
		po.Hooks = append(po.Hooks, hooks...)
	}
	if h := s.projectContextHook(); h != nil {
		po.Hooks = append(po.Hooks, h)
	}
	if h := s.checkpointHook(); h != nil { // before the first change of a turn (agent/checkpoints.go)
		po.Hooks = append(po.Hooks, h)
	}
	// Plan mode's gate runs first, before anything can ask the user about
	// a call it refuses (agent/modes.go).
	gate := planGate{s: s, lookup: func(name string) (registry.Entry, bool) {
		reg := s.reg
		if env.child != nil {
			reg = env.child.reg
		}
		if reg == nil {
			return registry.Entry{}, false
		}
		return reg.Snapshot().Lookup(name)
	}}
	po.Hooks = append([]registry.Hook{gate}, po.Hooks...)
	po.SessionID = s.id
	ws := s.ws
	po.PathResolver = func(p string) (string, bool) {
		rp, err := ws.Resolve(p)
		if err != nil {
			return "", false
		}
		return rp.Real(), true
	}
	if po.Log == nil {
		po.Log = a.log
	}
	return entries, po
}

func cleanAll(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// NewSession opens a session on the client's workspace. The session is
// stored right after the reply, before the next request is handled, so
// that it can be loaded or resumed before its first prompt (also by
// another process); then the slash commands follow.
func (a *Agent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	s, err := a.openSession(ctx, newSessionID(), req.Cwd, req.AdditionalDirectories, req.McpServers)
	if err != nil {
		return nil, err
	}
	s.markChanged()
	acp.AfterReply(ctx, func() {
		s.persist()
		s.sendCommands()
	})
	return &acp.NewSessionResponse{SessionID: s.id, Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// sendCommands sends the slash commands. Clients learn the session's id
// from the reply to session/new, so there it follows the reply; a loaded or
// resumed session sends it before its reply, so that nothing arrives after
// the reply that the client could take for part of a replay.
func (s *Session) sendCommands() {
	s.send(acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: commandList()}})
}

func (s *Session) modes() *acp.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return modeState(s.mode)
}

func (s *Session) configOptions() []acp.SessionConfigOption {
	s.mu.Lock()
	mode, name := s.mode, s.modelName
	s.mu.Unlock()
	opts := configOptions(mode, name, s.a.modelSetup().Choices)
	if t := s.terminalOption(); t != nil { // terminal backends (issue 18)
		opts = append(opts, *t)
	}
	return opts
}

// send hands one session/update to the session's sender and waits until it
// is written (agent/sender.go), so that what the caller does next follows
// it.
func (s *Session) send(u acp.SessionUpdate) {
	s.notePlan(u)
	s.out.send(u)
}

// post hands one session/update to the session's sender without waiting:
// for callers that hold a lock (the output stream) or send many (replay).
func (s *Session) post(u acp.SessionUpdate) {
	s.notePlan(u)
	s.out.post(u)
}

// notePlan counts the plans sent, for the tool call that sent one
// (agent/replay.go).
func (s *Session) notePlan(u acp.SessionUpdate) {
	if u.Plan != nil {
		s.mu.Lock()
		s.planGen++
		s.mu.Unlock()
	}
}

// write writes one session/update (on the sender's goroutine); a closed
// connection is logged, not fatal.
func (s *Session) write(ctx context.Context, u acp.SessionUpdate) {
	if err := s.client.SessionUpdate(ctx, s.id, u); err != nil && !errors.Is(err, acp.ErrClosed) {
		s.log.Warn("send session update", "session", s.id, "update", u.Kind(), "error", err)
	}
}

// sendText streams an agent message.
func (s *Session) sendText(text string) {
	s.send(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
}

// SetSessionMode switches the edit approval mode.
func (a *Agent) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) (*acp.Empty, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if !validMode(req.ModeID) {
		return nil, acp.InvalidParams("modeId: unknown mode %q (available: %s)", req.ModeID, modeIDs())
	}
	s.setMode(req.ModeID, false)
	s.persist()
	acp.AfterReply(ctx, func() {
		s.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	})
	return &acp.Empty{}, nil
}

// setMode changes the mode (saved with the session's next save); announce
// sends current_mode_update and the config options (when the agent itself
// switched).
func (s *Session) setMode(mode string, announce bool) {
	s.mu.Lock()
	changed := s.mode != mode
	s.mode = mode
	s.moved = s.moved || changed
	s.mu.Unlock()
	if announce && changed {
		s.send(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: mode}})
		s.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	}
}

// Mode returns the session's mode.
func (s *Session) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetSessionConfigOption changes the mode or the model.
func (a *Agent) SetSessionConfigOption(ctx context.Context, req *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	value, _ := req.Value.(string)
	switch req.ConfigID {
	case configMode:
		if !validMode(value) {
			return nil, acp.InvalidParams("value: unknown mode %q (available: %s)", value, modeIDs())
		}
		s.setMode(value, false)
		acp.AfterReply(ctx, func() {
			s.send(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: value}})
		})
	case configModel:
		if err := s.setModel(value); err != nil {
			return nil, acp.InvalidParams("value: %v", err)
		}
	case configTerminal: // terminal backends (issue 18)
		if err := s.setTerminalBackend(value); err != nil {
			return nil, acp.InvalidParams("value: %v", err)
		}
	default:
		return nil, acp.InvalidParams("configId: unknown config option %q (available: mode, model)", req.ConfigID)
	}
	s.markChanged()
	s.persist() // stored before the reply: a restart keeps it
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// setModel switches the session's model to one of the offered choices.
func (s *Session) setModel(name string) error {
	s.mu.Lock()
	current := s.modelName
	s.mu.Unlock()
	choices := modelChoices(current, s.a.modelSetup().Choices)
	if !slices.Contains(choices, name) {
		return fmt.Errorf("unknown model %q (available: %v)", name, choices)
	}
	s.mu.Lock()
	s.modelName = name
	s.mu.Unlock()
	return nil
}

// CloseSession cancels the session's work, waits for it and frees it. Only
// a live session can be closed: one that is only stored (never loaded by
// this process, or closed already) answers -32002, as the spec allows.
func (a *Agent) CloseSession(ctx context.Context, req *acp.SessionRequest) (*acp.Empty, error) {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s == nil {
		return nil, acp.SessionNotFound(req.SessionID)
	}
	s.close()
	return &acp.Empty{}, nil
}

// close ends the session: queued prompts are dropped, the running turn is
// awaited (its context was cancelled by the connection), resources freed.
func (s *Session) close() {
	done, already := s.queue.Close()
	if already {
		return
	}
	if done != nil {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.log.Warn("session turn did not stop in time", "session", s.id)
		}
	}
	s.mcp.close()
	if s.onEnd != nil {
		s.onEnd()
	}
	s.env.close()
	s.persist()
	s.out.close()
	s.ws.Close()
}

// cancelled is called when session/cancel arrives (the prompt contexts are
// already cancelled): it drops steering text and remembers the prompt for a
// later /steer.
func (s *Session) cancelled() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steer = nil
	if s.queue.Running() && s.lastPrompt != "" {
		s.interrupted = s.lastPrompt
	}
}

// enqueue takes a place in the session's prompt queue and reports how many
// prompts are ahead (0: it runs now).
func (s *Session) enqueue() (*queue.Ticket, int, error) {
	t, ahead, err := s.queue.Enqueue()
	if errors.Is(err, queue.ErrClosed) {
		return nil, 0, errClosed
	}
	return t, ahead, err
}

// finish ends the running turn and hands the session to the next prompt.
func (s *Session) finish() {
	s.mu.Lock()
	defer s.mu.Unlock() // held so that /steer and cancel see the turn end at once
	s.lastPrompt = ""
	s.queue.Finish()
}

// pendingText is a text computed in the background: wait waits for it,
// with no lock held; peek reads it under one.
type pendingText struct {
	ready chan struct{}
	text  string // written once, before ready is closed
}

// startPending starts computing a text. A panic in compute is logged and
// leaves the text empty, as it would have failed only that request had it
// run on the request's goroutine.
func startPending(log *slog.Logger, compute func() string) *pendingText {
	p := &pendingText{ready: make(chan struct{})}
	go func() {
		defer close(p.ready)
		defer func() {
			if r := recover(); r != nil {
				log.Error("background computation panicked", "panic", r)
			}
		}()
		p.text = compute()
	}()
	return p
}

// wait returns the text once it is ready; false when ctx ended first. It
// is for callers that hold no lock: a slow computation (a skills folder on
// a network drive) must not hold up session/cancel. "" for a nil p.
func (p *pendingText) wait(ctx context.Context) (string, bool) {
	if p == nil {
		return "", true
	}
	select {
	case <-p.ready:
		return p.text, true
	case <-ctx.Done():
		return "", false
	}
}

// peek returns the text when it is ready, else "": for a caller holding a
// lock, after a wait.
func (p *pendingText) peek() string {
	if p == nil {
		return ""
	}
	select {
	case <-p.ready:
		return p.text
	default:
		return ""
	}
}
