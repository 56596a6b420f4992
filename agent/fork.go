package agent

import (
	"context"
	"errors"
	"slices"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/compress"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
)

// Fork (the unstable session/fork, advertised in sessionCapabilities.fork):
// a new session, with a fresh id, holding a copy of another's conversation,
// mode, model and terminal backend, titled like it with forkSuffix. The
// source may be live in this process or only stored; it is left as it was.
// With _meta.hermes.forkAt naming a message (a messageId the session's
// replay carries), the copy ends with the turn that message belongs to: a
// turn is a prompt and everything after it up to the next prompt, so the
// fork never ends on an unanswered prompt or tool call. The fork is saved at
// once, so session/list shows it and session/load (in any process) replays
// it. The copied messages get fresh ids: the fork's own replay names them.

// forkSuffix ends a fork's title.
const forkSuffix = " (fork)"

// forkSource is what a fork copies of its source session.
type forkSource struct {
	history     []model.Message
	title       string
	mode, model string
	termBackend string
	plan        []todoItem
	comp        compress.State // live sessions only
}

// ForkSession copies a session into a new one.
func (a *Agent) ForkSession(ctx context.Context, req *acp.ForkSessionRequest) (*acp.NewSessionResponse, error) {
	at, err := forkAt(req.Meta)
	if err != nil {
		return nil, err
	}
	src, err := a.forkSource(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	history := src.history
	whole := at == ""
	if !whole {
		end, ok := forkEnd(history, at)
		if !ok {
			return nil, acp.InvalidParams("_meta.hermes.forkAt: session %s has no message %q (pass a messageId of its session/load replay)", req.SessionID, at)
		}
		whole = end == len(history)
		history = history[:end]
	}
	s, err := a.openSession(ctx, newSessionID(), req.Cwd, req.AdditionalDirectories, req.McpServers)
	if err != nil {
		return nil, err
	}
	title := src.title
	if title == "" {
		title = titleFrom(history)
	}
	if title != "" {
		title += forkSuffix
	}
	s.mu.Lock()
	s.history = freshMessageIDs(pairToolResults(history))
	s.saved = 0
	s.title = title
	if validMode(src.mode) {
		s.mode = src.mode
	}
	if src.model != "" && src.model != noModel {
		if setup := a.modelSetup(); setup.Provider != nil && slices.Contains(modelChoices(setup.Name, setup.Choices), src.model) {
			s.modelName = src.model
		}
	}
	if src.termBackend != "" && slices.Contains(a.opts.TerminalBackends.Names, src.termBackend) {
		s.termBackend = src.termBackend
	}
	if whole {
		// The plan and the compression are the source's latest; a fork at
		// an earlier message starts without them.
		s.plan = append([]todoItem(nil), src.plan...)
		s.comp = src.comp
	}
	s.mu.Unlock()
	s.persist()
	acp.AfterReply(ctx, s.sendCommands) // as session/new does: the client learns the id from the reply
	return &acp.NewSessionResponse{SessionID: s.id, Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// forkAt returns _meta.hermes.forkAt, "" when absent.
func forkAt(meta acp.Meta) (string, error) {
	h, ok := meta["hermes"].(map[string]any)
	if !ok {
		return "", nil
	}
	v, ok := h["forkAt"]
	if !ok || v == nil {
		return "", nil
	}
	at, ok := v.(string)
	if !ok || at == "" {
		return "", acp.InvalidParams("_meta.hermes.forkAt: must be a messageId (a non-empty string), got %v", v)
	}
	return at, nil
}

// forkSource returns the source session: the live one (its history as it is
// now, a running turn's messages so far included; a call still running gets
// pairToolResults's "not run to completion" in the copy) or the stored one.
func (a *Agent) forkSource(ctx context.Context, id string) (forkSource, error) {
	a.mu.Lock()
	live := a.sessions[id]
	a.mu.Unlock()
	if live != nil {
		live.mu.Lock()
		defer live.mu.Unlock()
		return forkSource{history: append([]model.Message(nil), live.history...), title: live.title,
			mode: live.mode, model: live.modelName, termBackend: live.termBackend, plan: live.plan, comp: live.comp}, nil
	}
	if a.store == nil {
		return forkSource{}, acp.SessionNotFound(id)
	}
	rec, msgs, err := a.store.Load(ctx, id)
	if errors.Is(err, store.ErrNoSession) {
		return forkSource{}, acp.SessionNotFound(id)
	}
	var off *store.Problem
	if errors.As(err, &off) {
		return forkSource{}, acp.SessionNotFound(id) // persistence is off (the chat says why)
	}
	if err != nil {
		return forkSource{}, err
	}
	return forkSource{history: msgs, title: rec.Title, mode: rec.Mode, model: rec.Model, plan: restoredPlan(rec.Plan)}, nil
}

// forkEnd returns the length of the history a fork at message id keeps:
// through the end of the turn holding it. A turn ends where the next prompt
// starts: a user message with an id (what the agent adds to the
// conversation as user messages, announcements and /steer guidance, has
// none).
func forkEnd(history []model.Message, id string) (int, bool) {
	for i, m := range history {
		if m.ID == "" || (m.Role != model.RoleUser && m.Role != model.RoleAssistant) {
			continue
		}
		if m.ID != id && m.ID+thoughtIDSuffix != id {
			continue
		}
		j := i + 1
		for j < len(history) && (history[j].Role != model.RoleUser || history[j].ID == "") {
			j++
		}
		return j, true
	}
	return 0, false
}

// freshMessageIDs returns a copy of msgs whose messages with an ID have a
// new one.
func freshMessageIDs(msgs []model.Message) []model.Message {
	out := append([]model.Message(nil), msgs...)
	for i := range out {
		if out[i].ID != "" {
			out[i].ID = newMessageID()
		}
	}
	return out
}

var _ acp.Forker = (*Agent)(nil)
