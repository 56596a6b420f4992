package agent

import (
	"context"
	"errors"

	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
)

// Saves are synchronous, so that a session survives the agent being killed
// (an editor closing its window may kill -9 its agent): every message is in
// the database before the next update about the session is sent to the
// editor (the session's sender, agent/sender.go, saves before it writes),
// the prompt's reply waits for the save at the end of the turn, and so at
// most the event in flight — the model reply being streamed, a tool still
// running — is lost. One save is one SQLite transaction holding every
// message not yet saved, so writes are grouped, never delayed. WAL with
// synchronous=NORMAL makes a committed transaction survive the process
// being killed (not a power cut). Saves run on the sender's goroutine, one
// at a time and in order with the updates; no lock is held while one runs.
//
// A session is stored from session/new on (its row: workspace, mode,
// config options), so that it can be loaded or resumed before its first
// prompt, also by another process; every change of its mode or config
// options is saved before the reply.

// persist saves the session's new messages (and its metadata) after the
// updates queued before, and waits for it. A failed save is kept for the
// next persist.
func (s *Session) persist() {
	if s.store != nil {
		s.out.persist()
	}
}

// markChanged records that the session's row (workspace, mode, config
// options) changed, for the next save.
func (s *Session) markChanged() {
	s.mu.Lock()
	s.moved = true
	s.mu.Unlock()
}

// save appends the messages not yet saved; only the sender calls it, so
// saves of a session run one at a time, in order. retry: an explicit
// persist, tried even after a failure; otherwise (before an update) a
// failed save leaves them for the next persist (the end of the turn), so
// that a database locked by another process or a full disk does not stall
// every update.
func (s *Session) save(ctx context.Context, retry bool) {
	st := s.store
	if st == nil {
		return
	}
	s.mu.Lock()
	from, reset, moved, gen := s.saved, s.cleared, s.moved, s.resets
	end := len(s.history)
	if s.deleted || (s.saveFailed && !retry) || (from >= end && !reset && !moved) {
		s.mu.Unlock()
		return
	}
	msgs := append([]model.Message(nil), s.history[from:end]...)
	rec := store.Record{ID: s.id, Cwd: s.cwd, Dirs: s.dirs, Title: s.title, Mode: s.mode, Model: s.modelName,
		Plan: storedPlan(s.plan), Config: s.storedConfig(), Created: s.created, Updated: s.updated}
	s.saved, s.cleared, s.moved = end, false, false
	s.mu.Unlock()
	defer releaseHugeSave(msgs)
	err := st.Save(ctx, rec, reset, msgs)
	s.mu.Lock()
	s.saveFailed = err != nil
	if err != nil && s.resets == gen { // not cleared meanwhile: try these again next time
		s.saved, s.cleared, s.moved = from, reset, moved
	}
	s.mu.Unlock()
	if err == nil {
		return
	}
	var p *store.Problem
	if !errors.As(err, &p) {
		s.log.Error("persist session", "session", s.id, "error", err)
		st.ReportSaveFailure(err)
	}
}

// storedConfig is the session's config options other than mode and model,
// as the store keeps them; s.mu is held.
func (s *Session) storedConfig() map[string]string {
	if s.termBackend == "" {
		return nil
	}
	return map[string]string{configTerminal: s.termBackend}
}

// resetStored clears the history after /reset; the stored history is
// deleted at the next save.
func (s *Session) resetStored() {
	s.mu.Lock()
	s.history = nil
	s.saved = 0
	s.cleared = true
	s.resets++
	s.mu.Unlock()
}

// storedPlan is the plan as the store keeps it (never nil: an empty plan is
// stored as []).
func storedPlan(plan []todoItem) []store.PlanItem {
	out := make([]store.PlanItem, len(plan))
	for i, it := range plan {
		out[i] = store.PlanItem(it)
	}
	return out
}

// restoredPlan is the inverse of storedPlan.
func restoredPlan(plan []store.PlanItem) []todoItem {
	if plan == nil {
		return nil
	}
	out := make([]todoItem, len(plan))
	for i, it := range plan {
		out[i] = todoItem(it)
	}
	return out
}

// interruptedResult is the result given, on load, to a tool call whose
// result was never saved: the agent was killed while the tool ran.
const interruptedResult = `{"error":"Not run to completion: the agent stopped (its process ended) before this tool call finished. Run it again if it is still needed."}`

// pairToolResults returns the history with a result for every tool call:
// a session saved as it went and killed during a tool call (agent/persist.go)
// has an assistant message whose calls have no result, which providers
// refuse. The added results follow the calls' message, in call order; the
// stored history is left as it is (every load adds them again).
func pairToolResults(msgs []model.Message) []model.Message {
	var out []model.Message
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if out != nil {
			out = append(out, m)
		}
		if m.Role != model.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == model.RoleTool; j++ {
			answered[msgs[j].ToolCallID] = true
		}
		var missing []model.Message
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				missing = append(missing, model.Message{Role: model.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: interruptedResult, IsError: true})
			}
		}
		if len(missing) == 0 {
			continue
		}
		if out == nil {
			out = append([]model.Message(nil), msgs[:i+1]...)
		}
		out = append(out, msgs[i+1:j]...)
		out = append(out, missing...)
		i = j - 1
	}
	if out == nil {
		return msgs
	}
	return out
}
