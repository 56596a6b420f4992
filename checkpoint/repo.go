package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Defaults for [Options] (hermes-agent's checkpoint manager: 500 MB of
// checkpoints, files up to 10 MB, folders up to 50 000 files).
const (
	DefaultMaxTotalBytes = 500 << 20
	DefaultMaxFileBytes  = 10 << 20
	DefaultMaxFiles      = 50_000
)

// workdirFile names the folder a shadow repository records (hermes's
// marker).
const workdirFile = "HERMES_WORKDIR"

// Sentinel errors.
var (
	// ErrTooManyFiles: the folder has more files than Options.MaxFiles;
	// nothing was recorded.
	ErrTooManyFiles = errors.New("checkpoint: too many files")
	// ErrTooBroad: the folder is / or the home folder, which are never
	// recorded.
	ErrTooBroad = errors.New("checkpoint: folder too broad to record")
	// ErrNotFound: no recorded state matches.
	ErrNotFound = errors.New("checkpoint: not found")
)

// Options configures a [Manager]. The zero value of each limit is its
// default.
type Options struct {
	// Dir holds the shadow repositories ($HERMES_HOME/checkpoints).
	Dir string
	// MaxTotalBytes bounds the storage of one folder's repository; past it
	// the oldest sessions' checkpoints are deleted first. Negative: no bound.
	MaxTotalBytes int64
	// MaxFileBytes: larger files are left out of checkpoints. Negative: no
	// limit.
	MaxFileBytes int64
	// MaxFiles: a folder with more files is not recorded.
	MaxFiles int
	// Home is the user's home folder, never recorded; "" asks the OS.
	Home string
	Log  *slog.Logger
}

// Manager opens the shadow repositories of folders. It is safe for
// concurrent use; the repositories it returns live as long as it does.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu    sync.Mutex
	repos map[string]*Repo // by shadow directory
}

// New returns a manager for the repositories under opts.Dir.
func New(opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxTotalBytes == 0 {
		opts.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if opts.MaxFileBytes == 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	return &Manager{opts: opts, log: opts.Log, repos: map[string]*Repo{}}
}

// Dir returns the folder holding the shadow repositories.
func (m *Manager) Dir() string { return m.opts.Dir }

// ShadowDir returns the shadow repository's folder for the folder root
// (its real path): <Dir>/<sha256(root)[:16]>.
func (m *Manager) ShadowDir(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(m.opts.Dir, hex.EncodeToString(sum[:])[:16])
}

// Repo returns the shadow repository of the folder root, opened on first
// use (and created when missing). root is resolved to its real path.
func (m *Manager) Repo(root string) (*Repo, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", root, err)
	}
	real = filepath.Clean(real)
	if real == "/" || (m.opts.Home != "" && real == filepath.Clean(m.opts.Home)) {
		return nil, fmt.Errorf("%w: %s", ErrTooBroad, real)
	}
	dir := m.ShadowDir(real)
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.repos[dir]; r != nil {
		return r, nil
	}
	r := &Repo{m: m, root: real, dir: dir, sem: make(chan struct{}, 1)}
	m.repos[dir] = r
	return r, nil
}

// repoAt returns the repository whose shadow folder is dir, reading the
// folder it records from its marker; nil when dir is not one.
func (m *Manager) repoAt(dir string) *Repo {
	data, err := os.ReadFile(filepath.Join(dir, workdirFile))
	if err != nil {
		return nil
	}
	root := strings.TrimSpace(string(data))
	if root == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.repos[dir]; r != nil {
		return r
	}
	r := &Repo{m: m, root: root, dir: dir, sem: make(chan struct{}, 1)}
	m.repos[dir] = r
	return r
}

// DeleteSession deletes the checkpoints of session from every shadow
// repository (session/delete) and frees their storage.
func (m *Manager) DeleteSession(ctx context.Context, session string) error {
	entries, err := os.ReadDir(m.opts.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: delete session %s: %w", session, err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.Contains(e.Name(), ".") {
			continue
		}
		r := m.repoAt(filepath.Join(m.opts.Dir, e.Name()))
		if r == nil {
			continue
		}
		if err := r.DeleteSession(ctx, session); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Repo is the shadow repository of one folder. Its methods are safe for
// concurrent use; they run one at a time.
type Repo struct {
	m    *Manager
	root string // the folder, a real path
	dir  string // the shadow repository

	// sem serialises the repository's operations in this process, and
	// lockf (flock on hermes.lock in the repository) across processes; both
	// are held across the operation's I/O. The fields below belong to their
	// holder.
	sem   chan struct{}
	lockf *os.File
	stamp cacheStamp // the stat cache file as this process left it
	st    *filesystem.Storage
	stats *statCache
	trees map[plumbing.Hash]bool // tree objects known to be stored
	// moved is where a corrupt repository was moved aside, reported by the
	// next operation's error.
	moved string
}

// Root returns the folder the repository records.
func (r *Repo) Root() string { return r.root }

// Dir returns the shadow repository's folder.
func (r *Repo) Dir() string { return r.dir }

// lock takes the repository for one operation, opening it first if needed.
func (r *Repo) lock(ctx context.Context) error {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := r.lockRepo(ctx); err != nil {
		<-r.sem
		return err
	}
	if r.st != nil {
		r.refresh()
		return nil
	}
	if err := r.open(); err != nil {
		r.unlockRepo()
		<-r.sem
		return err
	}
	r.stamp = r.statStamp()
	return nil
}

func (r *Repo) unlock() {
	if r.st != nil {
		r.stamp = r.statStamp()
	}
	r.unlockRepo()
	<-r.sem
}

// CorruptError reports a shadow repository that could not be used: it was
// moved aside to MovedTo and a new, empty one replaces it. The operation
// that met it failed; the next one starts afresh.
type CorruptError struct {
	Dir, MovedTo string
	Err          error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("checkpoint repository %s was damaged (%v); it was moved aside to %s and a new one started", e.Dir, e.Err, e.MovedTo)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// open opens the shadow repository, creating it when missing and moving a
// damaged one aside.
func (r *Repo) open() error {
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); errors.Is(err, fs.ErrNotExist) {
		return r.create()
	}
	if data, err := os.ReadFile(filepath.Join(r.dir, "HEAD")); err != nil || !strings.HasPrefix(string(data), "ref: ") {
		return r.corrupt(fmt.Errorf("HEAD is unreadable or not a reference: %q, %v", data, err))
	}
	r.st = storage(r.dir)
	r.trees = map[plumbing.Hash]bool{}
	return nil
}

// storage opens the object and reference storage of the bare repository
// at dir with a small object cache (go-git's default keeps up to 96 MB of
// decoded objects). Only go-git's storage and object packages are used,
// not its repository package, which links every transport (HTTP, SSH).
func storage(dir string) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(4*cache.MiByte), filesystem.Options{})
}

// bareConfig is the configuration of a new shadow repository: a bare
// repository git itself can read.
const bareConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"

func (r *Repo) create() error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint: create %s: %w", r.dir, err)
	}
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(r.dir, d), 0o700); err != nil {
			return fmt.Errorf("checkpoint: init %s: %w", r.dir, err)
		}
	}
	for name, content := range map[string]string{"config": bareConfig, workdirFile: r.root + "\n", "HEAD": "ref: refs/heads/master\n"} {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o600); err != nil {
			return fmt.Errorf("checkpoint: init %s: %w", r.dir, err)
		}
	}
	r.st = storage(r.dir)
	r.trees = map[plumbing.Hash]bool{}
	r.stats = &statCache{Files: map[string]statEntry{}}
	return nil
}

// corrupt moves the damaged repository aside, starts a new one and returns
// the *CorruptError to report.
func (r *Repo) corrupt(cause error) error {
	aside := fmt.Sprintf("%s.corrupt-%s", r.dir, time.Now().UTC().Format("20060102T150405.000000000"))
	r.st, r.stats, r.trees = nil, nil, nil
	if err := os.Rename(r.dir, aside); err != nil {
		return fmt.Errorf("checkpoint repository %s is damaged (%v) and cannot be moved aside: %w", r.dir, cause, err)
	}
	r.m.log.Warn("checkpoint repository damaged; moved aside", "dir", r.dir, "moved_to", aside, "error", cause)
	// The lock held is the moved repository's: take the new one's.
	r.unlockRepo()
	if err := r.lockRepo(context.Background()); err != nil {
		return err
	}
	if err := r.create(); err != nil {
		return err
	}
	return &CorruptError{Dir: r.dir, MovedTo: aside, Err: cause}
}

// damagedError marks a failure to read what the repository should hold (a
// missing or undecodable object): the repository is damaged. Other failures
// (the folder's files, a full disk, the context) leave it alone.
type damagedError struct{ err error }

func (e *damagedError) Error() string { return e.err.Error() }
func (e *damagedError) Unwrap() error { return e.err }

// damage wraps err, when not nil, as a *damagedError.
func damage(err error) error {
	if err == nil {
		return nil
	}
	return &damagedError{err: err}
}

// check turns a damaged-repository error into the move-aside and its
// *CorruptError; other errors pass through.
func (r *Repo) check(err error) error {
	var de *damagedError
	if !errors.As(err, &de) {
		return err
	}
	return r.corrupt(de.err)
}
