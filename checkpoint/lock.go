package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// lockName is the file in the shadow repository that hermes-acp processes
// lock (flock) around each operation, so that two processes recording the
// same folder take turns instead of interleaving their writes.
const lockName = "hermes.lock"

// lockRepo takes the cross-process lock of the repository, waiting for
// another process's operation to end; it gives up when ctx ends. The lock
// is on the file now at the path: when the repository was moved aside
// (damaged) while this process waited, the new repository's file is locked.
func (r *Repo) lockRepo(ctx context.Context) error {
	path := filepath.Join(r.dir, lockName)
	for {
		if err := os.MkdirAll(r.dir, 0o700); err != nil {
			return fmt.Errorf("checkpoint: lock %s: %w", r.dir, err)
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("checkpoint: lock %s: %w", r.dir, err)
		}
		if err := waitLock(ctx, f); err != nil {
			f.Close()
			return err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			r.lockf = f
			return nil
		}
		unlockFile(f)
		f.Close()
	}
}

// waitLock takes the lock of f, trying again with a growing pause (up to
// 50 ms) while another process holds it.
func waitLock(ctx context.Context, f *os.File) error {
	pause := time.Millisecond
	for {
		ok, err := tryLockFile(f)
		if err != nil {
			return fmt.Errorf("checkpoint: lock %s: %w", f.Name(), err)
		}
		if ok {
			return nil
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// unlockRepo releases the cross-process lock.
func (r *Repo) unlockRepo() {
	if r.lockf == nil {
		return
	}
	unlockFile(r.lockf)
	r.lockf.Close()
	r.lockf = nil
}

// cacheStamp identifies the stat cache file as one process last saw it.
type cacheStamp struct {
	exists bool
	fi     os.FileInfo
}

func (r *Repo) statStamp() cacheStamp {
	fi, err := os.Stat(filepath.Join(r.dir, statFile))
	if err != nil {
		return cacheStamp{}
	}
	return cacheStamp{exists: true, fi: fi}
}

func (s cacheStamp) same(o cacheStamp) bool {
	if !s.exists || !o.exists {
		return s.exists == o.exists
	}
	return os.SameFile(s.fi, o.fi) && s.fi.Size() == o.fi.Size() && s.fi.ModTime().Equal(o.fi.ModTime())
}

// refresh forgets what this process remembers of the repository (the stat
// cache, the trees known to be stored) when another process changed it
// since: its snapshot may have written a new stat cache, its prune may
// have deleted objects this process's cache names.
func (r *Repo) refresh() {
	if now := r.statStamp(); !now.same(r.stamp) {
		r.stats = nil // read again by the next snapshot
		r.trees = map[plumbing.Hash]bool{}
		r.stamp = now
	}
}
