package ssh

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// fileStat is what the manifest remembers of a file sent or brought back.
type fileStat struct {
	size  int64
	mtime int64 // nanoseconds
	mode  fs.FileMode
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode().Perm()}
}

// SyncStats says what a sync did.
type SyncStats struct {
	Files   int   // files in the workspace copy
	Sent    int   // files sent (new or changed)
	Bytes   int64 // their bytes
	Deleted int   // files deleted on the remote (deleted here)
	Back    int   // files brought back
	Removed int   // files deleted here (the command deleted them there)
	// Kept are files changed both here and on the remote while the
	// command ran (or deleted there and changed here): the local version
	// was kept.
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

// scan lists the workspace's regular files that are copied: not ignored
// by .gitignore, not Denied, not symbolic links.
func scan(root string) (map[string]fileStat, error) {
	files := map[string]fileStat{}
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
		files[rel] = statOf(fi)
		return nil
	})
	return files, err
}

// ignoredHere reports whether the local .gitignore files exclude rel or
// one of its folders.
func ignoredHere(root, rel string) bool {
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

// Sync copies the workspace to the remote folder now (what Start does
// before every command): the files new or changed since the last sync,
// and deletes there the files deleted here.
func (e *Env) Sync(ctx context.Context) (SyncStats, error) {
	return e.push(ctx)
}

// push sends the files that changed since the last push (size, mtime or
// mode differ from the manifest) in one tar stream, and deletes on the
// remote the files deleted here. With nothing to do it does not touch the
// connection.
func (e *Env) push(ctx context.Context) (SyncStats, error) {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	cur, err := scan(e.root)
	if err != nil {
		return SyncStats{}, fmt.Errorf("scan %s: %w", e.root, err)
	}
	st := SyncStats{Files: len(cur)}
	var changed, deleted []string
	for rel, fs := range cur {
		if old, ok := e.manifest[rel]; !ok || old != fs {
			changed = append(changed, rel)
		}
	}
	for rel := range e.manifest {
		if _, ok := cur[rel]; !ok {
			deleted = append(deleted, rel)
		}
	}
	if e.ready && len(changed) == 0 && len(deleted) == 0 {
		return st, nil
	}
	sort.Strings(changed)
	sort.Strings(deleted)
	if len(deleted) > 0 {
		var list bytes.Buffer
		for _, rel := range deleted {
			list.WriteString("./" + rel + "\x00")
		}
		if _, err := e.run(ctx, fmt.Sprintf("cd %s && xargs -0 rm -f --", rq(e.r.remoteDir)), &list); err != nil {
			return st, fmt.Errorf("delete removed files: %w", err)
		}
		for _, rel := range deleted {
			delete(e.manifest, rel)
		}
		st.Deleted = len(deleted)
	}
	pr, pw := io.Pipe()
	sent := make(map[string]fileStat, len(changed))
	var bytesSent int64
	packed := make(chan struct{})
	go func() {
		defer close(packed)
		// Buffered: each write to the session is an SSH packet.
		bw := bufio.NewWriterSize(pw, 256<<10)
		tw := tar.NewWriter(bw)
		err := func() error {
			for _, rel := range changed {
				fi, n, err := addFile(tw, e.root, rel)
				if err != nil {
					return err
				}
				if fi != nil {
					sent[rel] = statOf(fi)
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
	script := fmt.Sprintf("mkdir -p %s && tar -x --no-same-owner -f - -C %s", rq(e.r.remoteDir), rq(e.r.remoteDir))
	_, err = e.run(ctx, script, pr)
	pr.CloseWithError(err)
	<-packed
	if err != nil {
		return st, err
	}
	st.Bytes = bytesSent
	for rel, fs := range sent {
		e.manifest[rel] = fs
	}
	st.Sent = len(sent)
	e.ready = true
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

// pull kills what is left of the process group pgid, then brings back the
// remote files newer than marker (those the command wrote), deletes here
// the copied files that are gone there (those the command deleted) and
// removes the marker. Files Denied, ignored by .gitignore, outside the
// workspace or changed here meanwhile are not written nor deleted.
//
// The remote sends the list of its files (a line with its length in
// bytes, then NUL-terminated paths; "-" when it could not list them all,
// and nothing is deleted), then a tar of the files newer than marker. A
// deletion changes its folder's modification time: when no folder changed
// since marker, nothing was deleted and the list is not made (a "-").
func (e *Env) pull(ctx context.Context, pgid int, marker string) (SyncStats, error) {
	list, m := shq(marker+".list"), shq(marker)
	script := fmt.Sprintf("kill -KILL -- -%d 2>/dev/null\n"+
		"cd %s || exit 0\n"+
		"if [ -z \"$(find . -name .git -prune -o -type d -newer %s -print | head -n 1)\" ]; then echo -\n"+
		"elif find . -name .git -prune -o -type f -print0 > %s; then wc -c < %s; cat %s\n"+
		"else echo -; fi\n"+
		"rm -f %s\n"+
		"find . -name .git -prune -o -type f -newer %s -print0 | tar -c --null -T - -f -\n"+
		"rm -f %s\n", pgid, rq(e.r.remoteDir), m, list, list, list, list, m, m)
	// Held from the listing to the deletions: a push meanwhile would add
	// files to the manifest that the listing does not know.
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	s, err := e.session(ctx)
	if err != nil {
		return SyncStats{}, err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	out, err := s.StdoutPipe()
	if err != nil {
		return SyncStats{}, err
	}
	var stderr bytes.Buffer
	s.Stderr = &stderr
	if err := s.Start(script); err != nil {
		return SyncStats{}, err
	}
	br := bufio.NewReaderSize(out, 64<<10)
	there, rerr := readList(br)
	var st SyncStats
	if rerr == nil {
		st, rerr = e.unpack(br)
	}
	_, _ = io.Copy(io.Discard, br)
	werr := s.Wait()
	if rerr != nil {
		return st, rerr
	}
	if werr != nil {
		return st, fmt.Errorf("%w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	if there != nil {
		e.removeGone(there, &st)
	}
	return st, nil
}

// readList reads the remote's list of its files; nil when it sent none
// (the remote folder is missing, or it could not list every file).
func readList(br *bufio.Reader) (map[string]bool, error) {
	line, err := br.ReadString('\n')
	if errors.Is(err, io.EOF) && line == "" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the remote file list: %w", err)
	}
	line = strings.TrimSpace(line)
	if line == "-" {
		return nil, nil
	}
	n, err := strconv.ParseInt(line, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("read the remote file list: unexpected %q", line)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, fmt.Errorf("read the remote file list: %w", err)
	}
	there := map[string]bool{}
	for _, p := range strings.Split(string(data), "\x00") {
		if p != "" {
			there[path.Clean(strings.TrimPrefix(p, "./"))] = true
		}
	}
	return there, nil
}

// removeGone deletes here the files copied to the remote that are no
// longer there, when they did not change here since (those that did are
// Kept, and copied again by the next push). The caller holds syncMu.
func (e *Env) removeGone(there map[string]bool, st *SyncStats) {
	root, err := os.OpenRoot(e.root)
	if err != nil {
		e.log.Warn("ssh sync: cannot open the workspace to delete what the command deleted", "error", err)
		return
	}
	defer root.Close()
	gone := make([]string, 0)
	for rel := range e.manifest {
		if !there[rel] {
			gone = append(gone, rel)
		}
	}
	sort.Strings(gone)
	for _, rel := range gone {
		local := filepath.FromSlash(rel)
		fi, err := root.Lstat(local)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			delete(e.manifest, rel)
		case err != nil:
			e.log.Warn("ssh sync: cannot look at the local file", "path", rel, "error", err)
		case !fi.Mode().IsRegular() || statOf(fi) != e.manifest[rel]:
			st.Kept = append(st.Kept, rel)
		default:
			if err := root.Remove(local); err != nil {
				e.log.Warn("ssh sync: cannot delete the file the command deleted", "path", rel, "error", err)
				continue
			}
			delete(e.manifest, rel)
			st.Removed++
		}
	}
}

// unpack writes the regular files of the tar stream r into the
// workspace. The caller holds syncMu.
func (e *Env) unpack(r io.Reader) (SyncStats, error) {
	var st SyncStats
	root, err := os.OpenRoot(e.root)
	if err != nil {
		return st, err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return st, nil
		}
		if err != nil {
			return st, fmt.Errorf("read the changed files: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		rel := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if rel == "." || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			e.log.Warn("ssh sync: refused a path outside the workspace", "path", h.Name)
			continue
		}
		if Denied(rel) || ignoredHere(e.root, rel) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return st, fmt.Errorf("read %s: %w", rel, err)
		}
		local := filepath.FromSlash(rel)
		fi, err := root.Lstat(local)
		switch {
		case err == nil && !fi.Mode().IsRegular():
			e.log.Warn("ssh sync: not a regular file here; not brought back", "path", rel)
			continue
		case err == nil:
			if old, ok := e.manifest[rel]; ok && old != statOf(fi) {
				st.Kept = append(st.Kept, rel)
				continue
			}
			if cur, err := root.ReadFile(local); err == nil && bytes.Equal(cur, data) {
				e.manifest[rel] = statOf(fi)
				continue
			}
		case !errors.Is(err, fs.ErrNotExist):
			e.log.Warn("ssh sync: cannot look at the local file", "path", rel, "error", err)
			continue
		}
		if err := writeVia(root, local, data, fs.FileMode(h.Mode).Perm()); err != nil {
			return st, fmt.Errorf("write %s: %w", rel, err)
		}
		if fi, err := root.Stat(local); err == nil {
			e.manifest[rel] = statOf(fi)
		}
		st.Back++
	}
}

// writeVia writes data to name inside root through a temporary file and a
// rename, so a reader never sees half a file.
func writeVia(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if perm == 0 {
		perm = 0o644
	}
	tmp := filepath.Join(filepath.Dir(name), ".hermes-acp-sync-"+filepath.Base(name)+".tmp")
	if err := root.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	if err := root.Chmod(tmp, perm); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}
