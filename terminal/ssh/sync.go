package ssh

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/hermes-acp/hermes-acp/terminal/wsync"
)

// SyncStats says what a sync did.
type SyncStats = wsync.Stats

// Denied reports whether the workspace file rel (slash-separated, relative
// to the workspace folder) is never copied to the remote nor written back
// (see wsync.Denied).
func Denied(rel string) bool { return wsync.Denied(rel) }

// Sync copies the workspace to the remote folder now (what Start does
// before every command): the files new or changed since the last sync,
// and deletes there the files deleted here.
func (e *Env) Sync(ctx context.Context) (SyncStats, error) {
	return e.push(ctx)
}

// push sends the files that changed since the last push and deletes on
// the remote the files deleted here (wsync.Tree.Push over ssh sessions).
func (e *Env) push(ctx context.Context) (SyncStats, error) {
	return e.tree.Push(ctx, transport{e})
}

// transport carries wsync's pushes over ssh sessions.
type transport struct{ e *Env }

func (t transport) Delete(ctx context.Context, rels []string) error {
	var list bytes.Buffer
	for _, rel := range rels {
		list.WriteString("./" + rel + "\x00")
	}
	_, err := t.e.run(ctx, fmt.Sprintf("cd %s && xargs -0 rm -f --", rq(t.e.r.remoteDir)), &list)
	return err
}

func (t transport) Extract(ctx context.Context, r io.Reader) error {
	script := fmt.Sprintf("mkdir -p %s && tar -x --no-same-owner -f - -C %s", rq(t.e.r.remoteDir), rq(t.e.r.remoteDir))
	_, err := t.e.run(ctx, script, r)
	return err
}

// pull kills what is left of the process group pgid, then brings back the
// remote files newer than marker (those the command wrote), deletes here
// the copied files that are gone there (those the command deleted; it
// started on the copy of generation since) and removes the marker. Files
// Denied, ignored by .gitignore, outside the workspace or changed here
// meanwhile are not written nor deleted.
//
// The remote sends the list of its files (a line with its length in
// bytes, then NUL-terminated paths; "-" when it could not list them all,
// and nothing is deleted), then a tar of the files newer than marker. A
// deletion changes its folder's modification time: when no folder changed
// since marker, nothing was deleted and the list is not made (a "-").
func (e *Env) pull(ctx context.Context, pgid int, marker string, since int) (SyncStats, error) {
	list, m := shq(marker+".list"), shq(marker)
	script := fmt.Sprintf("kill -KILL -- -%d 2>/dev/null\n"+
		"cd %s || exit 0\n"+
		"if [ -z \"$(find . -name .git -prune -o -type d -newer %s -print | head -n 1)\" ]; then echo -\n"+
		"elif find . -name .git -prune -o -type f -print0 > %s; then wc -c < %s; cat %s\n"+
		"else echo -; fi\n"+
		"rm -f %s\n"+
		"find . -name .git -prune -o -type f -newer %s -print0 | tar -c --null -T - -f -\n"+
		"rm -f %s\n", pgid, rq(e.r.remoteDir), m, list, list, list, list, m, m)
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
		st, rerr = e.tree.Unpack(br)
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
		gone, err := e.tree.RemoveGone(there, since)
		st.Removed = gone.Removed
		st.Kept = append(st.Kept, gone.Kept...)
		if err != nil {
			return st, err
		}
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
