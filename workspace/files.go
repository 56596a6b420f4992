package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Editor is what Files needs from the editor: ACP's fs/read_text_file and
// fs/write_text_file for one session. The agent implements it over ACP;
// paths are absolute. An implementation must report a file the editor
// cannot find with an error that wraps [fs.ErrNotExist] (for example by
// mapping ACP's "resource not found", -32002), so that Files can tell a
// missing file from a broken connection.
type Editor interface {
	// ReadTextFile returns the whole text of the file as the editor sees
	// it, including unsaved changes (fs/read_text_file).
	ReadTextFile(ctx context.Context, absPath string) (string, error)
	// WriteTextFile replaces the file's text in the editor, creating the
	// file if needed (fs/write_text_file).
	WriteTextFile(ctx context.Context, absPath, content string) error
}

// Files reads and writes workspace files through the editor when the client
// advertised the capability, and on disk otherwise. It is safe for
// concurrent use when its Editor is; it owns nothing that needs closing.
type Files struct {
	w        *Workspace
	ed       Editor
	canRead  bool
	canWrite bool
}

// NewFiles returns a Files for w. canRead and canWrite are the client's
// fs.readTextFile and fs.writeTextFile capabilities; with a nil ed both are
// treated as false.
func NewFiles(w *Workspace, ed Editor, canRead, canWrite bool) *Files {
	if ed == nil {
		canRead, canWrite = false, false
	}
	return &Files{w: w, ed: ed, canRead: canRead, canWrite: canWrite}
}

// ErrEditorRefused reports a read the editor refused or failed (an error
// answer to fs/read_text_file, or "not found" for a file that exists on
// disk). The error that wraps it carries the editor's reason; the disk was
// not read instead.
var ErrEditorRefused = errors.New("the editor did not serve the read")

// Workspace returns the workspace the files belong to.
func (f *Files) Workspace() *Workspace { return f.w }

// Read returns the content of p. When the editor can read, the content is
// the editor's (unsaved buffer text included); a "not found" answer from
// the editor for a file the disk does not have either is returned as an
// error wrapping [fs.ErrNotExist]. When the editor refuses or fails in any
// other way, or says "not found" for a file that exists on disk, the error
// wraps [ErrEditorRefused] and the editor's own error (its message and
// data), and the disk is never read in its place. Before asking the editor, Read checks
// that no component of p became a symbolic link since Resolve (the error
// wraps [ErrPathChanged]). Without the capability Read uses
// [Workspace.ReadFile]. Files larger than Options.MaxFileBytes are refused
// with [ErrTooLarge] before the editor is asked. Read does not apply
// CheckRead.
func (f *Files) Read(ctx context.Context, p Path) ([]byte, error) {
	if err := f.w.check(p); err != nil {
		return nil, err
	}
	if !f.canRead {
		return f.w.ReadFile(p)
	}
	fi, statErr := p.root.r.Stat(p.osRel())
	switch {
	case statErr == nil && fi.IsDir():
		return nil, fmt.Errorf("read %s: is a directory", p.abs)
	case statErr == nil && !fi.Mode().IsRegular():
		return nil, specialFileErr(p.abs, fi.Mode())
	case statErr == nil && fi.Size() > f.w.limit():
		return nil, tooLarge(p.abs, fi.Size(), f.w.limit())
	}
	if err := f.w.recheck(p, "read"); err != nil {
		return nil, err
	}
	text, err := f.ed.ReadTextFile(ctx, p.abs)
	if err == nil {
		if int64(len(text)) > f.w.limit() {
			return nil, tooLarge(p.abs, int64(len(text)), f.w.limit())
		}
		return []byte(text), nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("read %s: %w", p.abs, ctxErr)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The editor did not answer in time: say so rather than read a
		// disk copy that may differ from its buffer.
		return nil, fmt.Errorf("read %s: %w", p.abs, err)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if statErr != nil {
			return nil, fmt.Errorf("read %s: %w", p.abs, err)
		}
		// The disk has the file: it is not missing (a write must not take
		// it for new), but the editor would not serve it. Say so, keeping
		// the editor's reason, and do not read around it.
		f.w.log.Warn("the editor reports an existing file as not found; not read from disk", "path", p.abs, "err", err)
		return nil, fmt.Errorf("read %s: the file exists on disk but the editor reports it as not found (%v); it was not read from disk: %w", p.abs, err, ErrEditorRefused)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// The editor failed and the disk has no such file either.
		return nil, fmt.Errorf("read %s: %w (editor: %v)", p.abs, fs.ErrNotExist, err)
	}
	// The editor refused or failed: its reason (message and data) goes back
	// whole, and the disk is not read in its place: the editor decides what
	// the agent may read while it serves reads.
	f.w.log.Warn("editor read failed; not read from disk", "path", p.abs, "err", err)
	return nil, fmt.Errorf("read %s: %w: %w", p.abs, ErrEditorRefused, err)
}

// recheck verifies, immediately before p's absolute path is handed to the
// editor (which follows symbolic links as the kernel does), that the path
// still names the file Resolve found: the root, as the editor names it, is
// still the directory the workspace opened, and no existing component
// below it has become a symbolic link since (Resolve's result has none).
// A swap between the approval and the editor's write is thus refused, as
// os.Root refuses it for the disk. What is missing is fine: the editor
// creates it. The error wraps [ErrPathChanged] and tells the model what to
// do.
func (w *Workspace) recheck(p Path, op string) error {
	changed := func(what string) error {
		return pathErr(p.abs, fmt.Sprintf("Cannot %s '%s': %s since the path was checked; nothing was done through the editor. Resolve the path again (read the file first) and retry if the change is still wanted.", op, p.abs, what), ErrPathChanged)
	}
	rfi, err := p.root.r.Stat(".")
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, p.abs, unwrapPathError(err))
	}
	if fi, err := os.Stat(p.root.abs); err != nil || !os.SameFile(fi, rfi) {
		return changed(fmt.Sprintf("the workspace folder %s no longer leads to %s", p.root.abs, p.root.real))
	}
	if p.rel == "." {
		return nil
	}
	prefix := ""
	for _, c := range strings.Split(p.rel, "/") {
		prefix = path.Join(prefix, c)
		fi, err := p.root.r.Lstat(filepath.FromSlash(prefix))
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return nil
		case err != nil:
			return fmt.Errorf("%s %s: %w", op, p.abs, unwrapPathError(err))
		case fi.Mode()&fs.ModeSymlink != 0:
			return changed(fmt.Sprintf("%s became a symbolic link", p.root.path(prefix).abs))
		}
	}
	return nil
}

// Write replaces the content of p. It applies CheckWrite(p, "Write") and
// [KeepConventions] against the current content (read the same way Read
// does; a missing file has none). When the editor can write, the editor
// writes the file and the disk is not touched by this process except for
// creating missing parent directories, and the path is checked again
// (no component became a symbolic link) right before fs/write_text_file;
// otherwise the write is
// [Workspace.WriteFile]'s atomic disk write.
func (f *Files) Write(ctx context.Context, p Path, content []byte) (WriteInfo, error) {
	if err := f.w.CheckWrite(p, "Write"); err != nil {
		return WriteInfo{}, err
	}
	if !f.canWrite {
		return f.w.WriteFile(p, content)
	}
	if p.rel == "." {
		return WriteInfo{}, fmt.Errorf("write %s: is a directory (a workspace root)", p.abs)
	}
	before, err := f.Read(ctx, p)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return WriteInfo{}, fmt.Errorf("write %s: read current content: %w", p.abs, err)
	}
	info := WriteInfo{Path: p, Created: created, Before: before, ViaEditor: true}
	if info.After, err = KeepConventions(p.Base(), before, content); err != nil {
		return WriteInfo{}, fmt.Errorf("write %s: %w", p.abs, err)
	}
	info.DirsCreated, err = f.w.mkdirParents(p)
	if err != nil {
		return WriteInfo{}, err
	}
	if err := f.w.recheck(p, "write"); err != nil {
		return WriteInfo{}, err
	}
	if err := f.ed.WriteTextFile(ctx, p.abs, string(info.After)); err != nil {
		return WriteInfo{}, fmt.Errorf("write %s: editor: %w", p.abs, err)
	}
	info.Bytes = len(info.After)
	return info, nil
}
