package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks bounds the symbolic links followed while resolving one path,
// as Linux's MAXSYMLINKS does.
const maxSymlinks = 40

// Path is a location inside one root of a [Workspace], produced only by
// [Workspace.Resolve]. It is a small immutable value, safe to copy and to
// compare with ==. The zero Path is invalid.
type Path struct {
	root *root
	rel  string // slash-separated, relative to the root, "." for the root
	abs  string // root as the editor named it + rel
	real string // root with symlinks resolved + rel
}

// Abs returns the absolute path in the editor's spelling of the root; this
// is the form to show the user and to send over ACP.
func (p Path) Abs() string { return p.abs }

// Rel returns the slash-separated path relative to its root ("." for the
// root itself). It never starts with "/" and never contains "..".
func (p Path) Rel() string { return p.rel }

// Root returns the root directory that contains p, as the editor named it.
func (p Path) Root() string {
	if p.root == nil {
		return ""
	}
	return p.root.abs
}

// Real returns the absolute path with the root's symlinks resolved.
func (p Path) Real() string { return p.real }

// Base returns the last element of the path.
func (p Path) Base() string { return filepath.Base(p.abs) }

// IsZero reports whether p is the zero Path.
func (p Path) IsZero() bool { return p.root == nil }

// IsRoot reports whether p is a root directory itself.
func (p Path) IsRoot() bool { return p.root != nil && p.rel == "." }

// String returns Abs.
func (p Path) String() string { return p.abs }

// URI returns the file:// URI of p, percent-encoded.
func (p Path) URI() string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p.abs)}).String()
}

func (p Path) osRel() string { return filepath.FromSlash(p.rel) }

func (r *root) path(rel string) Path {
	return Path{
		root: r,
		rel:  rel,
		abs:  filepath.Join(r.abs, filepath.FromSlash(rel)),
		real: filepath.Join(r.real, filepath.FromSlash(rel)),
	}
}

// Resolve parses a path from the editor or the model into a Path. It
// accepts absolute paths, paths relative to the session cwd, "~" and "~/..."
// (Options.Home), and file:// URIs (percent-decoded; host empty or
// "localhost"). Symbolic links are followed component by component, and
// ".." is applied after the link before it, as the kernel does. Resolve
// never looks at anything outside the roots: an absolute path must name a
// root or a directory above one to be considered, so /proc/self/root/...
// and /dev/fd/... are refused.
//
// The errors wrap [ErrEmptyPath], [ErrInvalidPath], [ErrUnsupportedScheme],
// [ErrOutsideWorkspace] or [ErrSpecialFile], and their text tells the model
// what to do. A path that does not exist yet resolves without error, so
// writes can create it: the names after a missing component are kept, and
// a ".." after one returns to the directory before it and carries on from
// there through the file system (see walk), so the result is the file the
// kernel would open once the missing folders were created. The returned
// Path has no "..", and no symbolic link below its root; every check
// ([Workspace.CheckRead], [Workspace.CheckWrite], [IsSensitiveForApproval])
// and every route (disk, editor, search, lint, approval) uses it, never the
// spelling.
func (w *Workspace) Resolve(s string) (Path, error) {
	if strings.TrimSpace(s) == "" {
		return Path{}, pathErr(s, fmt.Sprintf("path is empty; give a file path relative to %s or an absolute path inside the workspace", w.Cwd()), ErrEmptyPath)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Path{}, pathErr(s, fmt.Sprintf("path %q contains a NUL byte; remove it", s), ErrInvalidPath)
	}
	abs, err := w.absolute(s)
	if err != nil {
		return Path{}, err
	}
	if isBlockedDevicePath(filepath.Clean(abs)) {
		return Path{}, deviceErr(s)
	}
	return w.walk(s, abs)
}

// absolute turns the literal input into an absolute, uncleaned path.
func (w *Workspace) absolute(s string) (string, error) {
	if hasPrefixFold(s, "file:") {
		return w.fromFileURI(s)
	}
	if i := strings.Index(s, "://"); i > 0 && isScheme(s[:i]) {
		return "", pathErr(s, fmt.Sprintf("path '%s' uses the unsupported URI scheme %q; give a plain path or a file:// URI", s, s[:i]), ErrUnsupportedScheme)
	}
	if s == "~" || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "~"+string(filepath.Separator)) {
		if w.home.lit == "" {
			return "", pathErr(s, fmt.Sprintf("path '%s' starts with ~ but the home directory is unknown; give an absolute path", s), ErrInvalidPath)
		}
		return w.home.lit + string(filepath.Separator) + s[1:], nil
	}
	if filepath.IsAbs(s) {
		return s, nil
	}
	return w.Cwd() + string(filepath.Separator) + s, nil
}

func (w *Workspace) fromFileURI(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", pathErr(s, fmt.Sprintf("path '%s' is not a valid file URI (%v); give a plain absolute path instead", s, unwrapURLError(err)), ErrInvalidPath)
	}
	if u.Opaque != "" {
		return "", pathErr(s, fmt.Sprintf("file URI '%s' is not absolute; use file:///absolute/path or a plain path", s), ErrInvalidPath)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", pathErr(s, fmt.Sprintf("file URI '%s' names the remote host %q; only local files can be used", s, u.Host), ErrInvalidPath)
	}
	if u.RawQuery != "" {
		return "", pathErr(s, fmt.Sprintf("file URI '%s' has a query; percent-encode '?' in file names as %%3F", s), ErrInvalidPath)
	}
	p := u.Path // percent-decoded; a fragment such as #L10 is dropped
	if p == "" {
		return "", pathErr(s, fmt.Sprintf("file URI '%s' has no path", s), ErrEmptyPath)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", pathErr(s, fmt.Sprintf("file URI '%s' decodes to a path with a NUL byte", s), ErrInvalidPath)
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", pathErr(s, fmt.Sprintf("file URI '%s' is not absolute; use file:///absolute/path", s), ErrInvalidPath)
	}
	return p, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// isScheme reports whether s is a URI scheme (RFC 3986) of two or more
// characters; a single letter is a Windows drive.
func isScheme(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// walk resolves abs component by component, as the kernel resolves a path
// once its missing folders exist. cur is always a path whose existing
// components are free of symlinks: inside a root it is in the root's real
// spelling; above the roots it is a lexical ancestor of a root, which is
// never stat'ed. A component that does not exist (or lies below a file)
// is appended by name and counted in missing; nothing below it can exist,
// so the names after it are appended too, and ".." removes the last one.
// Once ".." has removed every missing name, cur is an existing directory
// again and the walk goes on through the file system: "missing/../link"
// follows the symbolic link "link" exactly as "link" does. The result
// never holds a symlink or a "..", so the editor and the disk see the same
// file whatever they do with the spelling.
func (w *Workspace) walk(display, abs string) (Path, error) {
	vol := filepath.VolumeName(abs)
	top := vol + string(filepath.Separator)
	comps := splitComponents(abs[len(vol):])
	cur := top
	links := 0
	missing := 0 // trailing components of cur that do not exist
	via := ""    // first symlink followed, for the error message
	var last fs.FileMode
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		last = 0
		if c == ".." {
			cur = filepath.Dir(cur)
			if missing > 0 {
				missing--
			}
			continue
		}
		if missing > 0 {
			cur = filepath.Join(cur, c)
			missing++
			continue
		}
		next := filepath.Join(cur, c)
		r, rel, ok := w.locate(next)
		if !ok {
			if w.aboveRoot(next) {
				cur = next
				continue
			}
			return Path{}, w.outside(display, filepath.Join(append([]string{next}, comps[i+1:]...)...), via)
		}
		if rel == "." {
			cur = r.real
			last = fs.ModeDir
			continue
		}
		fi, err := r.r.Lstat(filepath.FromSlash(rel))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				cur = filepath.Join(r.real, filepath.FromSlash(rel))
				missing = 1
				continue
			}
			return Path{}, fmt.Errorf("resolve %s: %w", display, unwrapPathError(err))
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = filepath.Join(r.real, filepath.FromSlash(rel))
			last = fi.Mode()
			continue
		}
		links++
		if links > maxSymlinks {
			return Path{}, pathErr(display, fmt.Sprintf("path '%s' has too many levels of symbolic links", display), ErrInvalidPath)
		}
		target, err := r.r.Readlink(filepath.FromSlash(rel))
		if err != nil {
			return Path{}, fmt.Errorf("resolve %s: %w", display, unwrapPathError(err))
		}
		if via == "" {
			via = filepath.Join(r.abs, filepath.FromSlash(rel))
		}
		hop := target
		if !filepath.IsAbs(hop) {
			hop = filepath.Join(cur, hop)
		}
		if isBlockedDevicePath(filepath.Clean(hop)) {
			return Path{}, deviceErr(display)
		}
		tvol := filepath.VolumeName(target)
		rest := comps[i+1:]
		comps = append(splitComponents(target[len(tvol):]), rest...)
		if filepath.IsAbs(target) {
			cur = tvol + string(filepath.Separator)
		}
		i = -1
	}
	r, rel, ok := w.locate(cur)
	if !ok {
		return Path{}, w.outside(display, cur, via)
	}
	if last&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0 {
		return Path{}, specialFileErr(display, last)
	}
	return r.path(rel), nil
}

func splitComponents(p string) []string {
	var out []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// locate finds the innermost root containing the clean absolute path p, in
// either spelling of the root, and returns p relative to it.
func (w *Workspace) locate(p string) (*root, string, bool) {
	var best *root
	bestRel := ""
	bestLen := -1
	for _, r := range w.roots {
		for _, base := range [...]string{r.real, r.abs} {
			if rel, ok := relWithin(p, base); ok && len(base) > bestLen {
				best, bestRel, bestLen = r, rel, len(base)
			}
		}
	}
	return best, bestRel, best != nil
}

// aboveRoot reports whether p is a strict ancestor of some root.
func (w *Workspace) aboveRoot(p string) bool {
	for _, r := range w.roots {
		if isWithin(r.real, p) || isWithin(r.abs, p) {
			return true
		}
	}
	return false
}

func (w *Workspace) outside(display, resolved, via string) error {
	roots := strings.Join(w.Roots(), ", ")
	var msg string
	switch {
	case via != "":
		msg = fmt.Sprintf("path '%s' leads through the symbolic link '%s' to '%s', outside the workspace (roots: %s); only files inside the roots can be used",
			display, via, resolved, roots)
	case filepath.Clean(display) != resolved:
		msg = fmt.Sprintf("path '%s' resolves to '%s', which is outside the workspace (roots: %s); use a path inside one of the roots",
			display, resolved, roots)
	default:
		msg = fmt.Sprintf("path '%s' is outside the workspace (roots: %s); use a path inside one of the roots", display, roots)
	}
	return pathErr(display, msg, ErrOutsideWorkspace)
}

func deviceErr(display string) error {
	return pathErr(display, fmt.Sprintf("Cannot read '%s': this is a device file that would block or produce infinite output.", display), ErrSpecialFile)
}

func specialFileErr(display string, mode fs.FileMode) error {
	kind := "special file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case mode&fs.ModeSocket != 0:
		kind = "socket"
	case mode&fs.ModeDevice != 0:
		kind = "device file"
	}
	return pathErr(display, fmt.Sprintf("path '%s' is a %s; only regular files and directories can be used", display, kind), ErrSpecialFile)
}
