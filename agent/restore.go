package agent

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// LoadSession restores a stored session and replays its whole conversation
// as session/update notifications before answering.
func (a *Agent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.restore(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.McpServers)
	if err != nil {
		return nil, err
	}
	s.replay()
	s.announce(ctx)
	return &acp.LoadSessionResponse{Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession restores a stored session without replaying it.
func (a *Agent) ResumeSession(ctx context.Context, req *acp.ResumeSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.restore(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.McpServers)
	if err != nil {
		return nil, err
	}
	s.announce(ctx)
	return &acp.LoadSessionResponse{Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// restore opens a live session from the store, on the workspace the client
// names now, with the MCP servers the request names.
func (a *Agent) restore(ctx context.Context, id, cwd string, dirs []string, mcpServers []acp.McpServer) (*Session, error) {
	if a.store == nil {
		return nil, acp.SessionNotFound(id)
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
	if filepath.Clean(cwd) != rec.Cwd {
		s.moved = true // the session moved; record the new workspace
	}
	s.mu.Unlock()
	return s, nil
}

// replay streams the stored conversation: user messages, reasoning before
// the answer it led to, tool calls with their results, and the plan.
func (s *Session) replay() {
	s.mu.Lock()
	history := append([]model.Message(nil), s.history...)
	plan := append([]todoItem(nil), s.plan...)
	s.mu.Unlock()
	results := map[string]model.Message{}
	for _, m := range history {
		if m.Role == model.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	for _, m := range history {
		switch m.Role {
		case model.RoleUser:
			id := newMessageID()
			if m.Content != "" {
				s.send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(m.Content), MessageID: &id}})
			}
			s.replayImages(m, id) // agent/vision.go
		case model.RoleAssistant:
			if m.Thought != "" {
				id := newMessageID()
				s.send(acp.SessionUpdate{AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock(m.Thought), MessageID: &id}})
			}
			if m.Content != "" {
				id := newMessageID()
				s.send(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(m.Content), MessageID: &id}})
			}
			for _, c := range m.ToolCalls {
				s.replayToolCall(c, results)
			}
		}
	}
	if len(plan) > 0 {
		s.send(acp.SessionUpdate{Plan: planUpdate(plan)})
	}
}

// replayToolCall shows a stored tool call and its result. Only the result's
// text and failure flag are stored, so tools' own renderings (which need
// their typed results) give way to the generic one.
func (s *Session) replayToolCall(c model.ToolCall, results map[string]model.Message) {
	t := &toolCallTracker{s: s, id: c.ID, name: c.Name, raw: c.Arguments}
	if s.reg != nil {
		t.entry, _ = s.reg.Snapshot().Lookup(c.Name)
	}
	args := parseArgsLenient(c.Arguments)
	s.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: c.ID, Title: t.title(args), Kind: t.kind(), Status: acp.StatusPending,
		Locations: t.pathLocations(args), RawInput: rawInput(args, c.Arguments),
	}})
	m, ok := results[c.ID]
	out := registry.Outcome{Content: m.Content, Failed: !ok || m.IsError}
	status := acp.StatusCompleted
	if out.Failed {
		status = acp.StatusFailed
	}
	t.entry.Render = nil
	s.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: c.ID, Status: status, Content: t.completion(args, out)}})
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
		s.history = nil // nothing left to persist on close
		s.saved, s.cleared, s.moved = 0, false, false
		s.mu.Unlock()
		s.close()
		s.saveMu.Lock() // a save under way must not bring it back
		s.saveMu.Unlock()
	}
	if a.store != nil {
		if err := a.store.Remove(ctx, req.SessionID); err != nil {
			return nil, err
		}
	}
	a.deleteCheckpoints(ctx, req.SessionID) // checkpoints (issue 29)
	return &acp.Empty{}, nil
}
