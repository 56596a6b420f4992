package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// This file exports what the read_file and search_files tools need beyond
// Resolve and Files: the .gitignore matcher the Watcher uses, streaming
// access to large files, and directory handles for parallel tree walks.

// IgnoreMatcher applies the .gitignore files of one directory tree, with
// the semantics the [Watcher] uses (gitignore(5): nested files, deeper files
// overriding shallower ones, "!" negation, directory-only patterns, "**").
// Paths are slash-separated and relative to the top of the tree ("." is
// the top itself). The caller loads each .gitignore with [IgnoreMatcher.Set]
// as its walk reaches it. An IgnoreMatcher is not safe for concurrent use:
// one goroutine (the walker) owns it.
type IgnoreMatcher struct {
	rules *ignoreRules
}

// NewIgnoreMatcher returns a matcher with no patterns.
func NewIgnoreMatcher() *IgnoreMatcher {
	return &IgnoreMatcher{rules: newIgnoreRules()}
}

// Set replaces the patterns of the .gitignore file in the directory dir
// (slash path relative to the top, "." for the top) with those parsed from
// data; empty data removes them.
func (m *IgnoreMatcher) Set(dir string, data []byte) {
	if dir == "" {
		dir = "."
	}
	m.rules.set(path.Clean(dir), data)
}

// Excluded reports the verdict of the patterns for rel itself, without
// looking at its parent directories: a walker that never descends into an
// excluded directory gets git's answer (git cannot re-include a file below
// an excluded directory).
func (m *IgnoreMatcher) Excluded(rel string, isDir bool) bool {
	if rel == "." || rel == "" || len(m.rules.byDir) == 0 {
		return false
	}
	return m.rules.match(rel, isDir)
}

// OpenRegular opens the regular file p for reading through its root, for
// callers that stream a file too large to read whole: it applies no size
// limit. Like ReadFile it refuses directories, devices, pipes and sockets
// (a FIFO swapped in after Resolve cannot block the open), and it does not
// apply CheckRead. The caller owns the file and must close it.
func (w *Workspace) OpenRegular(p Path) (*os.File, fs.FileInfo, error) {
	if err := w.check(p); err != nil {
		return nil, nil, err
	}
	f, err := p.root.r.OpenFile(p.osRel(), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", p.abs, unwrapPathError(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w", p.abs, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: is a directory", p.abs)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, specialFileErr(p.abs, fi.Mode())
	}
	return f, fi, nil
}

// OpenDirRoot opens the directory p as an [os.Root] nested in p's
// workspace root, for walking a tree: names opened through it cannot
// escape it, and opening a direct child costs one system call. The caller
// owns the returned root and must close it.
func (w *Workspace) OpenDirRoot(p Path) (*os.Root, error) {
	if err := w.check(p); err != nil {
		return nil, err
	}
	if p.rel == "." {
		r, err := p.root.r.OpenRoot(".")
		if err != nil {
			return nil, fmt.Errorf("open directory %s: %w", p.abs, unwrapPathError(err))
		}
		return r, nil
	}
	r, err := p.root.r.OpenRoot(p.osRel())
	if err != nil {
		return nil, fmt.Errorf("open directory %s: %w", p.abs, unwrapPathError(err))
	}
	return r, nil
}

// Child returns the Path of rel (a slash path such as "a/b.go") below the
// directory dir, taken lexically: it is meant for walkers that found rel
// through dir without following symbolic links, so no component of rel is
// a link that could lead elsewhere. rel must be local (no "..", not
// absolute, not empty).
func (w *Workspace) Child(dir Path, rel string) (Path, error) {
	if err := w.check(dir); err != nil {
		return Path{}, err
	}
	if rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return Path{}, pathErr(rel, fmt.Sprintf("path '%s' is not a plain relative path below %s", rel, dir.abs), ErrInvalidPath)
	}
	return dir.root.path(path.Join(dir.rel, path.Clean(rel))), nil
}

// ReadsFromEditor reports whether Read asks the editor (the client
// advertised fs/read_text_file), so that unsaved buffers are seen; when it
// is false Read reads the disk.
func (f *Files) ReadsFromEditor() bool { return f.canRead }
