package workspace

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"
)

// batchSink receives OnChange batches on a channel.
type batchSink chan []string

func (s batchSink) onChange(b []string) { s <- slices.Clone(b) }

// waitFor reads batches until one contains want and returns every path
// seen up to and including that batch. Watcher events arrive in order, so
// anything the watcher would report for earlier changes is in the result.
func (s batchSink) waitFor(t *testing.T, want string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var seen []string
	for {
		select {
		case b := <-s:
			seen = append(seen, b...)
			if slices.Contains(b, want) {
				return seen
			}
		case <-ctx.Done():
			t.Fatalf("no change reported for %s; saw %q", want, seen)
		}
	}
}

func TestWatcherFsnotify(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, ".gitignore"), "*.log\nbuild/\n")
	mustWrite(t, filepath.Join(dir, "sub", ".gitignore"), "local.txt\n")
	for _, d := range []string{".git", "node_modules/pkg", "src", "build"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := openWS(t, dir, nil, Options{})
	sink := make(batchSink, 100)
	wt, err := NewWatcher(w, WatchOptions{OnChange: sink.onChange, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close()
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

	// Ignored changes first, then one that must be reported.
	for _, rel := range []string{".git/HEAD", "node_modules/pkg/index.js", "app.log", "build/out.bin", "sub/local.txt", "src/.hermes-tmp.abc123"} {
		mustWrite(t, abs(rel), "ignored")
	}
	if err := os.Chmod(abs("src"), 0o700); err != nil { // attribute-only change
		t.Fatal(err)
	}
	mustWrite(t, abs("src/main.go"), "package main\n")
	seen := sink.waitFor(t, abs("src/main.go"))
	for _, rel := range []string{".git/HEAD", "node_modules/pkg/index.js", "app.log", "build/out.bin", "sub/local.txt", "src/.hermes-tmp.abc123", "src"} {
		if slices.Contains(seen, abs(rel)) {
			t.Errorf("ignored path %s was reported: %q", rel, seen)
		}
	}

	// A new directory tree: its files are reported even if they were
	// created before the watch on the new directory existed.
	if err := os.MkdirAll(abs("newdir/a/b"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, abs("newdir/a/b/deep.txt"), "x")
	sink.waitFor(t, abs("newdir/a/b/deep.txt"))
	// And it is watched from now on.
	mustWrite(t, abs("newdir/a/b/later.txt"), "y")
	sink.waitFor(t, abs("newdir/a/b/later.txt"))

	// WriteFile's temporary file is never reported; the target is.
	p := mustResolve(t, w, "src/main.go")
	if _, err := w.WriteFile(p, []byte("package main // v2\n")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, abs("after-write.txt"), "sentinel")
	seen = sink.waitFor(t, abs("after-write.txt"))
	if !slices.Contains(seen, abs("src/main.go")) {
		t.Errorf("WriteFile target not reported: %q", seen)
	}
	for _, s := range seen {
		if strings.HasPrefix(filepath.Base(s), tempPrefix) {
			t.Errorf("temporary file reported: %s", s)
		}
	}

	// Removal is a change.
	if err := os.Remove(abs("after-write.txt")); err != nil {
		t.Fatal(err)
	}
	sink.waitFor(t, abs("after-write.txt"))

	// Editing .gitignore takes effect at once.
	mustWrite(t, abs(".gitignore"), "*.log\nbuild/\n*.tmp\n")
	sink.waitFor(t, abs(".gitignore"))
	mustWrite(t, abs("src/scratch.tmp"), "ignored now")
	mustWrite(t, abs("src/real.go"), "package main\n")
	if seen := sink.waitFor(t, abs("src/real.go")); slices.Contains(seen, abs("src/scratch.tmp")) {
		t.Errorf("path newly ignored by .gitignore was reported: %q", seen)
	}
	// Un-ignoring build/ starts watching it.
	mustWrite(t, abs(".gitignore"), "*.log\n")
	sink.waitFor(t, abs(".gitignore"))
	mustWrite(t, abs("build/now-visible.txt"), "x")
	sink.waitFor(t, abs("build/now-visible.txt"))

	if wt.Degraded() {
		t.Error("watcher degraded without a watch limit")
	}
	if err := wt.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := wt.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
}

func TestNewWatcherRequiresOnChange(t *testing.T) {
	w := openWS(t, realTempDir(t), nil, Options{})
	if _, err := NewWatcher(w, WatchOptions{}); err == nil {
		t.Error("NewWatcher without OnChange succeeded")
	}
}

// fakeBackend stands in for fsnotify: it accepts a fixed number of watches
// and then fails like inotify at max_user_watches.
type fakeBackend struct {
	mu     sync.Mutex // guards added, closed
	limit  int
	added  []string
	closed bool
	events chan fsnotify.Event
	errs   chan error
}

func newFakeBackend(limit int) *fakeBackend {
	return &fakeBackend{limit: limit, events: make(chan fsnotify.Event), errs: make(chan error)}
}

func (b *fakeBackend) Add(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.added) >= b.limit {
		return syscall.ENOSPC
	}
	b.added = append(b.added, name)
	return nil
}

func (b *fakeBackend) Events() <-chan fsnotify.Event { return b.events }
func (b *fakeBackend) Errors() <-chan error          { return b.errs }

func (b *fakeBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.events)
	}
	return nil
}

func (b *fakeBackend) watches() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.added)
}

// logRecorder is a slog.Handler that keeps records.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) warnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		if r.Level >= slog.LevelWarn {
			out = append(out, r.Message)
		}
	}
	return out
}

// recordedBatches collects OnChange batches for synctest tests.
type recordedBatches struct {
	mu  sync.Mutex
	all []string
	n   int
}

func (r *recordedBatches) onChange(b []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, b...)
	r.n++
}

func (r *recordedBatches) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.all)
}

func (r *recordedBatches) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = nil
}

// The watch limit degrades the watcher to polling touched files, with one
// warning, instead of failing.
func TestWatcherDegradesOnENOSPC(t *testing.T) {
	dir := realTempDir(t)
	for _, d := range []string{"a", "b", "c"} {
		mustWrite(t, filepath.Join(dir, d, "f.txt"), "v1")
	}
	w := openWS(t, dir, nil, Options{})
	const (
		debounce = 50 * time.Millisecond
		poll     = time.Second
	)
	synctest.Test(t, func(t *testing.T) {
		be := newFakeBackend(2) // the root and a/ fit; b/ hits the limit
		logs := &logRecorder{}
		var rec recordedBatches
		wt := newWatcher(w, WatchOptions{OnChange: rec.onChange, Debounce: debounce, PollInterval: poll, Log: slog.New(logs)}, be)
		defer wt.Close()

		if got, want := be.watches(), []string{dir, filepath.Join(dir, "a")}; !slices.Equal(got, want) {
			t.Errorf("watches = %q, want %q", got, want)
		}
		if !wt.Degraded() {
			t.Fatal("Degraded() = false after ENOSPC")
		}

		// A watched directory still reports through events.
		be.events <- fsnotify.Event{Name: filepath.Join(dir, "a", "f.txt"), Op: fsnotify.Write}
		time.Sleep(debounce)
		synctest.Wait()
		if got := rec.seen(); !slices.Equal(got, []string{filepath.Join(dir, "a", "f.txt")}) {
			t.Errorf("event batch = %q, want a/f.txt", got)
		}
		rec.reset()

		// An unwatched file the agent touched is polled.
		bf := mustResolve(t, w, "b/f.txt")
		cf := mustResolve(t, w, "c/f.txt")
		wt.Touch(bf)
		wt.Touch(cf)
		wt.Touch(bf) // idempotent
		mustWrite(t, bf.Abs(), "v2 is longer")
		time.Sleep(poll)
		synctest.Wait()
		time.Sleep(debounce)
		synctest.Wait()
		if got := rec.seen(); !slices.Equal(got, []string{bf.Abs()}) {
			t.Errorf("polled changes = %q, want only %s", got, bf.Abs())
		}
		rec.reset()
		// Nothing changes: nothing is reported at the next polls.
		time.Sleep(3 * poll)
		synctest.Wait()
		if got := rec.seen(); got != nil {
			t.Errorf("polled changes without a change = %q", got)
		}
		// Deletion is a change too.
		os.Remove(cf.Abs())
		time.Sleep(poll + debounce)
		synctest.Wait()
		if got := rec.seen(); !slices.Equal(got, []string{cf.Abs()}) {
			t.Errorf("polled deletion = %q, want %s", got, cf.Abs())
		}

		// More ENOSPC (a new directory, an error from the backend) does not
		// warn again.
		mustWrite(t, filepath.Join(dir, "a", "new", "g.txt"), "g")
		be.events <- fsnotify.Event{Name: filepath.Join(dir, "a", "new"), Op: fsnotify.Create}
		be.errs <- syscall.ENOSPC
		time.Sleep(debounce)
		synctest.Wait()
		if got := logs.warnings(); len(got) != 1 {
			t.Errorf("warnings = %q, want exactly one", got)
		}
		if got := be.watches(); len(got) != 2 {
			t.Errorf("watches after degrading = %q, want no new ones", got)
		}
	})
}

// Event handling with a fake backend: new directories are walked and
// watched, ignored paths are dropped, nested roots are watched once.
func TestWatcherEvents(t *testing.T) {
	dir := realTempDir(t)
	inner := filepath.Join(dir, "inner")
	mustWrite(t, filepath.Join(inner, "x.txt"), "x")
	mustWrite(t, filepath.Join(dir, ".gitignore"), "*.o\n")
	w := openWS(t, dir, []string{inner}, Options{})
	const debounce = 10 * time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		be := newFakeBackend(100)
		var rec recordedBatches
		wt := newWatcher(w, WatchOptions{OnChange: rec.onChange, Debounce: debounce}, be)
		defer wt.Close()
		if got, want := be.watches(), []string{dir, inner}; !slices.Equal(got, want) {
			t.Errorf("watches = %q, want %q (the nested root once)", got, want)
		}

		mustWrite(t, filepath.Join(dir, "pkg", "sub", "a.go"), "package a")
		mustWrite(t, filepath.Join(dir, "pkg", "sub", "a.o"), "obj")
		send := func(name string, op fsnotify.Op) { be.events <- fsnotify.Event{Name: name, Op: op} }
		send(filepath.Join(dir, "pkg"), fsnotify.Create)
		send(filepath.Join(dir, "b.o"), fsnotify.Create)
		send(filepath.Join(dir, "b.go"), fsnotify.Chmod)
		send(filepath.Join(dir, ".git", "index"), fsnotify.Write)
		send(filepath.Join(dir, "node_modules"), fsnotify.Create)
		send("/elsewhere/file", fsnotify.Write)
		send(filepath.Join(inner, "x.txt"), fsnotify.Write)
		send(filepath.Join(dir, "pkg"), fsnotify.Write) // repeated: reported once
		time.Sleep(debounce)
		synctest.Wait()
		want := []string{
			filepath.Join(dir, "pkg"),
			filepath.Join(dir, "pkg", "sub"),
			filepath.Join(dir, "pkg", "sub", "a.go"),
			filepath.Join(inner, "x.txt"),
		}
		if got := rec.seen(); !slices.Equal(got, want) {
			t.Errorf("batch = %q, want %q", got, want)
		}
		if got := be.watches(); !slices.Contains(got, filepath.Join(dir, "pkg", "sub")) {
			t.Errorf("new directories not watched: %q", got)
		}

		// Removing a watched directory forgets it and its children.
		send(filepath.Join(dir, "pkg"), fsnotify.Remove)
		time.Sleep(debounce)
		synctest.Wait()
		if wt.watched[filepath.Join(dir, "pkg", "sub")] {
			t.Error("removed directory still recorded as watched")
		}
	})
}

// Without any watcher (fsnotify unavailable) NewWatcher polls.
func TestWatcherPollingOnly(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "f.txt"), "1")
	w := openWS(t, dir, nil, Options{})
	synctest.Test(t, func(t *testing.T) {
		var rec recordedBatches
		logs := &logRecorder{}
		wt := newWatcher(w, WatchOptions{OnChange: rec.onChange, PollInterval: time.Second, Log: slog.New(logs)}, nil)
		wt.degrade(syscall.EMFILE)
		defer wt.Close()
		p := mustResolve(t, w, "f.txt")
		wt.Touch(p)
		wt.Touch(Path{}) // ignored
		mustWrite(t, p.Abs(), "22")
		time.Sleep(time.Second + DefaultDebounce)
		synctest.Wait()
		if got := rec.seen(); !slices.Equal(got, []string{p.Abs()}) {
			t.Errorf("batch = %q, want %s", got, p.Abs())
		}
		if len(logs.warnings()) != 1 {
			t.Errorf("warnings = %q, want one", logs.warnings())
		}
	})
}
