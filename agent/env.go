package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/diagnostics"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Env is the per-session services tools are bound to (Options.BindTools):
// the workspace, file access through the editor or the disk, read/write
// state, and the editor-facing services (edit approval, tool-call
// progress, diagnostics). It is safe for concurrent use.
type Env struct {
	s     *Session
	files *workspace.Files
	state *workspace.State
	diag  *diagnostics.Publisher // the session's diagnostics and watcher
	// child is set in the Env of a delegated child's tools (agent/delegate.go):
	// the same session services, the child's own tool set.
	child *childScope

	enabled atomic.Pointer[enabledSet] // cache of Enabled

	// execute_code (agent/execcode.go): the number of tool calls each
	// script made, by execute_code call id.
	scriptCalls scriptCallCounters

	closeMu sync.Mutex
	closers []func() // OnClose (agent/terminals.go)
}

func newEnv(s *Session) *Env {
	caps := s.client.Capabilities()
	ed := &editorFS{client: s.client, sessionID: s.id, timeout: s.a.opts.FSTimeout}
	e := &Env{
		s:     s,
		files: workspace.NewFiles(s.ws, ed, caps.FS.ReadTextFile, caps.FS.WriteTextFile),
		state: workspace.NewState(s.ws),
	}
	e.diag = diagnostics.New(diagnostics.Options{
		SessionID: s.id, Workspace: s.ws, Linter: s.a.opts.Linter, Types: s.a.opts.GoTypes,
		Notifier: s.client, Changed: e.state.MarkChanged, Log: s.log,
		Publish: acp.WantsHermesExtension(caps), // _hermes/publishDiagnostics only when asked for
	})
	return e
}

// SessionID returns the ACP session id.
func (e *Env) SessionID() string { return e.s.id }

// Workspace returns the session's workspace (its roots and path rules).
func (e *Env) Workspace() *workspace.Workspace { return e.s.ws }

// Files returns file access through the editor or the disk.
func (e *Env) Files() *workspace.Files { return e.files }

// State returns the session's read/write state for staleness checks.
func (e *Env) State() *workspace.State { return e.state }

// SavedResult reports whether path names exactly a file in which this
// session's result budget saved an oversized result, and returns its real
// path: read_file opens those, and only those, outside the workspace.
func (e *Env) SavedResult(path string) (string, bool) {
	if e.child != nil {
		if pipe := e.child.pipe.Load(); pipe != nil {
			if real, ok := pipe.SavedResult(path); ok {
				return real, true
			}
		}
	}
	e.s.mu.Lock()
	pipe := e.s.pipe
	e.s.mu.Unlock()
	if pipe == nil {
		return "", false
	}
	return pipe.SavedResult(path)
}

// SaveResult saves content for the session's read_file to read back (a
// long page behind web_extract's summary) and returns its path.
func (e *Env) SaveResult(id, content string) (string, error) {
	e.s.mu.Lock()
	pipe := e.s.pipe
	e.s.mu.Unlock()
	if pipe == nil {
		return "", errors.New("save result: the session has no pipeline")
	}
	return pipe.SaveResult(id, content)
}

// Enabled reports whether the session offers the tool called name: it is
// registered (declared or bound) and the session's toolsets select it.
// The answer is computed once per registry change.
func (e *Env) Enabled(name string) bool {
	if e.child != nil {
		return e.child.enabled[name]
	}
	if e.s.reg == nil {
		return false
	}
	snap := e.s.reg.Snapshot()
	c := e.enabled.Load()
	if c == nil || c.gen != snap.Generation() {
		names := e.s.toolNames()
		c = &enabledSet{gen: snap.Generation(), names: make(map[string]bool, len(names))}
		for _, n := range names {
			c.names[n] = snap.Has(n)
		}
		e.enabled.Store(c)
	}
	return c.names[name]
}

// enabledSet is the session's enabled tools at one registry generation.
type enabledSet struct {
	gen   uint64
	names map[string]bool
}

// Mode returns the session's current mode.
func (e *Env) Mode() string { return e.s.Mode() }

// editorFS implements workspace.Editor over the ACP client. Each request
// has timeout to be answered (Options.FSTimeout, config fs.timeout): an
// editor that never answers fails the tool call instead of hanging the turn.
type editorFS struct {
	client    *acp.Client
	sessionID string
	timeout   time.Duration
}

func (f *editorFS) ReadTextFile(ctx context.Context, absPath string) (string, error) {
	var res *acp.ReadTextFileResponse
	err := f.bounded(ctx, "fs/read_text_file", func(ctx context.Context) (err error) {
		res, err = f.client.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: f.sessionID, Path: absPath})
		return err
	})
	if err != nil {
		return "", editorError("read", absPath, err)
	}
	return res.Content, nil
}

func (f *editorFS) WriteTextFile(ctx context.Context, absPath, content string) error {
	err := f.bounded(ctx, "fs/write_text_file", func(ctx context.Context) error {
		return f.client.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: f.sessionID, Path: absPath, Content: content})
	})
	if err != nil {
		return editorError("write", absPath, err)
	}
	return nil
}

// bounded runs call with f.timeout to answer; when the editor does not
// answer in time (the request is then cancelled with $/cancel_request) it
// returns an *editorTimeoutError.
func (f *editorFS) bounded(ctx context.Context, method string, call func(context.Context) error) error {
	tctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	err := call(tctx)
	if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return &editorTimeoutError{method: method, after: f.timeout}
	}
	return err
}

// editorTimeoutError says the editor did not answer a request in time. It
// matches context.DeadlineExceeded with errors.Is.
type editorTimeoutError struct {
	method string
	after  time.Duration
}

func (e *editorTimeoutError) Error() string {
	return fmt.Sprintf("the editor did not answer %s within %s (fs.timeout); nothing was done, the editor may be busy or stuck", e.method, e.after)
}

func (e *editorTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// editorError maps the editor's "resource not found" to fs.ErrNotExist.
func editorError(op, path string, err error) error {
	var ae *acp.Error
	if errors.As(err, &ae) && ae.Code == acp.CodeResourceNotFound {
		return fmt.Errorf("editor %s %s: %w (%s)", op, path, fs.ErrNotExist, ae.Message)
	}
	return fmt.Errorf("editor %s %s: %w", op, path, err)
}
