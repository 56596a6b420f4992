package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/checkpoint"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// checkpointTimeout bounds the end-of-turn record, which runs after the
// turn's context may have ended.
const checkpointTimeout = 2 * time.Minute

// checkpoints is a session's use of the checkpoint engine (issue 29): the
// workspace roots are recorded before the first tool of a turn whose entry
// says it can change files (registry.Entry.ChangesFiles), checked by a
// pipeline hook every call passes, and again when the turn ends; a turn
// that changed nothing keeps no record. /rewind, /undo and the
// _hermes/rewind/* methods read and restore them (agent/rewind.go). Its
// methods are safe for concurrent use.
type checkpoints struct {
	s *Session
	m *checkpoint.Manager

	mu       sync.Mutex // guards the fields below
	next     int        // the next turn number; 0: not read from the repositories yet
	cur      *checkpointTurn
	reported map[string]bool // problems already shown to the user
}

// checkpointTurn is the running turn's record.
type checkpointTurn struct {
	mark  checkpoint.Mark
	once  sync.Once
	repos []*checkpoint.Repo // the roots whose Before was recorded; written in once
}

func newCheckpoints(s *Session, m *checkpoint.Manager) *checkpoints {
	if m == nil {
		return nil
	}
	return &checkpoints{s: s, m: m, reported: map[string]bool{}}
}

// checkpointTurn starts the turn of msg (before it joins the history) and
// returns the func that ends it.
func (s *Session) checkpointTurn(msg model.Message) func() {
	c := s.ckpt
	if c == nil {
		return func() {}
	}
	s.mu.Lock()
	history := len(s.history)
	s.mu.Unlock()
	line, _, _ := strings.Cut(strings.TrimSpace(msg.Content), "\n")
	t := &checkpointTurn{mark: checkpoint.Mark{Session: s.id, Phase: checkpoint.Before, Prompt: truncateRunes(strings.TrimSpace(line), 120), History: history}}
	c.mu.Lock()
	c.cur = t
	c.mu.Unlock()
	return func() { c.end(t) }
}

// checkpointHook records the workspace before the first call of the turn
// to a tool that can change files.
func (s *Session) checkpointHook() registry.Hook {
	if s.ckpt == nil {
		return nil
	}
	return registry.HookFuncs{PreFunc: func(ctx context.Context, call *registry.Call) (bool, string) {
		if s.reg == nil {
			return false, ""
		}
		if e, ok := s.reg.Snapshot().Lookup(call.Name); ok && e.ChangesFiles {
			s.ckpt.ensure(ctx)
		}
		return false, ""
	}}
}

// ensure records the Before state of the running turn once; concurrent
// calls wait for it. It never blocks the call: a failure is reported.
func (c *checkpoints) ensure(ctx context.Context) {
	c.mu.Lock()
	t := c.cur
	c.mu.Unlock()
	if t == nil {
		return
	}
	t.once.Do(func() { c.take(ctx, t) })
}

func (c *checkpoints) take(ctx context.Context, t *checkpointTurn) {
	t.mark.Turn = c.nextTurn(ctx)
	t.mark.At = c.s.a.now().UTC()
	for _, root := range c.s.ws.Roots() {
		repo, err := c.m.Repo(root)
		if err == nil {
			_, err = repo.Record(ctx, t.mark)
			var ce *checkpoint.CorruptError
			if errors.As(err, &ce) {
				c.report(root, err) // moved aside: the new repository records this turn
				_, err = repo.Record(ctx, t.mark)
			}
		}
		if err != nil {
			c.report(root, err)
			continue
		}
		t.repos = append(t.repos, repo)
	}
}

// nextTurn takes the next turn number: one more than the session's last
// recorded turn (read from the repositories the first time).
func (c *checkpoints) nextTurn(ctx context.Context) int {
	c.mu.Lock()
	n := c.next
	c.mu.Unlock()
	if n == 0 {
		n = 1
		for _, root := range c.s.ws.Roots() {
			repo, err := c.m.Repo(root)
			if err != nil {
				continue
			}
			turns, err := repo.Turns(ctx, c.s.id)
			if err == nil && len(turns) > 0 {
				n = max(n, turns[len(turns)-1].Turn+1)
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next > n {
		n = c.next
	}
	c.next = n + 1
	return n
}

// end records the After state of a turn that recorded its Before, and keeps
// each root's storage within its bound.
func (c *checkpoints) end(t *checkpointTurn) {
	c.mu.Lock()
	if c.cur == t {
		c.cur = nil
	}
	c.mu.Unlock()
	t.once.Do(func() {}) // waits for a record under way; none can start now
	if len(t.repos) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkpointTimeout)
	defer cancel()
	changed := false
	for _, repo := range t.repos {
		ch, err := repo.Finish(ctx, t.mark)
		if err != nil {
			c.report(repo.Root(), err)
			continue
		}
		if !ch {
			continue
		}
		changed = true
		dropped, err := repo.Enforce(ctx, c.s.id)
		if err != nil {
			c.s.log.Warn("checkpoint storage bound", "root", repo.Root(), "error", err)
		}
		if len(dropped) > 0 {
			c.s.log.Info("checkpoints of older sessions deleted to stay within checkpoints.max_total_size_mb", "root", repo.Root(), "sessions", dropped)
		}
	}
	if !changed {
		c.mu.Lock()
		if c.next == t.mark.Turn+1 {
			c.next = t.mark.Turn // nothing recorded: the number is free again
		}
		c.mu.Unlock()
	}
}

// report logs a checkpoint failure and tells the user once per kind of
// problem; the turn goes on either way.
func (c *checkpoints) report(root string, err error) {
	if errors.Is(err, checkpoint.ErrTooBroad) {
		c.s.log.Debug("checkpoints skipped", "root", root, "reason", err)
		return
	}
	c.s.log.Warn("checkpoint failed", "session", c.s.id, "root", root, "error", err)
	var ce *checkpoint.CorruptError
	key := "other:" + root
	text := fmt.Sprintf("\n\n⚠️ No checkpoint of %s this turn: %v. The turn goes on; /rewind cannot undo its changes there.\n\n", root, err)
	switch {
	case errors.As(err, &ce):
		key = "corrupt:" + ce.MovedTo
		text = fmt.Sprintf("\n\n⚠️ Checkpoints of %s: %v.\n\n", root, err)
	case errors.Is(err, checkpoint.ErrTooManyFiles):
		key = "many:" + root
	case errors.Is(err, context.Canceled):
		return
	}
	c.mu.Lock()
	seen := c.reported[key]
	c.reported[key] = true
	c.mu.Unlock()
	if !seen {
		c.s.sendText(text)
	}
}

// hermesCapabilities is agentCapabilities._meta.hermes: our extensions.
func (a *Agent) hermesCapabilities() map[string]any {
	caps := map[string]any{"diagnostics": true}
	if a.opts.Checkpoints != nil {
		caps["rewind"] = true // _hermes/rewind/list and _hermes/rewind/apply (agent/rewind.go)
	}
	return caps
}

// deleteCheckpoints deletes a deleted session's checkpoints; a failure is
// logged (the session itself is gone).
func (a *Agent) deleteCheckpoints(ctx context.Context, session string) {
	if a.opts.Checkpoints == nil {
		return
	}
	if err := a.opts.Checkpoints.DeleteSession(ctx, session); err != nil {
		a.log.Warn("delete the session's checkpoints", "session", session, "error", err)
	}
}
