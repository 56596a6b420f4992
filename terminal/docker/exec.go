package docker

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/wsync"
)

// markerEnv marks every process of one command: exec'd processes cannot
// be signalled through the API, so a kill runs a second exec that signals
// every process in the container whose environment carries the command's
// mark — the command's whole tree, including what left its process group.
const markerEnv = "HERMES_ACP_EXEC"

// killGrace is the time a killed command has between SIGTERM and SIGKILL.
const killGrace = time.Second

var _ terminal.Environment = (*Env)(nil)

// Start runs s in the session's container (created on first use) with
// `docker exec` semantics: its own shell, the workspace path as working
// directory, stdout and stderr merged.
func (e *Env) Start(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	return e.start(ctx, s, true)
}

// StartHelper starts s in the session's container as Start does (a kill
// ends its whole tree), but with a remote daemon copies nothing of the
// workspace in or back around it: for a helper that works only over its
// stdio and in folders of its own (execute_code's relay), beside
// commands that do sync.
func (e *Env) StartHelper(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	return e.start(ctx, s, false)
}

func (e *Env) start(ctx context.Context, s terminal.Spec, sync bool) (terminal.Process, error) {
	cli, id, err := e.container(ctx)
	if err != nil {
		return nil, err
	}
	mark := newMark()
	cmd := []string{"sh", "-c", s.Command}
	env := []string{markerEnv + "=" + mark}
	var marker string
	var tree *wsync.Tree
	var gens []int
	if e.m.remote && sync {
		if _, err := e.Sync(ctx); err != nil {
			return nil, err
		}
		// The copies the command starts on: its deletions are judged
		// against them (see wsync.Tree.RemoveGone).
		for _, t := range e.trees {
			gens = append(gens, t.Gen())
		}
		marker = fmt.Sprintf("/tmp/.hermes-acp-sync-%s-%d", newMark()[:12], e.seq.Add(1))
		cmd = []string{"sh", "-c", markerScript, marker, s.Command}
		if !s.PTY && len(e.trees) == 1 {
			// One exec runs the command and copies back; the wrapper
			// is not marked, so a kill leaves it to copy back.
			tree = e.trees[0]
			cmd = []string{"sh", "-c", runPullScript, marker, s.Command, tree.Root(), pullScript, markerEnv + "=" + mark}
			env = nil
		}
	}
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+s.Env[k])
	}
	if s.PTY {
		env = append(env, "TERM=xterm-256color")
	}
	ex, err := cli.execCreate(ctx, id, execConfig{
		User: e.user(), Tty: s.PTY, AttachStdin: s.Stdin || s.PTY, AttachStdout: true, AttachStderr: true,
		Env: env, WorkingDir: s.Dir, Cmd: cmd,
	})
	if err != nil {
		return nil, fmt.Errorf("docker exec create: %w", err)
	}
	att, err := cli.execAttach(ctx, ex, s.PTY)
	if err != nil {
		return nil, fmt.Errorf("docker exec start: %w", err)
	}
	pr, pw := io.Pipe()
	p := &process{env: e, cli: cli, container: id, exec: ex, mark: mark, att: att,
		out: pr, stdin: s.Stdin || s.PTY, done: make(chan struct{}), marker: marker, tree: tree, gens: gens, synced: make(chan struct{})}
	if !p.stdin {
		_ = att.CloseWrite()
	}
	go p.copy(pw, s.PTY)
	return p, nil
}

func newMark() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// process is a command running in the container.
type process struct {
	env       *Env
	cli       *engine
	container string
	exec      string
	mark      string
	att       *hijacked
	out       *io.PipeReader
	stdin     bool

	writeMu sync.Mutex

	killOnce sync.Once
	killed   chan struct{} // closed by Kill
	killMu   sync.Mutex

	done chan struct{} // closed when the output ended
	exit terminal.Exit
	wait sync.Once

	// remote daemon: the command's sync marker in the container, and
	// closed when the exit is known and the files it changed are back.
	marker string
	tree   *wsync.Tree // set when the exec copies back itself
	gens   []int       // the generation of each tree the command started on
	synced chan struct{}
}

// copy demultiplexes the exec's stream into one pipe. With a remote
// daemon the output ends after the files the command changed are copied
// back, with a note when some could not be or were kept.
func (p *process) copy(w *io.PipeWriter, tty bool) {
	var err error
	var pulled chan pullResult
	switch {
	case tty:
		_, err = io.Copy(w, p.att.Reader)
	case p.tree != nil:
		// The exec's standard error carries pullScript's output.
		pr, pw := io.Pipe()
		pulled = make(chan pullResult, 1)
		go func() {
			st, err := readPull(bufio.NewReaderSize(pr, 64<<10), p.tree, p.gens[0])
			_, _ = io.Copy(io.Discard, pr)
			pulled <- pullResult{p.tree.Root(), st, err}
		}()
		_, err = stdcopy.StdCopy(w, pw, p.att.Reader)
		pw.Close()
	default:
		_, err = stdcopy.StdCopy(w, w, p.att.Reader)
	}
	if p.marker == "" {
		_ = w.CloseWithError(err)
		p.att.Close()
		close(p.done)
		return
	}
	p.att.Close()
	close(p.done)
	p.wait.Do(p.inspect)
	var note string
	if pulled != nil {
		note = pullNote([]pullResult{<-pulled})
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		note = p.env.pull(ctx, p.cli, p.container, p.marker, p.gens)
		cancel()
	}
	close(p.synced)
	if note != "" {
		_, _ = io.WriteString(w, note)
	}
	_ = w.CloseWithError(err)
}

func (p *process) PID() int          { return 0 }
func (p *process) Output() io.Reader { return p.out }

func (p *process) Write(b []byte) (int, error) {
	if !p.stdin {
		return 0, errors.New("the command's standard input is not open")
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.att.Conn.Write(b)
}

func (p *process) CloseStdin() error {
	if !p.stdin {
		return nil
	}
	return p.att.CloseWrite()
}

// Kill signals every process of the command (SIGTERM, then SIGKILL after
// the grace) through an exec in the container.
func (p *process) Kill() {
	p.killOnce.Do(func() {
		p.killMu.Lock()
		p.killed = make(chan struct{})
		close(p.killed)
		p.killMu.Unlock()
		go func() {
			p.signal("TERM")
			select {
			case <-p.done:
			case <-time.After(killGrace):
			}
			p.signal("KILL")
		}()
	})
}

func (p *process) wasKilled() bool {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	return p.killed != nil
}

// killScript signals every process whose environment holds $1 (the
// mark) with signal $2: all are stopped first, so that none runs on (a
// shell going to its next command) between the signals, as when a
// process group is signalled at once.
const killScript = `p=; for d in /proc/[0-9]*; do if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx "$1"; then p="$p ${d#/proc/}"; fi; done; ` +
	`[ -n "$p" ] && { kill -STOP $p; kill -$2 $p; kill -CONT $p; } 2>/dev/null; true`

// signal runs the kill script in the container as the command's user.
func (p *process) signal(sig string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ex, err := p.cli.execCreate(ctx, p.container, execConfig{
		User: p.env.user(), AttachStdout: true, AttachStderr: true,
		Cmd: []string{"sh", "-c", killScript, "kill", markerEnv + "=" + p.mark, sig},
	})
	if err != nil {
		return
	}
	att, err := p.cli.execAttach(ctx, ex, false)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, att.Reader)
	att.Close()
}

// Wait waits for the output to end and the exec to exit, and returns its
// exit status from the daemon.
func (p *process) Wait() terminal.Exit {
	if p.marker != "" {
		<-p.synced
		return p.exit
	}
	p.wait.Do(p.inspect)
	return p.exit
}

// inspect waits for the output to end and records the exec's exit.
func (p *process) inspect() {
	<-p.done
	code := execExit(context.Background(), p.cli, p.exec)
	p.exit = terminal.Exit{Code: code}
	if p.wasKilled() {
		switch code {
		case 128 + 15:
			p.exit.Signal = "terminated"
		case 128 + 9:
			p.exit.Signal = "killed"
		}
		// Nothing of the command may outlive Wait: signal what is left.
		p.signal("KILL")
	}
}
