package workspace

import (
	"errors"
	"io/fs"
	"log/slog"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher defaults.
const (
	// DefaultDebounce is how long the watcher waits for a burst of events
	// to end before delivering a batch.
	DefaultDebounce = 100 * time.Millisecond
	// DefaultPollInterval is how often a degraded watcher polls the files
	// the agent touched.
	DefaultPollInterval = 2 * time.Second
	// maxWaitFactor bounds a batch's delay to this many debounce periods
	// after its first event.
	maxWaitFactor = 10
	// maxTouched bounds the files a degraded watcher polls.
	maxTouched = 4096
)

// WatchOptions configures a [Watcher]. Only OnChange is required.
type WatchOptions struct {
	// OnChange receives each batch of changed files and directories as
	// absolute paths in the editor's spelling of the root (the form of
	// [Path.Abs]), each once, in the order of their first event. It is
	// called on one goroutine owned by the Watcher, one batch at a time, and
	// must not call Watcher.Close.
	OnChange func(paths []string)
	// Debounce is the quiet period that ends a batch. Zero means
	// DefaultDebounce. A batch is delivered at the latest ten periods after
	// its first event even if events keep coming.
	Debounce time.Duration
	// PollInterval is how often the files passed to Touch are checked when
	// the watcher has degraded to polling. Zero means DefaultPollInterval.
	PollInterval time.Duration
	// Log receives the degradation warning and watcher errors. Nil means
	// the workspace's logger.
	Log *slog.Logger
}

// watchBackend is the part of *fsnotify.Watcher the Watcher uses; tests
// substitute a fake to simulate the inotify watch limit.
type watchBackend interface {
	Add(name string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

type fsnotifyBackend struct{ w *fsnotify.Watcher }

func (b fsnotifyBackend) Add(name string) error         { return b.w.Add(name) }
func (b fsnotifyBackend) Events() <-chan fsnotify.Event { return b.w.Events }
func (b fsnotifyBackend) Errors() <-chan error          { return b.w.Errors }
func (b fsnotifyBackend) Close() error                  { return b.w.Close() }

// fileSig is what polling compares.
type fileSig struct {
	exists  bool
	modNano int64
	size    int64
}

type touchedFile struct {
	p   Path
	sig fileSig
}

// Watcher watches every root of a Workspace recursively, adding new
// directories as they appear, and reports changed files in debounced
// batches to WatchOptions.OnChange. It skips .git and node_modules
// directories, WriteFile's temporary files, attribute-only changes and
// paths excluded by the roots' .gitignore files (nested ones included,
// reloaded when they change). When the system's inotify watch limit is
// reached (ENOSPC) it logs once and degrades: the directories already
// watched stay watched, and the files passed to [Watcher.Touch] are polled
// instead. It is safe for concurrent use. The creator must call
// [Watcher.Close], which stops and waits for every goroutine, before closing
// the Workspace.
type Watcher struct {
	ws        *Workspace
	be        watchBackend // nil when polling only
	deb       *debouncer
	log       *slog.Logger
	pollEvery time.Duration

	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup

	// Owned by the event goroutine (and by the constructor before it
	// starts); never touched elsewhere.
	watched map[string]bool // absolute directories with a watch
	rules   map[*root]*ignoreRules

	mu       sync.Mutex // guards touched, order, degraded, closed
	touched  map[string]*touchedFile
	order    []string
	degraded bool
	closed   bool
}

// NewWatcher starts watching the roots of w. It walks the roots to add the
// watches before it returns. If the system cannot create a watcher at all,
// it logs that and starts in polling mode rather than failing. The only
// error is a missing OnChange.
func NewWatcher(w *Workspace, opts WatchOptions) (*Watcher, error) {
	if opts.OnChange == nil {
		return nil, errors.New("new watcher: WatchOptions.OnChange is required")
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		wt := newWatcher(w, opts, nil)
		wt.degrade(err)
		return wt, nil
	}
	return newWatcher(w, opts, fsnotifyBackend{fw}), nil
}

// newWatcher builds a Watcher over be (nil: polling only) and starts it.
func newWatcher(w *Workspace, opts WatchOptions, be watchBackend) *Watcher {
	delay := opts.Debounce
	if delay <= 0 {
		delay = DefaultDebounce
	}
	wt := &Watcher{
		ws:        w,
		be:        be,
		log:       opts.Log,
		pollEvery: opts.PollInterval,
		stop:      make(chan struct{}),
		watched:   make(map[string]bool),
		rules:     make(map[*root]*ignoreRules),
		touched:   make(map[string]*touchedFile),
	}
	if wt.log == nil {
		wt.log = w.log
	}
	if wt.pollEvery <= 0 {
		wt.pollEvery = DefaultPollInterval
	}
	wt.deb = newDebouncer(delay, maxWaitFactor*delay, opts.OnChange)
	if be == nil {
		return wt
	}
	for _, r := range w.roots {
		wt.rules[r] = newIgnoreRules()
		wt.addTree(r, ".", false)
	}
	wt.wg.Go(wt.loop)
	return wt
}

// Close stops the watcher and waits for its goroutines, including an
// OnChange call in progress. Changes not yet delivered are dropped. Close
// is idempotent.
func (wt *Watcher) Close() error {
	var err error
	wt.once.Do(func() {
		wt.mu.Lock()
		wt.closed = true
		wt.mu.Unlock()
		close(wt.stop)
		if wt.be != nil {
			err = wt.be.Close()
		}
		wt.wg.Wait()
		wt.deb.close()
	})
	return err
}

// Degraded reports whether the watcher has fallen back to polling.
func (wt *Watcher) Degraded() bool {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.degraded
}

// Touch registers a file the agent read or wrote. While the watcher works
// normally this only remembers it; once degraded, touched files are polled
// (modification time and size) every PollInterval and their changes
// reported like watcher events. At most 4096 files are kept, the oldest
// dropped first.
func (wt *Watcher) Touch(p Path) {
	if !wt.ws.owns(p) {
		return
	}
	sig := wt.sig(p)
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if wt.closed {
		return
	}
	if _, ok := wt.touched[p.abs]; ok {
		return
	}
	wt.touched[p.abs] = &touchedFile{p: p, sig: sig}
	wt.order = append(wt.order, p.abs)
	if len(wt.order) > maxTouched {
		delete(wt.touched, wt.order[0])
		wt.order = wt.order[1:]
	}
}

func (wt *Watcher) sig(p Path) fileSig {
	fi, err := p.root.r.Stat(p.osRel())
	if err != nil {
		return fileSig{}
	}
	return fileSig{exists: true, modNano: fi.ModTime().UnixNano(), size: fi.Size()}
}

// degrade switches to polling, once, and says so in the log.
func (wt *Watcher) degrade(cause error) {
	wt.mu.Lock()
	if wt.degraded || wt.closed {
		wt.mu.Unlock()
		return
	}
	wt.degraded = true
	wt.mu.Unlock()
	wt.log.Warn("file watching limited; polling the files the agent touched instead (raise fs.inotify.max_user_watches to watch everything)",
		"err", cause, "interval", wt.pollEvery)
	wt.wg.Go(wt.poll)
}

func (wt *Watcher) isDegraded() bool {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.degraded
}

func (wt *Watcher) poll() {
	t := time.NewTicker(wt.pollEvery)
	defer t.Stop()
	for {
		select {
		case <-wt.stop:
			return
		case <-t.C:
		}
		wt.mu.Lock()
		files := make([]touchedFile, 0, len(wt.order))
		for _, a := range wt.order {
			files = append(files, *wt.touched[a])
		}
		wt.mu.Unlock()
		var changed []string
		now := make(map[string]fileSig)
		for _, f := range files {
			if s := wt.sig(f.p); s != f.sig {
				changed = append(changed, f.p.abs)
				now[f.p.abs] = s
			}
		}
		wt.mu.Lock()
		for a, s := range now {
			if f, ok := wt.touched[a]; ok {
				f.sig = s
			}
		}
		wt.mu.Unlock()
		wt.deb.add(changed...)
	}
}

func (wt *Watcher) loop() {
	for {
		select {
		case <-wt.stop:
			return
		case ev, ok := <-wt.be.Events():
			if !ok {
				return
			}
			wt.handle(ev)
		case err, ok := <-wt.be.Errors():
			if !ok {
				return
			}
			if errors.Is(err, syscall.ENOSPC) {
				wt.degrade(err)
				continue
			}
			wt.log.Warn("file watcher error", "err", err)
		}
	}
}

// skipName reports whether a file or directory with this name is never
// reported or descended into.
func skipName(name string) bool {
	return name == ".git" || name == "node_modules" || strings.HasPrefix(name, tempPrefix)
}

func (wt *Watcher) handle(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod || ev.Name == "" {
		return
	}
	name := filepath.Clean(ev.Name)
	r, rel, ok := wt.ws.locate(name)
	if !ok || rel == "." {
		return
	}
	for _, c := range strings.Split(rel, "/") {
		if skipName(c) {
			return
		}
	}
	rules := wt.rules[r]
	isDir := false
	if ev.Has(fsnotify.Create) {
		if fi, err := r.r.Lstat(filepath.FromSlash(rel)); err == nil && fi.IsDir() {
			isDir = true
		}
	} else {
		isDir = wt.watched[name]
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		wt.unwatch(name)
	}
	if path.Base(rel) == ".gitignore" {
		dir := path.Dir(rel)
		data, err := r.r.ReadFile(filepath.FromSlash(rel))
		if err != nil {
			data = nil
		}
		rules.set(dir, data)
		wt.addTree(r, dir, false) // watch directories it stopped ignoring
	}
	if rules.ignored(rel, isDir) {
		return
	}
	batch := []string{name}
	if isDir && ev.Has(fsnotify.Create) {
		batch = append(batch, wt.addTree(r, rel, true)...)
	}
	wt.deb.add(batch...)
}

// unwatch forgets the watched directory name and everything below it (the
// kernel drops those watches itself).
func (wt *Watcher) unwatch(name string) {
	if !wt.watched[name] {
		return
	}
	prefix := name + string(filepath.Separator)
	for d := range wt.watched {
		if d == name || strings.HasPrefix(d, prefix) {
			delete(wt.watched, d)
		}
	}
}

// addTree watches the directory rel of r and every directory below it that
// is not skipped or ignored, loading .gitignore files on the way. With
// report it returns the files and directories found below rel, for a
// directory that appeared after the walk could have seen its contents.
func (wt *Watcher) addTree(r *root, rel string, report bool) []string {
	rules := wt.rules[r]
	var found []string
	fs.WalkDir(r.r.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == rel {
				return err // the directory itself is gone
			}
			return nil
		}
		abs := filepath.Join(r.abs, filepath.FromSlash(p))
		if p != "." && skipName(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			if report && !rules.ignored(p, false) {
				found = append(found, abs)
			}
			return nil
		}
		if p != "." && (rules.ignored(p, true) || wt.otherRoot(r, p)) {
			return fs.SkipDir
		}
		if data, err := r.r.ReadFile(filepath.FromSlash(path.Join(p, ".gitignore"))); err == nil {
			rules.set(p, data)
		}
		if report && p != rel {
			found = append(found, abs)
		}
		if wt.isDegraded() {
			if !report {
				return fs.SkipAll
			}
			return nil
		}
		if wt.watched[abs] {
			return nil
		}
		if err := wt.be.Add(abs); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				wt.degrade(err)
				return nil // keep walking to report, without watches
			}
			wt.log.Debug("cannot watch directory", "dir", abs, "err", err)
			return fs.SkipDir
		}
		wt.watched[abs] = true
		return nil
	})
	return found
}

// otherRoot reports whether directory rel of r is itself another root,
// which watches its own tree.
func (wt *Watcher) otherRoot(r *root, rel string) bool {
	real := filepath.Join(r.real, filepath.FromSlash(rel))
	for _, o := range wt.ws.roots {
		if o != r && o.real == real {
			return true
		}
	}
	return false
}
