package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"unicode/utf8"
)

// WriteExact replaces (or creates) the file p with exactly content, for a
// restore that must be byte for byte (checkpoints, issue 29): unlike Write
// it applies no conventions (encoding, byte order mark, line endings). perm
// is the permission bits the file gets; 0 keeps the existing file's (0644
// for a new file). It applies CheckWrite(p, "Write") and creates missing
// parent directories. Through the editor (fs/write_text_file, so that its
// open buffer follows) when the client can write and content is UTF-8 text
// without a byte order mark; otherwise, and for binary content, with
// WriteFile's atomic disk write. viaEditor reports which.
func (f *Files) WriteExact(ctx context.Context, p Path, content []byte, perm fs.FileMode) (viaEditor bool, err error) {
	w := f.w
	if err := w.CheckWrite(p, "Write"); err != nil {
		return false, err
	}
	if p.rel == "." {
		return false, fmt.Errorf("write %s: is a directory (a workspace root)", p.abs)
	}
	existing := fs.FileMode(0)
	if fi, err := p.root.r.Lstat(p.osRel()); err == nil {
		if !fi.Mode().IsRegular() {
			return false, fmt.Errorf("write %s: not a regular file (%s)", p.abs, fi.Mode().Type())
		}
		existing = fi.Mode().Perm()
	}
	if perm == 0 {
		perm = existing
		if perm == 0 {
			perm = 0o644
		}
	}
	if _, err := w.mkdirParents(p); err != nil {
		return false, err
	}
	if f.canWrite && editorText(content) {
		if err := w.recheck(p, "write"); err != nil {
			return false, err
		}
		if err := f.ed.WriteTextFile(ctx, p.abs, string(content)); err != nil {
			return false, fmt.Errorf("write %s: editor: %w", p.abs, err)
		}
		if existing != perm {
			// The editor creates files with its own mode: put back the
			// recorded one (an executable script stays executable).
			if err := p.root.r.Chmod(p.osRel(), perm); err != nil {
				return true, fmt.Errorf("write %s: set mode %v: %w", p.abs, perm, unwrapPathError(err))
			}
		}
		return true, nil
	}
	return false, w.replace(p, content, perm)
}

// editorText reports whether content can go through fs/write_text_file and
// come back byte for byte: valid UTF-8 without a NUL byte (a binary file)
// or a byte order mark (which editors keep or drop as they please).
func editorText(content []byte) bool {
	return utf8.Valid(content) && bytes.IndexByte(content, 0) < 0 && !bytes.HasPrefix(content, []byte("\xef\xbb\xbf"))
}
