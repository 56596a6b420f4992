package agent

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
)

// LoadSession restores a stored session and replays its whole conversation
// as session/update notifications before answering; the slash commands
// follow the replay, also before the reply, so that nothing the client
// could take for part of the replay arrives after it.
func (a *Agent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.restore(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.McpServers)
	if err != nil {
		return nil, err
	}
	s.replay() // agent/replay.go
	s.sendCommands()
	return &acp.LoadSessionResponse{Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession restores a stored session without replaying it; the slash
// commands go before the reply, as on load.
func (a *Agent) ResumeSession(ctx context.Context, req *acp.ResumeSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.restore(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.McpServers)
	if err != nil {
		return nil, err
	}
	s.sendCommands()
	return &acp.LoadSessionResponse{Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// restore opens a live session from the store, on the workspace the client
// names now, with the MCP servers the request names. A session live in
// this process is saved first and replaced. Its mode, model and config
// options come back as they were stored.
func (a *Agent) restore(ctx context.Context, id, cwd string, dirs []string, mcpServers []acp.McpServer) (*Session, error) {
	if a.store == nil {
		return nil, acp.SessionNotFound(id)
	}
	a.mu.Lock()
	live := a.sessions[id]
	a.mu.Unlock()
	if live != nil {
		live.persist()
	}
	rec, msgs, err := a.store.Load(ctx, id)
	if errors.Is(err, store.ErrNoSession) {
		return nil, acp.SessionNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	s, err := a.openSession(ctx, id, cwd, dirs, mcpServers)
	if err != nil {
		return nil, err
	}
	// Messages about its MCP servers wait for the next prompt: after the
	// reply they could pass for part of the replay.
	s.mcp.holdUntilPrompt()
	s.mu.Lock()
	s.history = pairToolResults(msgs) // a kill during a tool call left it without a result
	s.saved = len(s.history)
	s.title = rec.Title
	s.plan = restoredPlan(rec.Plan)
	s.created, s.updated = rec.Created, rec.Updated
	if validMode(rec.Mode) {
		s.mode = rec.Mode
	}
	if rec.Model != "" && rec.Model != noModel {
		if setup := a.modelSetup(); setup.Provider != nil {
			for _, c := range modelChoices(setup.Name, setup.Choices) {
				if c == rec.Model {
					s.modelName = rec.Model
				}
			}
		}
	}
	if b := rec.Config[configTerminal]; b != "" && slices.Contains(a.opts.TerminalBackends.Names, b) {
		s.termBackend = b
	}
	if filepath.Clean(cwd) != rec.Cwd {
		s.moved = true // the session moved; record the new workspace
	}
	s.mu.Unlock()
	return s, nil
}

// ListSessions lists stored sessions, most recent first, 50 per page.
func (a *Agent) ListSessions(ctx context.Context, req *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	res := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	if a.store == nil {
		return res, nil
	}
	// Save live sessions first so the list reflects them.
	a.mu.Lock()
	live := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		live = append(live, s)
	}
	a.mu.Unlock()
	for _, s := range live {
		s.persist()
	}
	cwd, cursor := "", ""
	if req.Cwd != nil {
		if !filepath.IsAbs(*req.Cwd) {
			return nil, acp.InvalidParams("cwd: must be an absolute path, got %q", *req.Cwd)
		}
		cwd = filepath.Clean(*req.Cwd)
	}
	if req.Cursor != nil {
		cursor = *req.Cursor
	}
	recs, next, err := a.store.List(ctx, cwd, cursor)
	var off *store.Problem
	if errors.As(err, &off) {
		return res, nil // persistence is off: nothing to list (the chat says why)
	}
	if errors.Is(err, store.ErrCursor) {
		return nil, acp.InvalidParams("cursor: %q is not a cursor returned by session/list", cursor)
	}
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		info := acp.SessionInfo{SessionID: r.ID, Cwd: r.Cwd, AdditionalDirectories: r.Dirs}
		title := r.Title
		if title == "" {
			title = filepath.Base(r.Cwd)
		}
		at := r.Updated.UTC().Format(time.RFC3339)
		info.Title, info.UpdatedAt = &title, &at
		res.Sessions = append(res.Sessions, info)
	}
	if next != "" {
		res.NextCursor = &next
	}
	return res, nil
}

// DeleteSession closes the session if it is live and removes it from the
// store; deleting an unknown session succeeds.
func (a *Agent) DeleteSession(ctx context.Context, req *acp.SessionRequest) (*acp.Empty, error) {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s != nil {
		s.mu.Lock()
		s.deleted = true // never saved again
		s.mu.Unlock()
		s.close() // waits for its sender, so for a save under way
	}
	if a.store != nil {
		if err := a.store.Remove(ctx, req.SessionID); err != nil {
			return nil, err
		}
	}
	a.deleteCheckpoints(ctx, req.SessionID) // checkpoints (issue 29)
	return &acp.Empty{}, nil
}
