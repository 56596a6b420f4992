package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// DefaultMaxFileBytes is the size above which [Workspace.ReadFile] refuses a
// file when [Options.MaxFileBytes] is zero.
const DefaultMaxFileBytes = 16 << 20

// Sentinel errors. Every error returned by Resolve and the safety checks
// wraps exactly one of the path sentinels, so callers can tell the cases
// apart with [errors.Is]; the error text itself is written for the model and
// says what to do instead.
var (
	// ErrEmptyPath reports an empty (or all-blank) path.
	ErrEmptyPath = errors.New("workspace: empty path")
	// ErrInvalidPath reports a path that cannot be parsed: a NUL byte, a
	// malformed file:// URI, a remote host, too many symbolic links.
	ErrInvalidPath = errors.New("workspace: invalid path")
	// ErrUnsupportedScheme reports a URI whose scheme is not file.
	ErrUnsupportedScheme = errors.New("workspace: unsupported URI scheme")
	// ErrOutsideWorkspace reports a path that resolves outside every root.
	ErrOutsideWorkspace = errors.New("workspace: path outside the workspace")
	// ErrSpecialFile reports a device, named pipe, socket or one of
	// hermes's blocking device paths (/dev/zero, /proc/self/environ, ...).
	ErrSpecialFile = errors.New("workspace: device, pipe or socket")
	// ErrReadDenied reports a read refused by the read-deny list.
	ErrReadDenied = errors.New("workspace: read denied")
	// ErrWriteDenied reports a write, delete or move refused by the
	// write-deny list, HERMES_WRITE_SAFE_ROOT or the sensitive-path checks.
	ErrWriteDenied = errors.New("workspace: write denied")
	// ErrTooLarge reports a file larger than the configured read limit.
	ErrTooLarge = errors.New("workspace: file too large")
	// ErrPathChanged reports a path that no longer names what Resolve
	// found: a component became a symbolic link before the editor was
	// asked to read or write it.
	ErrPathChanged = errors.New("workspace: path changed after it was resolved")
	// ErrNotWorkspacePath reports a zero Path or a Path made by another
	// Workspace.
	ErrNotWorkspacePath = errors.New("workspace: path does not belong to this workspace")
)

// Error is the error type returned for refused paths. Its message is
// written for the model (hermes's wording where hermes has one); Kind holds
// the sentinels it matches with [errors.Is].
type Error struct {
	// Path is the path as the caller gave it, or the resolved absolute path.
	Path string
	// Msg is the complete, user-facing message.
	Msg string
	// Kind lists the sentinels this error matches.
	Kind []error
}

// Error returns the user-facing message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the sentinels the error matches.
func (e *Error) Unwrap() []error { return e.Kind }

func pathErr(path, msg string, kind ...error) *Error {
	return &Error{Path: path, Msg: msg, Kind: kind}
}

// Options configures a [Workspace]. The zero value is usable: Home comes
// from [os.UserHomeDir], HermesHome from $HERMES_HOME or ~/.hermes, TempDir
// from [os.TempDir], no HERMES_WRITE_SAFE_ROOT, a 16 MiB read limit, and no
// logging.
type Options struct {
	// Home is the user's home directory, used for "~" paths and the
	// home-relative deny lists. Empty means os.UserHomeDir().
	Home string
	// HermesHome is the active Hermes home (a profile directory such as
	// ~/.hermes/profiles/work, or ~/.hermes). Empty means $HERMES_HOME, or
	// Home/.hermes when that is unset. When it is a profile directory, its
	// grandparent is the Hermes root whose credential files are protected too.
	HermesHome string
	// WriteSafeRoot is the value of HERMES_WRITE_SAFE_ROOT: directories
	// separated by os.PathListSeparator. When non-empty, writes outside every
	// listed directory are denied. Empty segments are ignored.
	WriteSafeRoot string
	// TempDir is the system temporary directory, used by InTempDir for
	// auto-approval. Empty means os.TempDir(). Symlinks are resolved.
	TempDir string
	// MaxFileBytes caps ReadFile and Files.Read. Zero means
	// DefaultMaxFileBytes; negative means no limit.
	MaxFileBytes int64
	// Log receives warnings (a directory that cannot be synced, an editor
	// read that failed and fell back to disk). Nil discards them.
	Log *slog.Logger
	// Safety, when set, supplies the resolved safety places (see
	// [NewSafety]) and Home, HermesHome, TempDir and WriteSafeRoot are
	// ignored. Nil builds them for this workspace.
	Safety *Safety
}

// root is one workspace root: the directory as the editor named it, the
// same directory with symlinks resolved, and the os.Root that confines I/O.
type root struct {
	abs  string // cleaned, as given by the editor
	real string // symlinks resolved
	r    *os.Root
}

// place is a directory or file outside the roots that safety rules refer to,
// kept in both its literal and its symlink-resolved spelling.
type place struct {
	lit  string
	real string
}

func newPlace(p string) place {
	if p == "" {
		return place{}
	}
	lit := filepath.Clean(p)
	return place{lit: lit, real: realpath(lit)}
}

func (pl place) join(elem ...string) place {
	if pl.lit == "" {
		return place{}
	}
	return place{
		lit:  filepath.Join(append([]string{pl.lit}, elem...)...),
		real: resolveBelow(pl.real, filepath.Join(elem...)),
	}
}

// resolveBelow is realpath(filepath.Join(real, rel)) for a real (already
// resolved) directory: only the components of rel are examined, one Lstat
// each, and a missing component ends the walk (the rest is joined as is).
// Most deny-list entries do not exist, so this is far cheaper than
// resolving every path from the root.
func resolveBelow(real, rel string) string {
	cur := real
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i, part := range parts {
		if part == "" || part == "." {
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
			return filepath.Join(append([]string{next}, parts[i+1:]...)...)
		case fi.Mode()&os.ModeSymlink != 0:
			next = realpath(next)
		}
		cur = next
	}
	return cur
}

// Workspace is the set of directories a session may touch. It is safe for
// concurrent use. The session that opens it owns it and must call
// [Workspace.Close] when the session ends.
type Workspace struct {
	roots      []*root
	home       place
	hermesHome place
	hermesRoot place
	tempDir    place
	safeRoots  []place
	safeShow   string
	guards     guards
	maxBytes   int64
	log        *slog.Logger

	closeOnce sync.Once
	closeErr  error

	// failpoint, when set by tests, is called at named steps of WriteFile
	// and may return an error to simulate a failure there.
	failpoint func(step string) error
}

// Safety is the part of a workspace's safety rules that does not depend on
// its roots: the home and Hermes directories and the deny lists under them,
// with symlinks resolved. Building it costs dozens of symlink resolutions,
// so an agent builds one and shares it between sessions (Options.Safety).
// It is immutable and safe for concurrent use; it reflects the file system
// when it was built.
type Safety struct {
	home, hermesHome, hermesRoot, tempDir place
	safeRoots                             []place
	safeShow                              string
	guards                                guards
}

// NewSafety resolves the safety places of opts (Home, HermesHome, TempDir,
// WriteSafeRoot; the other fields are ignored).
func NewSafety(opts Options) *Safety {
	sf := &Safety{}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir() // no home: the home-relative rules are skipped
	}
	sf.home = newPlace(home)
	hh := opts.HermesHome
	if hh == "" {
		hh = os.Getenv("HERMES_HOME")
	}
	hh = expandTilde(hh, home)
	if hh == "" && home != "" {
		hh = filepath.Join(home, ".hermes")
	}
	sf.hermesHome = newPlace(hh)
	sf.hermesRoot = sf.hermesHome
	if hh != "" {
		if parent := filepath.Dir(filepath.Clean(hh)); filepath.Base(parent) == "profiles" {
			sf.hermesRoot = newPlace(filepath.Dir(parent))
		}
	}
	tmp := opts.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	sf.tempDir = newPlace(tmp)
	sf.safeRoots, sf.safeShow = parseSafeRoots(opts.WriteSafeRoot, home)
	sf.guards = newGuards(sf.home, sf.hermesHome, sf.hermesRoot)
	return sf
}

// Open opens a workspace whose first root is cwd and whose further roots are
// extra (the session's additionalDirectories). Every directory must be an
// absolute path to an existing directory. Duplicate roots are merged.
func Open(cwd string, extra []string, opts Options) (*Workspace, error) {
	w := &Workspace{log: opts.Log, maxBytes: opts.MaxFileBytes}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.maxBytes == 0 {
		w.maxBytes = DefaultMaxFileBytes
	}
	for i, dir := range append([]string{cwd}, extra...) {
		what := "cwd"
		if i > 0 {
			what = "additional directory"
		}
		r, err := openRoot(what, dir)
		if err != nil {
			w.Close()
			return nil, err
		}
		if slices.ContainsFunc(w.roots, func(o *root) bool { return o.real == r.real }) {
			r.r.Close()
			continue
		}
		w.roots = append(w.roots, r)
	}

	sf := opts.Safety
	if sf == nil {
		sf = NewSafety(opts)
	}
	w.home, w.hermesHome, w.hermesRoot, w.tempDir = sf.home, sf.hermesHome, sf.hermesRoot, sf.tempDir
	w.safeRoots, w.safeShow = sf.safeRoots, sf.safeShow
	w.guards = sf.guards
	return w, nil
}

func openRoot(what, dir string) (*root, error) {
	if dir == "" {
		return nil, fmt.Errorf("open workspace: %s is empty; the editor must send an absolute directory", what)
	}
	if strings.IndexByte(dir, 0) >= 0 {
		return nil, fmt.Errorf("open workspace: %s %q contains a NUL byte", what, dir)
	}
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("open workspace: %s %q is not an absolute path", what, dir)
	}
	abs := filepath.Clean(dir)
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %s %s: %w", what, abs, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open workspace: %s %s is not a directory", what, abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %s %s: %w", what, abs, unwrapPathError(err))
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %s %s: %w", what, abs, unwrapPathError(err))
	}
	return &root{abs: abs, real: real, r: r}, nil
}

// Close releases the roots. Paths resolved earlier can no longer be used
// for I/O. Close is idempotent.
func (w *Workspace) Close() error {
	w.closeOnce.Do(func() {
		var errs []error
		for _, r := range w.roots {
			errs = append(errs, r.r.Close())
		}
		w.closeErr = errors.Join(errs...)
	})
	return w.closeErr
}

// Cwd returns the session's working directory, the first root, as the
// editor named it.
func (w *Workspace) Cwd() string { return w.roots[0].abs }

// Roots returns every root directory as the editor named it, cwd first.
func (w *Workspace) Roots() []string {
	out := make([]string, len(w.roots))
	for i, r := range w.roots {
		out[i] = r.abs
	}
	return out
}

// InRoots reports whether p is a valid Path of this workspace. Every Path
// returned by Resolve is; a zero Path or one made by another Workspace is
// not.
func (w *Workspace) InRoots(p Path) bool { return w.owns(p) }

// InCwd reports whether p lies in the session cwd (the first root), as
// opposed to only in an additional directory.
func (w *Workspace) InCwd(p Path) bool {
	if !w.owns(p) {
		return false
	}
	c := w.roots[0]
	return p.root == c || isWithin(p.real, c.real)
}

// InTempDir reports whether p lies in the system temporary directory
// (Options.TempDir, symlinks resolved).
func (w *Workspace) InTempDir(p Path) bool {
	return w.owns(p) && w.tempDir.holds(p, true)
}

func (w *Workspace) owns(p Path) bool {
	return p.root != nil && slices.Contains(w.roots, p.root)
}

func (w *Workspace) check(p Path) error {
	if w.owns(p) {
		return nil
	}
	return pathErr(p.abs, "path was not resolved by this workspace; call Resolve first", ErrNotWorkspacePath)
}

// Stat returns the file information of p, following symlinks inside the
// root.
func (w *Workspace) Stat(p Path) (fs.FileInfo, error) {
	if err := w.check(p); err != nil {
		return nil, err
	}
	fi, err := p.root.r.Stat(p.osRel())
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p.abs, unwrapPathError(err))
	}
	return fi, nil
}

// ReadFile returns the content of the regular file p, read through the
// root. It refuses devices, pipes and sockets, and files larger than
// Options.MaxFileBytes (with [ErrTooLarge]). It does not apply CheckRead;
// read_file and search_files call that themselves.
func (w *Workspace) ReadFile(p Path) ([]byte, error) {
	if err := w.check(p); err != nil {
		return nil, err
	}
	return w.readRoot(p, w.maxBytes)
}

// readRoot reads p through its root with the given limit (negative means
// none). O_NONBLOCK keeps a FIFO swapped in after Resolve from blocking the
// open; the fstat then refuses it.
func (w *Workspace) readRoot(p Path, limit int64) ([]byte, error) {
	f, err := p.root.r.OpenFile(p.osRel(), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.abs, unwrapPathError(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.abs, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("read %s: is a directory", p.abs)
	}
	if !fi.Mode().IsRegular() {
		return nil, specialFileErr(p.abs, fi.Mode())
	}
	if limit >= 0 && fi.Size() > limit {
		return nil, tooLarge(p.abs, fi.Size(), limit)
	}
	r := io.Reader(f)
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.abs, err)
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, tooLarge(p.abs, int64(len(data)), limit)
	}
	return data, nil
}

// tooLargeHint ends the refusal of a file too large to read.
const tooLargeHint = "; use the terminal (head, sed -n, grep) to inspect parts of it"

func tooLarge(path string, size, limit int64) error {
	return pathErr(path, fmt.Sprintf("file '%s' is %s, larger than the %s read limit", path, humanSize(size), humanSize(limit))+tooLargeHint, ErrTooLarge)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// unwrapPathError drops the *fs.PathError wrapper that os.Root adds, whose
// file name is root-relative and would confuse the model next to our
// absolute path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// isWithin reports whether p is dir or lies beneath it. Both must be clean.
func isWithin(p, dir string) bool {
	_, ok := relWithin(p, dir)
	return ok
}

// relWithin returns p relative to dir in slash form ("." for dir itself).
// Both must be clean absolute paths.
func relWithin(p, dir string) (string, bool) {
	if p == dir {
		return ".", true
	}
	n := len(dir)
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		n++ // the separator after dir
	}
	if len(p) <= n || !strings.HasPrefix(p, dir) || p[n-1] != filepath.Separator {
		return "", false
	}
	return filepath.ToSlash(p[n:]), true
}

// holds reports whether p is inside pl (or equal to it when orSelf).
func (pl place) holds(p Path, orSelf bool) bool {
	if pl.lit == "" {
		return false
	}
	for _, s := range [...]string{p.abs, p.real} {
		for _, d := range [...]string{pl.lit, pl.real} {
			if s == d {
				if orSelf {
					return true
				}
				continue
			}
			if isWithin(s, d) {
				return true
			}
		}
	}
	return false
}

// is reports whether p is exactly pl.
func (pl place) is(p Path) bool {
	if pl.lit == "" {
		return false
	}
	return p.abs == pl.lit || p.abs == pl.real || p.real == pl.lit || p.real == pl.real
}

// realpath resolves symlinks in the longest existing prefix of p, as
// Python's os.path.realpath does, and keeps the rest lexically.
func realpath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(realpath(parent), filepath.Base(p))
}

// expandTilde replaces a leading "~" or "~/" with home.
func expandTilde(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~"+string(filepath.Separator)) || strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// parseSafeRoots parses HERMES_WRITE_SAFE_ROOT: os.PathListSeparator
// separated, "~" expanded, symlinks resolved, empty segments ignored,
// duplicates collapsed. It also returns the display form used in messages.
func parseSafeRoots(v, home string) ([]place, string) {
	if v == "" {
		return nil, ""
	}
	var out []place
	var show []string
	for _, seg := range filepath.SplitList(v) {
		if seg == "" {
			continue
		}
		seg = expandTilde(seg, home)
		abs, err := filepath.Abs(seg)
		if err != nil {
			continue
		}
		pl := newPlace(abs)
		if slices.ContainsFunc(out, func(o place) bool { return o.real == pl.real }) {
			continue
		}
		out = append(out, pl)
		show = append(show, pl.real)
	}
	slices.Sort(show)
	return out, strings.Join(show, string(os.PathListSeparator))
}
