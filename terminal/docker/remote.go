package docker

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"

	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/terminal/wsync"
)

// remote daemon (issue 18): the workspace is copied into the container at
// the same path before each command and what the command changed is
// copied back after it. Copies in go as one tar stream into an exec'd
// `tar -x` running as the command's user (so the files are the user's).
// Copies back list the files newer than the command's marker (created
// when the command started, dated one second back so that a find
// comparing whole seconds misses nothing), pack them with tar and, when
// some folder changed, list every file so deletions are seen. With one
// workspace folder and no terminal this runs in the command's own exec,
// after the command, on the exec's standard error (the command's goes to
// its standard output): no second exec. Otherwise (a PTY merges the two
// streams; several folders) one exec per folder follows the command. The
// image needs sh, env, find, xargs, tar, touch and date (busybox has
// them).

// sshDockerSocket is the daemon socket an ssh:// host without a path
// reaches.
const sshDockerSocket = "/var/run/docker.sock"

// sshDial is how an ssh:// daemon is reached: HTTP over a unix socket on
// the remote host, through an ssh connection.
func (m *Manager) sshDial() (func(context.Context) (net.Conn, error), error) {
	u, err := url.Parse(m.host)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("docker host %q is not ssh://[user@]host[:port][/socket]", m.host)
	}
	cfg := m.cfg.SSH
	cfg.Host = u.Hostname()
	if u.User != nil {
		cfg.User = u.User.Username()
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("docker host %q: %q is not a port number", m.host, p)
		}
		cfg.Port = n
	}
	sock := sshDockerSocket
	if u.Path != "" && u.Path != "/" {
		sock = path.Clean(u.Path)
	}
	t, err := sshenv.NewTunnel(cfg, sshenv.Options{})
	if err != nil {
		return nil, fmt.Errorf("docker host %s: %w", m.host, err)
	}
	m.tunnel = t
	return func(ctx context.Context) (net.Conn, error) { return t.DialUnix(ctx, sock) }, nil
}

// prepare readies a new container of a remote daemon: /tmp for the
// sync markers and the workspace folders, owned by the command's user.
func (e *Env) prepare(ctx context.Context, cli *engine, id string) error {
	script := `u=$0; { mkdir -p /tmp && chmod 1777 /tmp; } 2>/dev/null; for r; do mkdir -p "$r" && chown "$u" "$r" || exit 1; done`
	args := append([]string{"sh", "-c", script, e.user()}, e.roots...)
	if _, err := execRun(ctx, cli, id, "0:0", args, nil, io.Discard); err != nil {
		return fmt.Errorf("prepare the workspace folders in the container: %w", err)
	}
	e.trees = make([]*wsync.Tree, len(e.roots))
	for i, r := range e.roots {
		e.trees[i] = wsync.NewTree(r, nil, "docker sync")
	}
	return nil
}

// execRun runs args in the container as user with stdin (nil: none),
// writes its standard output to stdout, and returns its standard error;
// a non-zero exit is an error carrying it.
func execRun(ctx context.Context, cli *engine, id, user string, args []string, stdin io.Reader, stdout io.Writer) (string, error) {
	ex, err := cli.execCreate(ctx, id, execConfig{
		User: user, AttachStdin: stdin != nil, AttachStdout: true, AttachStderr: true, Cmd: args,
	})
	if err != nil {
		return "", fmt.Errorf("docker exec create: %w", err)
	}
	att, err := cli.execAttach(ctx, ex, false)
	if err != nil {
		return "", fmt.Errorf("docker exec start: %w", err)
	}
	defer att.Close()
	stop := context.AfterFunc(ctx, att.Close)
	defer stop()
	if stdin != nil {
		go func() {
			// Buffered: each write is a frame on the connection.
			bw := bufio.NewWriterSize(att.Conn, 256<<10)
			if _, err := io.Copy(bw, stdin); err == nil {
				if bw.Flush() == nil {
					_ = att.CloseWrite()
				}
			}
		}()
	} else {
		_ = att.CloseWrite()
	}
	var stderr bytes.Buffer
	_, err = stdcopy.StdCopy(stdout, &limited{&stderr, 4096}, att.Reader)
	if ctx.Err() != nil {
		return stderr.String(), ctx.Err()
	}
	if err != nil {
		return stderr.String(), fmt.Errorf("docker exec: %w", err)
	}
	code := execExit(ctx, cli, ex)
	if code != 0 {
		return stderr.String(), fmt.Errorf("exit status %d: %s", code, strings.TrimSpace(stderr.String()))
	}
	return stderr.String(), nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// execExit waits for the exec to end and returns its exit code (-1 when
// the daemon does not say).
func execExit(ctx context.Context, cli *engine, execID string) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for {
		in, err := cli.execInspect(ctx, execID)
		if err != nil {
			return -1
		}
		if !in.Running {
			return in.ExitCode
		}
		select {
		case <-ctx.Done():
			return -1
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// transport carries wsync's pushes into the container.
type transport struct {
	e    *Env
	cli  *engine
	id   string
	root string
}

func (t transport) Delete(ctx context.Context, rels []string) error {
	var list bytes.Buffer
	for _, rel := range rels {
		list.WriteString("./" + rel + "\x00")
	}
	_, err := execRun(ctx, t.cli, t.id, t.e.user(), []string{"sh", "-c", `cd "$0" && xargs -0 rm -f --`, t.root}, &list, io.Discard)
	return err
}

func (t transport) Extract(ctx context.Context, r io.Reader) error {
	_, err := execRun(ctx, t.cli, t.id, t.e.user(), []string{"sh", "-c", `mkdir -p "$0" && tar -x -o -f - -C "$0"`, t.root}, r, io.Discard)
	return err
}

// markerScript starts a command of a remote daemon's container: it
// creates the command's marker ($0), dated one second back, then runs
// the command ($1).
const markerScript = `touch -d "@$(($(date +%s)-1))" "$0" 2>/dev/null || : > "$0"; exec sh -c "$1"`

// pullScript writes, for the workspace folder $1 and the marker $0: "=\0"
// when no folder changed since the marker (or the folder could not be
// listed whole: nothing is then taken as deleted), else "+\0", every
// file's path and an empty path ("\0"); then a tar stream (several
// archives one after the other) of the files newer than the marker.
// With $2 "rm" it removes the marker (the last folder's copy back).
const pullScript = `m=$0
if cd "$1" 2>/dev/null && [ -e "$m" ]; then
	if [ -n "$(find . -name .git -prune -o -type d -newer "$m" -print | head -n 1)" ] &&
		find . -name .git -prune -o -type f -print0 > "$m.list" 2>/dev/null; then
		printf '+\000'; cat "$m.list"; printf '\000'
	else printf '=\000'; fi
	rm -f "$m.list"
	find . -name .git -prune -o -type f -newer "$m" -print0 | xargs -0 -r tar -c -f - -- 2>/dev/null
fi
if [ "$2" = rm ]; then rm -f "$m"; fi; true`

// runPullScript runs a command of a remote daemon's container ($1) and
// copies back in the same exec: it creates the marker ($0) as
// markerScript does, runs the command marked with $4 (its standard error
// into its standard output), then writes pullScript's ($3) output for
// the workspace folder $2 to the exec's standard error, and exits with
// the command's status.
const runPullScript = `m=$0; c=$1; r=$2; p=$3; k=$4
touch -d "@$(($(date +%s)-1))" "$m" 2>/dev/null || : > "$m"
env "$k" sh -c "$c" 2>&1
s=$?
sh -c "$p" "$m" "$r" rm >&2 2>/dev/null
exit $s`

// pullResult is what copying back one workspace folder did.
type pullResult struct {
	root string
	st   wsync.Stats
	err  error
}

// pull copies back, in one exec per workspace folder, what the command of
// marker changed: new and changed files, and deletions. It returns a
// note for the command's output ("" when there is nothing to say).
func (e *Env) pull(ctx context.Context, cli *engine, id, marker string, gens []int) string {
	var res []pullResult
	for i, t := range e.trees {
		st, err := e.pullTree(ctx, cli, id, t, marker, gens[i], i == len(e.trees)-1)
		res = append(res, pullResult{t.Root(), st, err})
	}
	return pullNote(res)
}

// pullNote is the note for the command's output about copying back:
// failures and files kept ("" when there is nothing to say).
func pullNote(res []pullResult) string {
	var notes, kept []string
	for _, r := range res {
		if r.err != nil {
			notes = append(notes, fmt.Sprintf("[docker: the files the command changed in %s could not be copied back: %v]", r.root, r.err))
		}
		kept = append(kept, r.st.Kept...)
	}
	if len(kept) > 0 {
		notes = append(notes, fmt.Sprintf("[docker: kept the local version of %s: changed here and in the container while the command ran]", strings.Join(kept, ", ")))
	}
	if len(notes) == 0 {
		return ""
	}
	return "\n" + strings.Join(notes, "\n") + "\n"
}

func (e *Env) pullTree(ctx context.Context, cli *engine, id string, t *wsync.Tree, marker string, since int, last bool) (wsync.Stats, error) {
	rm := ""
	if last {
		rm = "rm"
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := execRun(ctx, cli, id, e.user(), []string{"sh", "-c", pullScript, marker, t.Root(), rm}, nil, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	br := bufio.NewReaderSize(pr, 64<<10)
	st, err := readPull(br, t, since)
	if err != nil {
		pr.CloseWithError(err)
		<-done
		return st, err
	}
	_, _ = io.Copy(io.Discard, br)
	if err := <-done; err != nil {
		return st, err
	}
	return st, nil
}

// readPull reads pullScript's output into t, for a command that started
// on t's copy of generation since.
func readPull(br *bufio.Reader, t *wsync.Tree, since int) (wsync.Stats, error) {
	kind, err := br.ReadString(0)
	if errors.Is(err, io.EOF) && kind == "" {
		return wsync.Stats{}, nil // the folder is not in the container
	}
	if err != nil {
		return wsync.Stats{}, fmt.Errorf("read the changed files: %w", err)
	}
	var present map[string]bool
	if kind == "+\x00" {
		present = map[string]bool{}
		for {
			name, err := br.ReadString(0)
			if err != nil {
				return wsync.Stats{}, fmt.Errorf("read the file list: %w", err)
			}
			name = strings.TrimSuffix(name, "\x00")
			if name == "" {
				break
			}
			present[path.Clean(strings.TrimPrefix(name, "./"))] = true
		}
	}
	st, err := t.Unpack(br)
	if err != nil {
		return st, err
	}
	if present != nil {
		gone, err := t.RemoveGone(present, since)
		st.Removed = gone.Removed
		st.Kept = append(st.Kept, gone.Kept...)
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// Sync copies the workspace's changes into the session's container now
// (what Start does before every command with a remote daemon), creating
// the container first; with a local daemon there is nothing to copy.
func (e *Env) Sync(ctx context.Context) (wsync.Stats, error) {
	cli, id, err := e.container(ctx)
	if err != nil || !e.m.remote {
		return wsync.Stats{}, err
	}
	var all wsync.Stats
	for _, t := range e.trees {
		st, err := t.Push(ctx, transport{e: e, cli: cli, id: id, root: t.Root()})
		if err != nil {
			return all, fmt.Errorf("copy %s into the container: %w", t.Root(), err)
		}
		all.Files += st.Files
		all.Sent += st.Sent
		all.Bytes += st.Bytes
		all.Deleted += st.Deleted
	}
	return all, nil
}
