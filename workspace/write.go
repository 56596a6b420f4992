package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
)

// utf8BOM is the UTF-8 byte order mark.
const utf8BOM = "\xef\xbb\xbf"

// crlfSample is how much of an existing file larger than the read limit is
// read to learn its conventions (hermes's _detect_line_ending looks at the
// first 4 KB).
const crlfSample = 4096

// tempPrefix starts the name of WriteFile's temporary files (those of the
// module's one atomic write). The watcher ignores files with this prefix.
const tempPrefix = atomicfile.Prefix

// WriteInfo describes a completed write.
type WriteInfo struct {
	// Path is the file written.
	Path Path
	// Bytes is the number of bytes written, after normalisation.
	Bytes int
	// Created reports that the file did not exist before.
	Created bool
	// DirsCreated lists the directories created for the file, outermost
	// first, as absolute paths. Nil when none were needed.
	DirsCreated []string
	// Before is the previous content, nil when the file was created (or
	// was larger than the read limit).
	Before []byte
	// After is the content written: the caller's text with the existing
	// file's encoding, byte order mark and line endings applied (see
	// [KeepConventions]).
	After []byte
	// ViaEditor reports that the editor wrote the file (Files.Write with a
	// client that can write), not this process.
	ViaEditor bool
}

// KeepConventions returns the bytes to write for content, the UTF-8 text a
// tool wants the file named name to hold, given existing, the file's
// current content (nil for a new file, whose content is written as given).
// The result keeps the existing file's conventions without rewriting what
// the edit did not touch: its encoding and byte order mark (see
// [DetectEncoding]; a BOM at the start of content is dropped first) and its
// line endings (see [KeepEndings]: unchanged lines keep their own ending,
// new lines get the file's dominant one). It fails, and nothing should be
// written, when existing is binary ([ErrBinary]), cannot be re-encoded byte
// for byte ([ErrNotReversible]), or content holds a character the file's
// encoding cannot represent ([*UnrepresentableError]).
func KeepConventions(name string, existing, content []byte) ([]byte, error) {
	if existing == nil {
		return content, nil
	}
	ft, err := DecodeFile(name, existing)
	if err != nil {
		return nil, err
	}
	text := string(content)
	if ft.Encoding.BOM || ft.Encoding.Kind != UTF8 {
		text = strings.TrimLeft(text, "\ufeff")
	}
	return ft.Encoding.Encode(KeepEndings(ft.Text, text))
}

// WriteFile atomically replaces (or creates) the file p with content,
// through p's root. It applies CheckWrite(p, "Write"); creates missing parent
// directories; keeps the existing file's encoding, BOM and line endings,
// refusing a binary file or text the encoding cannot hold (see
// [KeepConventions]); writes a temporary file named .hermes-tmp.XXXXXX
// in the same directory (created with O_EXCL), syncs it, gives it the
// existing file's permission bits (0644 for a new file) and renames it over
// p, then syncs the directory. On failure the original file is untouched
// and the temporary file is removed. File ownership is not preserved.
func (w *Workspace) WriteFile(p Path, content []byte) (WriteInfo, error) {
	if err := w.CheckWrite(p, "Write"); err != nil {
		return WriteInfo{}, err
	}
	before, mode, exists, err := w.current(p)
	if err != nil {
		return WriteInfo{}, err
	}
	info := WriteInfo{Path: p, Created: !exists}
	if exists && int64(len(before)) <= w.limit() {
		info.Before = before
	}
	if info.After, err = KeepConventions(p.Base(), before, content); err != nil {
		return WriteInfo{}, fmt.Errorf("write %s: %w", p.abs, err)
	}
	info.DirsCreated, err = w.mkdirParents(p)
	if err != nil {
		return WriteInfo{}, err
	}
	if err := w.replace(p, info.After, mode); err != nil {
		return WriteInfo{}, err
	}
	info.Bytes = len(info.After)
	return info, nil
}

func (w *Workspace) limit() int64 {
	if w.maxBytes < 0 {
		return 1<<63 - 1
	}
	return w.maxBytes
}

// current returns the content (or, above the read limit, the first 4 KB,
// enough for KeepConventions) and permission bits of the existing file p.
func (w *Workspace) current(p Path) (content []byte, mode fs.FileMode, exists bool, err error) {
	if p.rel == "." {
		return nil, 0, false, fmt.Errorf("write %s: is a directory (a workspace root)", p.abs)
	}
	fi, err := p.root.r.Lstat(p.osRel())
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, 0o644, false, nil // mkdirParents reports a file in the way
	case err != nil:
		return nil, 0, false, fmt.Errorf("write %s: %w", p.abs, unwrapPathError(err))
	case fi.IsDir():
		return nil, 0, false, fmt.Errorf("write %s: is a directory", p.abs)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, 0, false, fmt.Errorf("write %s: became a symbolic link after it was resolved; resolve the path again", p.abs)
	case !fi.Mode().IsRegular():
		return nil, 0, false, specialFileErr(p.abs, fi.Mode())
	}
	if fi.Size() > w.limit() {
		content, err = w.readHead(p, crlfSample)
		// Judge the encoding by whole characters only.
		content = cutIncompleteRune(content)
	} else {
		content, err = w.readRoot(p, -1)
	}
	if err != nil {
		return nil, 0, false, err
	}
	return content, fi.Mode().Perm(), true, nil
}

func (w *Workspace) readHead(p Path, n int) ([]byte, error) {
	f, err := p.root.r.Open(p.osRel())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.abs, unwrapPathError(err))
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := f.Read(buf)
	if m == 0 && err != nil {
		return nil, fmt.Errorf("read %s: %w", p.abs, err)
	}
	return buf[:m], nil
}

// mkdirParents creates p's missing parent directories inside the root and
// returns the ones it created, outermost first.
func (w *Workspace) mkdirParents(p Path) ([]string, error) {
	dir := path.Dir(p.rel)
	if dir == "." {
		return nil, nil
	}
	var created []string
	prefix := ""
	for _, c := range splitComponents(filepath.FromSlash(dir)) {
		prefix = path.Join(prefix, c)
		if created != nil {
			created = append(created, p.root.path(prefix).abs)
			continue
		}
		fi, err := p.root.r.Stat(filepath.FromSlash(prefix))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			created = append(created, p.root.path(prefix).abs)
		case err != nil:
			return nil, fmt.Errorf("create parent directories of %s: %w", p.abs, unwrapPathError(err))
		case !fi.IsDir():
			return nil, fmt.Errorf("create parent directories of %s: %s is not a directory", p.abs, p.root.path(prefix).abs)
		}
	}
	if created == nil {
		return nil, nil
	}
	if err := p.root.r.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
		return nil, fmt.Errorf("create parent directories of %s: %w", p.abs, unwrapPathError(err))
	}
	return created, nil
}

// replace writes content to a temporary file next to p and renames it
// over p (internal/atomicfile). The temporary file never outlives a
// failure.
func (w *Workspace) replace(p Path, content []byte, mode fs.FileMode) error {
	err := atomicfile.WriteIn(p.root.r, p.osRel(), content, mode, atomicfile.Options{Failpoint: w.failpoint})
	if err != nil {
		return fmt.Errorf("write %s: %w", p.abs, err)
	}
	return nil
}

// syncDir makes a rename in dir durable. Some file systems cannot sync a
// directory; that is logged, not returned, because the rename has happened.
func (w *Workspace) syncDir(r *root, dir string) {
	d, err := r.r.Open(filepath.FromSlash(dir))
	if err == nil {
		err = d.Sync()
		d.Close()
	}
	if err != nil {
		w.log.Debug("cannot sync directory", "dir", r.path(dir).abs, "err", err)
	}
}

// Remove deletes the regular file (or symbolic link) p, as V4A's
// "*** Delete File" does, after CheckWrite(p, "Delete"). Directories are
// refused.
func (w *Workspace) Remove(p Path) error {
	if err := w.CheckWrite(p, "Delete"); err != nil {
		return err
	}
	if p.rel == "." {
		return fmt.Errorf("delete %s: is a workspace root", p.abs)
	}
	fi, err := p.root.r.Lstat(p.osRel())
	if err != nil {
		return fmt.Errorf("delete %s: %w", p.abs, unwrapPathError(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("delete %s: is a directory; only files can be deleted", p.abs)
	}
	if err := p.root.r.Remove(p.osRel()); err != nil {
		return fmt.Errorf("delete %s: %w", p.abs, unwrapPathError(err))
	}
	w.syncDir(p.root, path.Dir(p.rel))
	return nil
}

// Rename moves the regular file from to the new name to, as V4A's
// "*** Move File: a -> b" does, after CheckWrite on both with verb "Move".
// The destination must not exist (the error wraps [fs.ErrExist]); missing
// parent directories are created. Within one root this is an atomic rename;
// across roots the file is written atomically at the destination (mode
// kept) and then the source is removed. The returned WriteInfo describes the
// destination.
func (w *Workspace) Rename(from, to Path) (WriteInfo, error) {
	if err := w.CheckWrite(from, "Move"); err != nil {
		return WriteInfo{}, err
	}
	if err := w.CheckWrite(to, "Move"); err != nil {
		return WriteInfo{}, err
	}
	if from.rel == "." || to.rel == "." {
		return WriteInfo{}, fmt.Errorf("move %s to %s: a workspace root cannot be moved or replaced", from.abs, to.abs)
	}
	fi, err := from.root.r.Lstat(from.osRel())
	if err != nil {
		return WriteInfo{}, fmt.Errorf("move %s: %w", from.abs, unwrapPathError(err))
	}
	if !fi.Mode().IsRegular() {
		return WriteInfo{}, fmt.Errorf("move %s: not a regular file; only files can be moved", from.abs)
	}
	if _, err := to.root.r.Lstat(to.osRel()); err == nil {
		return WriteInfo{}, fmt.Errorf("move %s to %s: destination %w; delete it first or choose another name", from.abs, to.abs, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return WriteInfo{}, fmt.Errorf("move %s to %s: %w", from.abs, to.abs, unwrapPathError(err))
	}
	info := WriteInfo{Path: to, Created: true, Bytes: int(fi.Size())}
	info.DirsCreated, err = w.mkdirParents(to)
	if err != nil {
		return WriteInfo{}, err
	}
	if from.root == to.root {
		if err := from.root.r.Rename(from.osRel(), to.osRel()); err != nil {
			return WriteInfo{}, fmt.Errorf("move %s to %s: %w", from.abs, to.abs, unwrapPathError(err))
		}
		w.syncDir(to.root, path.Dir(to.rel))
		if d := path.Dir(from.rel); d != path.Dir(to.rel) {
			w.syncDir(from.root, d)
		}
		return info, nil
	}
	data, err := w.readRoot(from, -1)
	if err != nil {
		return WriteInfo{}, err
	}
	if err := w.replace(to, data, fi.Mode().Perm()); err != nil {
		return WriteInfo{}, err
	}
	if err := from.root.r.Remove(from.osRel()); err != nil {
		return WriteInfo{}, fmt.Errorf("move %s to %s: copied, but removing the source failed: %w", from.abs, to.abs, unwrapPathError(err))
	}
	w.syncDir(from.root, path.Dir(from.rel))
	info.After = data
	return info, nil
}
