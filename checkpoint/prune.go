package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Size returns the bytes the shadow repository takes on disk.
func (r *Repo) Size(ctx context.Context) (int64, error) {
	if err := r.lock(ctx); err != nil {
		return 0, err
	}
	defer r.unlock()
	return dirSize(r.dir)
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // removed meanwhile
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}

// Enforce keeps the repository within Options.MaxTotalBytes: while it is
// larger, the checkpoints of the session whose newest checkpoint is oldest
// are deleted, then (keep's own last) the oldest turns of keep, the
// session that is recording; keep's newest turn is never deleted. It
// returns the sessions whose checkpoints were deleted in full.
func (r *Repo) Enforce(ctx context.Context, keep string) ([]string, error) {
	max := r.m.opts.MaxTotalBytes
	if max < 0 {
		return nil, nil
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	size, err := dirSize(r.dir)
	if err != nil || size <= max {
		return nil, err
	}
	sessions, err := r.sessionAges()
	if err != nil {
		return nil, r.check(err)
	}
	var dropped []string
	for _, s := range sessions {
		if s.id == keep {
			continue
		}
		if err := r.dropRefs(s.id, func(int) bool { return true }); err != nil {
			return dropped, err
		}
		dropped = append(dropped, s.id)
		if err := r.prune(); err != nil {
			return dropped, r.check(err)
		}
		if size, err = dirSize(r.dir); err != nil || size <= max {
			return dropped, err
		}
	}
	turns, err := r.turns(keep)
	if err != nil {
		return dropped, r.check(err)
	}
	for i := 0; i < len(turns)-1 && size > max; i++ {
		n := turns[i].Turn
		if err := r.dropRefs(keep, func(t int) bool { return t == n }); err != nil {
			return dropped, err
		}
		if err := r.prune(); err != nil {
			return dropped, r.check(err)
		}
		if size, err = dirSize(r.dir); err != nil {
			return dropped, err
		}
	}
	if size > max {
		r.m.log.Warn("checkpoint repository stays over its size limit; the newest turn is kept", "dir", r.dir, "bytes", size, "limit", max)
	}
	return dropped, nil
}

type sessionAge struct {
	id     string
	newest time.Time
}

// sessionAges lists the sessions with checkpoints, the one whose newest
// checkpoint is oldest first.
func (r *Repo) sessionAges() ([]sessionAge, error) {
	refs, err := r.st.IterReferences()
	if err != nil {
		return nil, damage(err)
	}
	newest := map[string]time.Time{}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		rest, ok := strings.CutPrefix(ref.Name().String(), "refs/hermes/sessions/")
		if !ok || ref.Type() != plumbing.HashReference {
			return nil
		}
		id, _, _ := strings.Cut(rest, "/")
		c, err := object.GetCommit(r.st, ref.Hash())
		if err != nil {
			return damage(fmt.Errorf("read %s: %w", ref.Name(), err))
		}
		if t, seen := newest[id]; !seen || c.Committer.When.After(t) {
			newest[id] = c.Committer.When
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]sessionAge, 0, len(newest))
	for id, t := range newest {
		out = append(out, sessionAge{id: id, newest: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].newest.Before(out[j].newest) })
	return out, nil
}

// prune deletes the objects no checkpoint reaches any more, and forgets
// the stat cache (it may name deleted blobs).
func (r *Repo) prune() error {
	defer r.dropStats()
	seen := map[plumbing.Hash]bool{}
	var walkTree func(id plumbing.Hash) error
	walkTree = func(id plumbing.Hash) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		t, err := object.GetTree(r.st, id)
		if err != nil {
			return damage(fmt.Errorf("read tree %s: %w", id, err))
		}
		for _, e := range t.Entries {
			if e.Mode == filemode.Dir {
				if err := walkTree(e.Hash); err != nil {
					return err
				}
			} else {
				seen[e.Hash] = true
			}
		}
		return nil
	}
	refs, err := r.st.IterReferences()
	if err != nil {
		return damage(err)
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference {
			return nil
		}
		c, err := object.GetCommit(r.st, ref.Hash())
		if err != nil {
			return damage(fmt.Errorf("read %s: %w", ref.Name(), err))
		}
		seen[c.Hash] = true
		return walkTree(c.TreeHash)
	})
	if err != nil {
		return err
	}
	var unreached []plumbing.Hash
	if err := r.st.ForEachObjectHash(func(h plumbing.Hash) error {
		if !seen[h] {
			unreached = append(unreached, h)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("checkpoint: prune %s: %w", r.dir, err)
	}
	for _, h := range unreached {
		if err := r.st.DeleteLooseObject(h); err != nil {
			return fmt.Errorf("checkpoint: prune %s: %w", r.dir, err)
		}
	}
	return nil
}
