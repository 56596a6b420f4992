// Package wsync keeps a copy of a local workspace folder on another
// machine or in a container in step with it (issue 18), whatever carries
// the bytes: it decides which files are copied (not ignored by
// .gitignore, not Denied), remembers what was sent (size, mtime, mode)
// so that only changes travel, and writes the files a command changed
// remotely back into the workspace safely (through os.Root, a temporary
// file and a rename), keeping the local version of a file changed on
// both sides. The ssh and docker terminal environments supply the
// transport.
package wsync

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// FileStat is what the manifest remembers of a file sent or brought back.
type FileStat struct {
	Size  int64
	MTime int64 // nanoseconds
	Mode  fs.FileMode
}

// StatOf is the FileStat of fi.
func StatOf(fi fs.FileInfo) FileStat {
	return FileStat{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Mode: fi.Mode().Perm()}
}

// Stats says what a sync did.
type Stats struct {
	Files   int   // files in the workspace copy
	Sent    int   // files sent (new or changed)
	Bytes   int64 // their bytes
	Deleted int   // files deleted on the remote (deleted here)
	Back    int   // files brought back
	Removed int   // files deleted here (deleted on the remote)
	// Kept are files changed both here and on the remote while the
	// command ran: the local version was kept.
	Kept []string
}

// Denied reports whether the workspace file rel (slash-separated, relative
// to the workspace folder) is never copied to the remote nor written back:
// environment files (.env, .env.*, .envrc), private keys (id_* without
// .pub, *.pem, *.key, *.p12, *.pfx), credential files (.netrc, .pgpass,
// .npmrc, .pypirc, .git-credentials) and anything inside .git, .ssh, .aws,
// .gnupg, .kube, .docker or .azure folders.
func Denied(rel string) bool {
	parts := strings.Split(strings.ToLower(rel), "/")
	for _, c := range parts[:len(parts)-1] {
		switch c {
		case ".git", ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure":
			return true
		}
	}
	base := parts[len(parts)-1]
	switch base {
	case ".git", ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure",
		".env", ".envrc", ".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials":
		return true
	}
	if strings.HasPrefix(base, ".env.") {
		return true
	}
	if strings.HasPrefix(base, "id_") && !strings.HasSuffix(base, ".pub") {
		return true
	}
	switch path.Ext(base) {
	case ".pem", ".key", ".p12", ".pfx":
		return true
	}
	return false
}

// Scan lists the workspace's regular files that are copied: not ignored
// by .gitignore, not Denied, not symbolic links.
func Scan(root string) (map[string]FileStat, error) {
	files := map[string]FileStat{}
	m := workspace.NewIgnoreMatcher()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: skipped
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (Denied(rel) || m.Excluded(rel, true)) {
				return filepath.SkipDir
			}
			if data, err := os.ReadFile(filepath.Join(p, ".gitignore")); err == nil {
				m.Set(rel, data)
			}
			return nil
		}
		if !d.Type().IsRegular() || Denied(rel) || m.Excluded(rel, false) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		files[rel] = StatOf(fi)
		return nil
	})
	return files, err
}

// IgnoredHere reports whether the local .gitignore files exclude rel or
// one of its folders.
func IgnoredHere(root, rel string) bool {
	m := workspace.NewIgnoreMatcher()
	dirs := strings.Split(rel, "/")
	cur := "."
	for i, c := range dirs {
		if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(cur), ".gitignore")); err == nil {
			m.Set(cur, data)
		}
		if cur == "." {
			cur = c
		} else {
			cur += "/" + c
		}
		if m.Excluded(cur, i < len(dirs)-1) {
			return true
		}
	}
	return false
}

// Transport carries a sync to the remote copy.
type Transport interface {
	// Delete deletes the files rels (slash-separated, relative to the
	// copy's folder) from the remote copy.
	Delete(ctx context.Context, rels []string) error
	// Extract unpacks the tar stream r (entries "./rel") into the remote
	// copy's folder, creating it when missing.
	Extract(ctx context.Context, r io.Reader) error
}

// Tree is one local workspace folder and what its remote copy holds. It
// is safe for concurrent use; syncs are serialised.
type Tree struct {
	root  string
	log   *slog.Logger
	label string // names the transport in log lines ("ssh sync")

	mu       sync.Mutex // serialises syncs; guards manifest, sentAt, gen and ready
	manifest map[string]FileStat
	// sentAt is the push (its Gen) that last sent each file of manifest.
	sentAt map[string]int
	gen    int  // pushes that sent something
	ready  bool // the remote folder exists and matches manifest
}

// NewTree returns the Tree of the local folder root (absolute); label
// names the sync in log lines ("ssh sync"); log may be nil.
func NewTree(root string, log *slog.Logger, label string) *Tree {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Tree{root: root, log: log, label: label, manifest: map[string]FileStat{}, sentAt: map[string]int{}}
}

// Gen counts the pushes that sent files. A command started after a push
// runs on the remote copy of Gen(); RemoveGone with that generation
// deletes here only files the command could have seen.
func (t *Tree) Gen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

// Root is the local folder.
func (t *Tree) Root() string { return t.root }

// Push sends the files that changed since the last push (size, mtime or
// mode differ from the manifest) in one tar stream, and deletes on the
// remote the files deleted here. With nothing to do it does not call the
// transport.
func (t *Tree) Push(ctx context.Context, tr Transport) (Stats, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur, err := Scan(t.root)
	if err != nil {
		return Stats{}, fmt.Errorf("scan %s: %w", t.root, err)
	}
	st := Stats{Files: len(cur)}
	var changed, deleted []string
	for rel, fs := range cur {
		if old, ok := t.manifest[rel]; !ok || old != fs {
			changed = append(changed, rel)
		}
	}
	for rel := range t.manifest {
		if _, ok := cur[rel]; !ok {
			deleted = append(deleted, rel)
		}
	}
	if t.ready && len(changed) == 0 && len(deleted) == 0 {
		return st, nil
	}
	sort.Strings(changed)
	sort.Strings(deleted)
	if len(deleted) > 0 {
		if err := tr.Delete(ctx, deleted); err != nil {
			return st, fmt.Errorf("delete removed files: %w", err)
		}
		for _, rel := range deleted {
			delete(t.manifest, rel)
			delete(t.sentAt, rel)
		}
		st.Deleted = len(deleted)
	}
	pr, pw := io.Pipe()
	sent := make(map[string]FileStat, len(changed))
	var bytesSent int64
	packed := make(chan struct{})
	go func() {
		defer close(packed)
		// Buffered: each write may be a packet or a frame.
		bw := bufio.NewWriterSize(pw, 256<<10)
		tw := tar.NewWriter(bw)
		err := func() error {
			for _, rel := range changed {
				fi, n, err := addFile(tw, t.root, rel)
				if err != nil {
					return err
				}
				if fi != nil {
					sent[rel] = StatOf(fi)
					bytesSent += n
				}
			}
			if err := tw.Close(); err != nil {
				return err
			}
			return bw.Flush()
		}()
		pw.CloseWithError(err)
	}()
	err = tr.Extract(ctx, pr)
	pr.CloseWithError(err)
	<-packed
	if err != nil {
		return st, err
	}
	st.Bytes = bytesSent
	if len(sent) > 0 {
		t.gen++
	}
	for rel, fs := range sent {
		t.manifest[rel] = fs
		t.sentAt[rel] = t.gen
	}
	st.Sent = len(sent)
	t.ready = true
	return st, nil
}

// addFile writes the workspace file rel to tw; a file gone meanwhile is
// skipped (nil info).
func addFile(tw *tar.Writer, root, rel string) (fs.FileInfo, int64, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, 0, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, nil
	}
	h := &tar.Header{
		Typeflag: tar.TypeReg, Name: "./" + rel, Size: fi.Size(), Mode: int64(fi.Mode().Perm()),
		ModTime: fi.ModTime(), Format: tar.FormatPAX,
	}
	if err := tw.WriteHeader(h); err != nil {
		return nil, 0, err
	}
	n, err := io.CopyN(tw, f, fi.Size())
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", rel, err)
	}
	return fi, n, nil
}

// Unpack writes the regular files of the tar stream r (the files a
// command changed remotely; entries relative to the copy's folder) into
// the workspace. Several archives one after the other are read as one.
// Files Denied, ignored by .gitignore, outside the workspace or changed
// here since the last sync are not written; the last are listed in Kept.
func (t *Tree) Unpack(r io.Reader) (Stats, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var st Stats
	root, err := os.OpenRoot(t.root)
	if err != nil {
		return st, err
	}
	defer root.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		more, err := nextArchive(br)
		if err != nil {
			return st, fmt.Errorf("read the changed files: %w", err)
		}
		if !more {
			return st, nil
		}
		if err := t.unpackOne(root, tar.NewReader(br), &st); err != nil {
			return st, err
		}
	}
}

// nextArchive skips the zero blocks between concatenated archives and
// reports whether another one follows.
func nextArchive(br *bufio.Reader) (bool, error) {
	for {
		b, err := br.Peek(512)
		if len(b) == 0 && errors.Is(err, io.EOF) {
			return false, nil
		}
		if len(b) < 512 {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return false, err
		}
		if !allZero(b) {
			return true, nil
		}
		_, _ = br.Discard(512)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func (t *Tree) unpackOne(root *os.Root, tr *tar.Reader, st *Stats) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the changed files: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		rel, ok := t.relOf(h.Name)
		if !ok {
			continue
		}
		if Denied(rel) || IgnoredHere(t.root, rel) {
			continue
		}
		local := filepath.FromSlash(rel)
		fi, err := root.Lstat(local)
		switch {
		case err == nil && !fi.Mode().IsRegular():
			t.log.Warn(t.label+": not a regular file here; not brought back", "path", rel)
			continue
		case err == nil:
			if old, ok := t.manifest[rel]; ok && old != StatOf(fi) {
				st.Kept = append(st.Kept, rel)
				continue
			}
		case !errors.Is(err, fs.ErrNotExist):
			t.log.Warn(t.label+": cannot look at the local file", "path", rel, "error", err)
			continue
		}
		// The entry streams to a temporary file beside the local one
		// (atomicfile), so a file of any size costs a copy buffer, not its
		// size in memory, and a reader never sees half a file.
		w, err := receive(root, local, tr, fs.FileMode(h.Mode).Perm())
		if err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
		if fi != nil {
			if same, err := sameContent(root, local, w.TempName()); err == nil && same {
				w.Abort()
				t.manifest[rel] = StatOf(fi)
				continue
			}
		}
		if err := w.Commit(); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
		if fi, err := root.Stat(local); err == nil {
			t.manifest[rel] = StatOf(fi)
		}
		st.Back++
	}
}

// receive copies r into the replacement of name inside root, with mode
// perm (0644 when 0), creating name's folder if needed. The caller commits
// or aborts it.
func receive(root *os.Root, name string, r io.Reader, perm fs.FileMode) (*atomicfile.File, error) {
	if dir := filepath.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if perm == 0 {
		perm = 0o644
	}
	w, err := atomicfile.Create(root, name, perm, atomicfile.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := io.CopyBuffer(w, r, make([]byte, 256<<10)); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// sameContent reports whether files a and b of root hold the same bytes,
// reading both a block at a time.
func sameContent(root *os.Root, a, b string) (bool, error) {
	fa, err := root.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := root.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false, errors.Join(err1, err2)
	}
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			done := func(e error) bool { return errors.Is(e, io.EOF) || errors.Is(e, io.ErrUnexpectedEOF) }
			if done(ea) && done(eb) {
				return true, nil
			}
			return false, errors.Join(ea, eb)
		}
	}
}

// relOf cleans an entry name to a workspace-relative path; a path
// outside the workspace is refused.
func (t *Tree) relOf(name string) (string, bool) {
	rel := path.Clean(strings.TrimPrefix(name, "./"))
	if rel == "." || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		t.log.Warn(t.label+": refused a path outside the workspace", "path", name)
		return "", false
	}
	return rel, true
}

// RemoveGone deletes here the files the remote copy no longer has:
// present lists every file of the remote copy (relative to its folder),
// made by a command that ran on the copy of generation since (Gen after
// the push before it). A file sent or brought back by then and missing
// from present was deleted remotely; it is deleted here unless it changed
// here since (then it is kept and listed in Kept). A file a later push
// sent (another command's, while this one ran) may have reached the copy
// after the listing: it is left alone.
func (t *Tree) RemoveGone(present map[string]bool, since int) (Stats, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var st Stats
	root, err := os.OpenRoot(t.root)
	if err != nil {
		return st, err
	}
	defer root.Close()
	var gone []string
	for rel := range t.manifest {
		if !present[rel] && t.sentAt[rel] <= since {
			gone = append(gone, rel)
		}
	}
	sort.Strings(gone)
	for _, rel := range gone {
		local := filepath.FromSlash(rel)
		fi, err := root.Lstat(local)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			t.log.Warn(t.label+": cannot look at the local file", "path", rel, "error", err)
			continue
		case !fi.Mode().IsRegular() || StatOf(fi) != t.manifest[rel]:
			st.Kept = append(st.Kept, rel)
			delete(t.manifest, rel) // sent again by the next push
			delete(t.sentAt, rel)
			continue
		default:
			if err := root.Remove(local); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return st, fmt.Errorf("delete %s: %w", rel, err)
			}
			st.Removed++
		}
		delete(t.manifest, rel)
		delete(t.sentAt, rel)
	}
	return st, nil
}
