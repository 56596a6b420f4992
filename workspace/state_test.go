package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func staleWarning(p Path) string {
	return "Warning: " + p.Abs() + " was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing."
}

func partialWarning(p Path) string {
	return p.Abs() + " was last read with offset/limit pagination (partial view). Re-read the whole file before overwriting it."
}

// setMtime moves a file's modification time, so tests do not depend on
// the file system's timestamp granularity.
func setMtime(t *testing.T, p string, mt time.Time) {
	t.Helper()
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

func mtime(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// Ported from hermes's staleness tests, plus the content-hash and watcher
// refinements.
func TestCheckStale(t *testing.T) {
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		// run prepares the file f (absolute path) and the state, and
		// returns the expected warning ("" none, "stale", "partial").
		run func(t *testing.T, s *State, p Path, f string) string
	}{
		{"never read", func(t *testing.T, s *State, p Path, f string) string {
			mustWrite(t, f, "changed")
			return ""
		}},
		{"read and unchanged", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			return ""
		}},
		{"changed on disk after the read", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			mustWrite(t, f, "v2 from the user\n")
			return "stale"
		}},
		{"same size, new content, new mtime", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			mustWrite(t, f, "v9\n")
			setMtime(t, f, past)
			return "stale"
		}},
		{"deleted since the read (new file)", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			os.Remove(f)
			return ""
		}},
		{"touched, content unchanged", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			setMtime(t, f, past)
			return ""
		}},
		{"partial read", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), true)
			return "partial"
		}},
		{"partial read then full read", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), true)
			s.RecordRead(p, []byte("v1\n"), false)
			return ""
		}},
		{"our own write is not a change", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			mustWrite(t, f, "written by the agent\n")
			s.RecordWrite(p, []byte("written by the agent\n"))
			return ""
		}},
		{"editor saves what we wrote later", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordWrite(p, []byte("v1\n")) // the editor buffer got v1; disk already had it
			setMtime(t, f, past)             // the save touches the file
			return ""
		}},
		{"write without read, then external change", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordWrite(p, []byte("v1\n"))
			mustWrite(t, f, "someone else\n")
			return "stale"
		}},
		{"watcher report, identical stat, different content", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			mt := mtime(t, f)
			mustWrite(t, f, "v2\n") // same size
			setMtime(t, f, mt)      // same mtime: only the watcher noticed
			if got := s.CheckStale(p); got != "" {
				t.Errorf("CheckStale before the watcher report = %q, want none (stat unchanged)", got)
			}
			s.MarkChanged(p.Abs())
			return "stale"
		}},
		{"watcher report, content unchanged", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			s.MarkChanged(p.Abs(), "/unrelated/path")
			return ""
		}},
		{"forgotten", func(t *testing.T, s *State, p Path, f string) string {
			s.RecordRead(p, []byte("v1\n"), false)
			mustWrite(t, f, "v2 longer\n")
			s.Forget(p)
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			f := filepath.Join(dir, "a.txt")
			mustWrite(t, f, "v1\n")
			setMtime(t, f, past.Add(-time.Hour))
			w := openWS(t, dir, nil, Options{})
			p := mustResolve(t, w, "a.txt")
			s := NewState(w)
			want := tc.run(t, s, p, f)
			switch want {
			case "stale":
				want = staleWarning(p)
			case "partial":
				want = partialWarning(p)
			}
			if got := s.CheckStale(p); got != want {
				t.Errorf("CheckStale = %q, want %q", got, want)
			}
		})
	}
}

// Read state is per session: another session's read does not count.
func TestStatePerSession(t *testing.T) {
	dir := realTempDir(t)
	f := filepath.Join(dir, "a.txt")
	mustWrite(t, f, "v1\n")
	w := openWS(t, dir, nil, Options{})
	p := mustResolve(t, w, "a.txt")
	a, b := NewState(w), NewState(w)
	a.RecordRead(p, []byte("v1\n"), false)
	mustWrite(t, f, "v2, changed\n")
	if got := a.CheckStale(p); got != staleWarning(p) {
		t.Errorf("session A CheckStale = %q, want the warning", got)
	}
	if got := b.CheckStale(p); got != "" {
		t.Errorf("session B CheckStale = %q, want none (never read)", got)
	}
}

func TestStateBounded(t *testing.T) {
	dir := realTempDir(t)
	w := openWS(t, dir, nil, Options{})
	s := NewState(w)
	var first Path
	for i := range maxStatePaths + 1 {
		name := fmt.Sprintf("f%05d", i)
		mustWrite(t, filepath.Join(dir, name), "x")
		p := mustResolve(t, w, name)
		if i == 0 {
			first = p
		}
		s.RecordRead(p, []byte("x"), false)
	}
	if len(s.entries) != maxStatePaths {
		t.Errorf("State holds %d paths, want %d", len(s.entries), maxStatePaths)
	}
	if _, ok := s.entries[first.Abs()]; ok {
		t.Error("the oldest path was kept, want it evicted")
	}
}

func TestStateConcurrent(t *testing.T) {
	dir := realTempDir(t)
	w := openWS(t, dir, nil, Options{})
	s := NewState(w)
	var wg sync.WaitGroup
	for i := range 8 {
		name := fmt.Sprintf("c%d", i)
		mustWrite(t, filepath.Join(dir, name), "x")
		p := mustResolve(t, w, name)
		wg.Go(func() {
			for range 50 {
				s.RecordRead(p, []byte("x"), false)
				s.MarkChanged(p.Abs())
				if got := s.CheckStale(p); got != "" {
					t.Errorf("CheckStale(%s) = %q, want none", name, got)
				}
				s.RecordWrite(p, []byte("x"))
			}
		})
	}
	wg.Wait()
}
