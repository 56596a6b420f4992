package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The phases of a turn's checkpoints.
const (
	// Before is the state before the turn's first change.
	Before = "before"
	// After is the state when the turn ended.
	After = "after"
)

// Mark describes a recorded state: whose turn, which side of it.
type Mark struct {
	Session string    `json:"session"`
	Turn    int       `json:"turn"`
	Phase   string    `json:"phase"`
	At      time.Time `json:"at"`
	// Prompt is the first line of the turn's prompt.
	Prompt string `json:"prompt,omitempty"`
	// History is the number of conversation messages before the turn's
	// prompt (where the conversation is cut to drop the turn).
	History int `json:"history"`
}

// Turn is one recorded turn of a session in a folder.
type Turn struct {
	Mark // of the Before state
	// Before and After are the commits of the states before the turn's
	// first change and at its end; After is "" when the turn never ended
	// (the agent stopped during it).
	Before, After string
}

// sessionName reports whether a session id is safe in a reference name:
// 1 to 128 ASCII letters, digits, '_' and '-'. (A package-level regexp of
// this, with its 128-fold repetition, cost 120 KB and 1 699 allocations at
// every process start.)
func sessionName(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func refPrefix(session string) (string, error) {
	if !sessionName(session) {
		return "", fmt.Errorf("checkpoint: session id %q cannot name a checkpoint", session)
	}
	return "refs/hermes/sessions/" + session + "/", nil
}

func refName(m Mark) (plumbing.ReferenceName, error) {
	p, err := refPrefix(m.Session)
	if err != nil {
		return "", err
	}
	return plumbing.ReferenceName(fmt.Sprintf("%s%06d/%s", p, m.Turn, m.Phase)), nil
}

var signature = object.Signature{Name: "Hermes Checkpoint", Email: "hermes@local"}

// Record snapshots the folder and records it as the state m names
// (replacing an earlier record of the same mark). It returns the state.
func (r *Repo) Record(ctx context.Context, m Mark) (*State, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	st, err := r.record(ctx, m)
	return st, r.check(err)
}

func (r *Repo) record(ctx context.Context, m Mark) (*State, error) {
	name, err := refName(m)
	if err != nil {
		return nil, err
	}
	st, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.commit(name, st.Tree, m); err != nil {
		return nil, err
	}
	return st, nil
}

func (r *Repo) commit(name plumbing.ReferenceName, tree string, m Mark) error {
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}
	sig := signature
	sig.When = m.At
	c := &object.Commit{
		Author:    sig,
		Committer: sig,
		Message:   fmt.Sprintf("turn %d %s: %s\n\n%s\n", m.Turn, m.Phase, m.Prompt, meta),
		TreeHash:  plumbing.NewHash(tree),
	}
	obj := r.st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return err
	}
	id, err := r.st.SetEncodedObject(obj)
	if err != nil {
		return fmt.Errorf("checkpoint: store a commit: %w", err)
	}
	if err := r.st.SetReference(plumbing.NewHashReference(name, id)); err != nil {
		return fmt.Errorf("checkpoint: set %s: %w", name, err)
	}
	return nil
}

// Finish records the state at the end of the turn m names (m.Phase is
// ignored). When the folder is as it was before the turn, nothing is kept:
// the turn's Before record is deleted and changed is false.
func (r *Repo) Finish(ctx context.Context, m Mark) (changed bool, err error) {
	if err := r.lock(ctx); err != nil {
		return false, err
	}
	defer r.unlock()
	changed, err = r.finish(ctx, m)
	return changed, r.check(err)
}

func (r *Repo) finish(ctx context.Context, m Mark) (bool, error) {
	m.Phase = Before
	before, err := refName(m)
	if err != nil {
		return false, err
	}
	ref, err := r.st.Reference(before)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, damage(err)
	}
	bc, err := object.GetCommit(r.st, ref.Hash())
	if err != nil {
		return false, damage(err)
	}
	st, err := r.snapshot(ctx)
	if err != nil {
		return false, err
	}
	if st.Tree == bc.TreeHash.String() {
		return false, r.st.RemoveReference(before)
	}
	m.Phase = After
	after, _ := refName(m)
	return true, r.commit(after, st.Tree, m)
}

// Turns returns the recorded turns of session, oldest first.
func (r *Repo) Turns(ctx context.Context, session string) ([]Turn, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	turns, err := r.turns(session)
	return turns, r.check(err)
}

func (r *Repo) turns(session string) ([]Turn, error) {
	prefix, err := refPrefix(session)
	if err != nil {
		return nil, err
	}
	byTurn := map[int]*Turn{}
	refs, err := r.st.IterReferences()
	if err != nil {
		return nil, damage(err)
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().String()
		if !strings.HasPrefix(name, prefix) || ref.Type() != plumbing.HashReference {
			return nil
		}
		num, phase, ok := strings.Cut(strings.TrimPrefix(name, prefix), "/")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil
		}
		t := byTurn[n]
		if t == nil {
			t = &Turn{}
			byTurn[n] = t
		}
		switch phase {
		case Before:
			c, err := object.GetCommit(r.st, ref.Hash())
			if err != nil {
				return damage(fmt.Errorf("read %s: %w", name, err))
			}
			_, meta, _ := strings.Cut(c.Message, "\n\n")
			if err := json.Unmarshal([]byte(strings.TrimSpace(meta)), &t.Mark); err != nil {
				return damage(fmt.Errorf("read %s: %w", name, err))
			}
			t.Before = ref.Hash().String()
		case After:
			t.After = ref.Hash().String()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Turn, 0, len(byTurn))
	for _, t := range byTurn {
		if t.Before != "" { // an After without its Before is left over
			out = append(out, *t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Turn < out[j].Turn })
	return out, nil
}

// State reads the state recorded by the commit id back.
func (r *Repo) State(ctx context.Context, commit string) (*State, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	c, err := object.GetCommit(r.st, plumbing.NewHash(commit))
	if err != nil {
		return nil, r.check(damage(fmt.Errorf("read commit %s: %w", commit, err)))
	}
	st, err := r.readState(c.TreeHash)
	return st, r.check(err)
}

// Current snapshots the folder as it is now, without recording it as a
// turn's state: its files can be compared with recorded ones and read
// with Content.
func (r *Repo) Current(ctx context.Context) (*State, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	st, err := r.snapshot(ctx)
	return st, r.check(err)
}

// Content returns the content of the file f of a state.
func (r *Repo) Content(ctx context.Context, f File) ([]byte, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	b, err := r.blob(f.ID)
	return b, r.check(err)
}

// DropTurns deletes the records of session's turns from turn on (they were
// undone).
func (r *Repo) DropTurns(ctx context.Context, session string, from int) error {
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	return r.check(r.dropRefs(session, func(turn int) bool { return turn >= from }))
}

// DeleteSession deletes every record of session and frees the storage
// nothing else uses.
func (r *Repo) DeleteSession(ctx context.Context, session string) error {
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	if err := r.dropRefs(session, func(int) bool { return true }); err != nil {
		return r.check(err)
	}
	return r.check(r.prune())
}

func (r *Repo) dropRefs(session string, drop func(turn int) bool) error {
	prefix, err := refPrefix(session)
	if err != nil {
		return err
	}
	refs, err := r.st.IterReferences()
	if err != nil {
		return damage(err)
	}
	var names []plumbing.ReferenceName
	_ = refs.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().String()
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			num, _, _ := strings.Cut(rest, "/")
			if n, err := strconv.Atoi(num); err == nil && drop(n) {
				names = append(names, ref.Name())
			}
		}
		return nil
	})
	for _, n := range names {
		if err := r.st.RemoveReference(n); err != nil {
			return fmt.Errorf("checkpoint: delete %s: %w", n, err)
		}
	}
	return nil
}
