package ssh

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
// remote files newer than marker (those the command wrote) and removes
// the marker. Files Denied, ignored by .gitignore, outside the workspace
// or changed here meanwhile are not written.
func (e *Env) pull(ctx context.Context, pgid int, marker string) (SyncStats, error) {
	script := fmt.Sprintf("kill -KILL -- -%d 2>/dev/null\n"+
		"cd %s || exit 0\n"+
		"find . -name .git -prune -o -type f -newer %s -print0 | tar -c --null -T - -f -\n"+
		"rm -f %s\n", pgid, rq(e.r.remoteDir), shq(marker), shq(marker))
	s, _, err := e.session(ctx)
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
	st, rerr := e.tree.Unpack(out)
	_, _ = io.Copy(io.Discard, out)
	werr := s.Wait()
	if rerr != nil {
		return st, rerr
	}
	if werr != nil {
		return st, fmt.Errorf("%w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return st, nil
}
