// Package atomicfile replaces files so that a reader sees the old content
// or the new, never a part: the data goes to a temporary file in the same
// folder, which is synced, given its mode and renamed over the target; the
// folder is then synced so that the rename survives a crash. It is the one
// atomic-write helper of the module: the workspace's writes, the skills,
// the memory files, the recorded model scripts, config.yaml and .env, and
// the headless client's fs/write_text_file and the files the ssh and
// docker backends copy back (streamed, with [Create]) all go through it.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Prefix starts the name of every temporary file ([Prefix] + six random
// letters and digits). The workspace watcher ignores such names, so an
// editor never sees them come and go.
const Prefix = ".hermes-tmp."

// Options are the rarely needed knobs of [WriteIn]; the zero value is right
// for every caller but tests.
type Options struct {
	// Failpoint, when set, is called before the steps "write", "sync" and
	// "rename"; an error it returns fails the write at that step, as a
	// real failure would (tests check that nothing is left behind).
	Failpoint func(step string) error
}

// Error is a failed write: Step says which part failed ("create temporary
// file", "write", "set mode", "sync", "close", "rename") and Err why, with
// the temporary file's name (a *fs.PathError) taken off.
type Error struct {
	Step string
	Err  error
}

// Error returns "step: reason"; the write and close steps are the reason
// alone.
func (e *Error) Error() string {
	if e.Step == "write" || e.Step == "close" {
		return e.Err.Error()
	}
	return e.Step + ": " + e.Err.Error()
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// Write replaces the file at path with data, giving it mode perm (the
// caller keeps an existing file's mode by passing it). The folder must
// exist.
func Write(path string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return &Error{Step: "create temporary file", Err: bare(err)}
	}
	defer root.Close()
	return WriteIn(root, filepath.Base(path), data, perm, Options{})
}

// WriteIn replaces name, a path below root, with data, giving it mode perm.
// The temporary file and the rename stay inside root, so a write can never
// land outside it; the temporary file never outlives a failure. The error,
// if any, is an [*Error].
func WriteIn(root *os.Root, name string, data []byte, perm fs.FileMode, o Options) error {
	f, err := Create(root, name, perm, o)
	if err != nil {
		return err
	}
	if err := f.step("write", func() error { _, err := f.f.Write(data); return err }); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a replacement of one file being written: [Create] opens it, the
// caller writes the new content (it may stream any size) and then either
// calls [File.Commit], which puts it in place of the old file, or
// [File.Abort], which leaves the old file as it was. Until then the content
// is in a temporary file beside the target ([File.TempName]). A File is
// not safe for concurrent use.
type File struct {
	root       *os.Root
	f          *os.File
	tmp, name  string
	perm       fs.FileMode
	o          Options
	closed     bool
	failed     error
	terminated bool
}

// Create starts replacing name, a path below root whose folder exists,
// with content to be written to the returned File; perm is the mode it
// will have. The error, if any, is an [*Error].
func Create(root *os.Root, name string, perm fs.FileMode, o Options) (*File, error) {
	dir := filepath.Dir(name)
	var f *os.File
	var tmp string
	var err error
	for range 100 {
		tmp = filepath.Join(dir, Prefix+randomSuffix())
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, &Error{Step: "create temporary file", Err: bare(err)}
	}
	return &File{root: root, f: f, tmp: tmp, name: name, perm: perm, o: o}, nil
}

// TempName is the temporary file's path below the root, for reading back
// what was written before committing it.
func (w *File) TempName() string { return w.tmp }

// Write appends p to the new content. An error, an [*Error] with step
// "write", stays: Commit then fails with it.
func (w *File) Write(p []byte) (int, error) {
	if w.failed != nil {
		return 0, w.failed
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.failed = &Error{Step: "write", Err: bare(err)}
		return n, w.failed
	}
	return n, nil
}

// step runs one step of the write, after the failpoint.
func (w *File) step(name string, do func() error) error {
	if w.o.Failpoint != nil {
		if err := w.o.Failpoint(name); err != nil {
			return &Error{Step: name, Err: err}
		}
	}
	if err := do(); err != nil {
		return &Error{Step: name, Err: bare(err)}
	}
	return nil
}

// Commit gives the new content its mode, syncs it and renames it over the
// target, then syncs the folder. On any failure (an [*Error]) the old file
// is left as it was and the temporary file is removed.
func (w *File) Commit() (err error) {
	if w.terminated {
		return &Error{Step: "rename", Err: fs.ErrClosed}
	}
	w.terminated = true
	defer func() {
		if err != nil {
			w.remove()
		}
	}()
	if w.failed != nil {
		return w.failed
	}
	if err = w.step("set mode", func() error { return w.f.Chmod(w.perm) }); err != nil {
		return err
	}
	if err = w.step("sync", w.f.Sync); err != nil {
		return err
	}
	w.closed = true
	if err = w.step("close", w.f.Close); err != nil {
		return err
	}
	if err = w.step("rename", func() error { return w.root.Rename(w.tmp, w.name) }); err != nil {
		return err
	}
	syncDir(w.root, filepath.Dir(w.name))
	return nil
}

// Abort drops the new content: the temporary file is removed and the
// target left as it was. After Commit it does nothing.
func (w *File) Abort() {
	if w.terminated {
		return
	}
	w.terminated = true
	w.remove()
}

// remove closes and removes the temporary file.
func (w *File) remove() {
	if !w.closed {
		w.closed = true
		w.f.Close()
	}
	_ = w.root.Remove(w.tmp)
}

// syncDir makes a rename in dir durable. Some file systems cannot sync a
// folder; the rename has happened all the same, so that is not an error.
func syncDir(root *os.Root, dir string) {
	if d, err := root.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// bare takes the path off a path or link error: the path is the temporary
// file's, which means nothing to whoever reads the message.
func bare(err error) error {
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

// randomSuffix returns six random letters and digits, like mkstemp's XXXXXX.
func randomSuffix() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b [6]byte
	for i := range b {
		b[i] = alphabet[rand.N(len(alphabet))]
	}
	return string(b[:])
}
