package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Env is the per-session environment tools receive (through
// Options.ToolEnv, as registry.Call.Env): the workspace, file access through
// the editor or the disk, read/write state, and the editor-facing services
// (edit approval, tool-call progress, diagnostics). It is safe for
// concurrent use.
type Env struct {
	s     *Session
	files *workspace.Files
	state *workspace.State
	lint  linted
	wg    sync.WaitGroup // the watcher's start-up goroutine and LearnLint's

	mu     sync.Mutex // guards values
	values map[any]any
}

func newEnv(s *Session) *Env {
	caps := s.client.Capabilities()
	ed := &editorFS{client: s.client, sessionID: s.id}
	return &Env{
		s:      s,
		files:  workspace.NewFiles(s.ws, ed, caps.FS.ReadTextFile, caps.FS.WriteTextFile),
		state:  workspace.NewState(s.ws),
		values: map[any]any{},
	}
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
	if e.s.pipe == nil {
		return "", false
	}
	return e.s.pipe.SavedResult(path)
}

// Mode returns the session's current mode.
func (e *Env) Mode() string { return e.s.Mode() }

// editorFS implements workspace.Editor over the ACP client.
type editorFS struct {
	client    *acp.Client
	sessionID string
}

func (f *editorFS) ReadTextFile(ctx context.Context, absPath string) (string, error) {
	res, err := f.client.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: f.sessionID, Path: absPath})
	if err != nil {
		return "", editorError("read", absPath, err)
	}
	return res.Content, nil
}

func (f *editorFS) WriteTextFile(ctx context.Context, absPath, content string) error {
	if err := f.client.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: f.sessionID, Path: absPath, Content: content}); err != nil {
		return editorError("write", absPath, err)
	}
	return nil
}

// editorError maps the editor's "resource not found" to fs.ErrNotExist.
func editorError(op, path string, err error) error {
	var ae *acp.Error
	if errors.As(err, &ae) && ae.Code == acp.CodeResourceNotFound {
		return fmt.Errorf("editor %s %s: %w (%s)", op, path, fs.ErrNotExist, ae.Message)
	}
	return fmt.Errorf("editor %s %s: %w", op, path, err)
}
