package workspace

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// maxStatePaths bounds the paths a State remembers, as hermes bounds its
// per-agent read stamps; the oldest entries are dropped first.
const maxStatePaths = 4096

// stamp is what the agent last knew about a file.
type stamp struct {
	modTime time.Time
	size    int64
	sum     [sha256.Size]byte
	partial bool
	changed bool   // the watcher reported a change since the stamp was taken
	seq     uint64 // insertion order, for eviction
}

// State records, for one session, what the agent last read or wrote of each
// file, so that a write can warn when the file changed on disk in between
// (hermes's staleness guard). It is safe for concurrent use.
type State struct {
	w *Workspace

	mu      sync.Mutex // guards entries, nextSeq
	entries map[string]*stamp
	nextSeq uint64
}

// NewState returns an empty State for the files of w.
func NewState(w *Workspace) *State {
	return &State{w: w, entries: make(map[string]*stamp)}
}

// RecordRead notes that the agent has seen content as the current text of
// p. partial is true when the model was shown only a window of it (offset
// or limit pagination, or truncation). The file's modification time and
// size are taken from the disk now; a file that cannot be stat'ed is not
// recorded.
func (s *State) RecordRead(p Path, content []byte, partial bool) {
	s.record(p, content, partial)
}

// RecordWrite notes that the agent itself has just written content to p,
// so that its own write is not reported as an external change. A write is
// an implicit full read.
func (s *State) RecordWrite(p Path, content []byte) {
	s.record(p, content, false)
}

func (s *State) record(p Path, content []byte, partial bool) {
	fi, err := s.w.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	st := &stamp{modTime: fi.ModTime(), size: fi.Size(), sum: sha256.Sum256(content), partial: partial}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.seq = s.nextSeq
	s.nextSeq++
	s.entries[p.abs] = st
	if len(s.entries) > maxStatePaths {
		oldest, oldestSeq := "", ^uint64(0)
		for k, v := range s.entries {
			if v.seq < oldestSeq {
				oldest, oldestSeq = k, v.seq
			}
		}
		delete(s.entries, oldest)
	}
}

// Forget drops what is known about p, for example after the agent deleted
// or moved it.
func (s *State) Forget(p Path) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, p.abs)
}

// MarkChanged is the watcher's feed: it notes that the files at these
// absolute paths (in the editor's spelling, as [Watcher] reports them)
// changed on disk. The next CheckStale of such a file compares content
// hashes even if modification time and size look unchanged. Paths the agent
// never read are ignored.
func (s *State) MarkChanged(absPaths ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range absPaths {
		if st, ok := s.entries[a]; ok {
			st.changed = true
		}
	}
}

// CheckStale returns hermes's warning when p changed on disk since the
// agent last read or wrote it, or when the last read showed only part of
// it; it returns "" when the write is safe: the file was never read, does
// not exist (a new file), or still has the content the agent saw. A change
// of modification time or size alone, or a watcher report, is confirmed by
// comparing the content hash, so touching a file or an editor saving the
// text the agent wrote is not a change.
func (s *State) CheckStale(p Path) string {
	s.mu.Lock()
	st, ok := s.entries[p.abs]
	var known stamp
	if ok {
		known = *st
	}
	s.mu.Unlock()
	if !ok {
		return ""
	}
	fi, err := s.w.Stat(p)
	if err != nil {
		return "" // gone: the write will create it
	}
	if !fi.ModTime().Equal(known.modTime) || fi.Size() != known.size || known.changed {
		data, err := s.w.readRoot(p, s.w.limit())
		if err != nil || sha256.Sum256(data) != known.sum {
			return fmt.Sprintf("Warning: %s was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing.", p.abs)
		}
		s.refresh(p, fi, known)
	}
	if known.partial {
		return fmt.Sprintf("%s was last read with offset/limit pagination (partial view). Re-read the whole file before overwriting it.", p.abs)
	}
	return ""
}

// refresh records that the file on disk, described by fi, still has the
// content of known, unless the entry was replaced in the meantime.
func (s *State) refresh(p Path, fi fs.FileInfo, known stamp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.entries[p.abs]; ok && st.seq == known.seq {
		st.modTime, st.size, st.changed = fi.ModTime(), fi.Size(), false
	}
}
