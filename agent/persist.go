package agent

import (
	"context"
	"errors"

	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
)

// persist queues a save of the session's new messages (and its metadata) on
// the store's writer; it does not wait for it. What is saved is read when the
// save runs, so that the saves of a busy session are batched; messages of a
// turn still running are left for the save at its end, so that one turn's
// messages stay together in the stored history even when another process
// appends to the session meanwhile.
func (s *Session) persist() {
	st := s.store
	if st == nil {
		return
	}
	s.mu.Lock()
	if s.savePending || (!s.cleared && !s.moved && s.saved == len(s.history)) {
		s.mu.Unlock()
		return
	}
	s.savePending = true
	s.mu.Unlock()
	st.Enqueue(s.save)
}

// save runs on the store's writer: it appends the messages not yet saved.
func (s *Session) save() {
	st := s.store
	s.mu.Lock()
	s.savePending = false
	end := len(s.history)
	if s.turnFrom >= 0 {
		end = min(end, s.turnFrom)
	}
	from, reset, moved, gen := s.saved, s.cleared, s.moved, s.resets
	if from > end || (from == end && !reset && !moved) {
		s.mu.Unlock()
		return
	}
	msgs := append([]model.Message(nil), s.history[from:end]...)
	rec := store.Record{ID: s.id, Cwd: s.cwd, Dirs: s.dirs, Title: s.title, Mode: s.mode, Model: s.modelName,
		Plan: storedPlan(s.plan), Created: s.created, Updated: s.updated}
	s.saved, s.cleared, s.moved = end, false, false
	s.mu.Unlock()
	defer releaseHugeSave(msgs)
	err := st.Save(context.Background(), rec, reset, msgs)
	if err == nil {
		return
	}
	var p *store.Problem
	if !errors.As(err, &p) {
		s.log.Error("persist session", "session", s.id, "error", err)
		st.ReportSaveFailure(err)
	}
	s.mu.Lock()
	if s.resets == gen { // not cleared meanwhile: try these again next time
		s.saved, s.cleared, s.moved = from, reset, moved
	}
	s.mu.Unlock()
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
