//go:build unix

package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Start starts s in a new process group (a new session with the PTY).
func (l *Local) Start(ctx context.Context, s Spec) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The sandbox applies in process (startSandboxed), without the
	// helper that wraps editor terminals' commands (Argv).
	argv := []string{l.shell(), "-c", s.Command}
	startCmd := func(start func() error) error { return start() }
	if l.Sandbox != nil {
		writable := l.Sandbox.WritableDirs(l.Roots)
		startCmd = func(start func() error) error { return startSandboxed(writable, start) }
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = l.environ(s.Env)
	grace := l.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	p := &localProcess{cmd: cmd, grace: grace, done: make(chan struct{}), eof: make(chan struct{})}
	if s.PTY {
		if !hasEnv(cmd.Env, "TERM") {
			cmd.Env = append(cmd.Env, "TERM=xterm-256color")
		}
		var master *os.File
		err := startCmd(func() (err error) {
			master, err = pty.StartWithAttrs(cmd, &pty.Winsize{Rows: 50, Cols: 200}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", argv[0], err)
		}
		p.out, p.in, p.pty = master, master, true
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", argv[0], err)
		}
		cmd.Stdout, cmd.Stderr = w, w
		var stdinW *os.File
		if s.Stdin {
			sr, sw, err := os.Pipe()
			if err != nil {
				r.Close()
				w.Close()
				return nil, fmt.Errorf("start %s: %w", argv[0], err)
			}
			cmd.Stdin, stdinW = sr, sw
			defer sr.Close()
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = startCmd(cmd.Start)
		w.Close()
		if err != nil {
			r.Close()
			if stdinW != nil {
				stdinW.Close()
			}
			return nil, fmt.Errorf("start %s: %w", argv[0], err)
		}
		p.out = r
		if stdinW != nil {
			p.in = stdinW
		}
	}
	p.pid = cmd.Process.Pid
	go p.wait()
	return p, nil
}

// localProcess is a command started by Local.
type localProcess struct {
	cmd   *exec.Cmd
	pid   int
	grace time.Duration
	pty   bool
	out   *os.File // output pipe or PTY master
	in    *os.File // stdin pipe or PTY master; nil without stdin

	done chan struct{} // closed when the command is reaped
	exit Exit

	read    atomic.Int64  // bytes of output read so far
	eof     chan struct{} // closed when the output has ended
	eofOnce sync.Once

	mu       sync.Mutex // guards killed, exited, inClosed
	killed   bool
	exited   bool
	inClosed bool
}

func (p *localProcess) PID() int { return p.pid }

func (p *localProcess) Output() io.Reader { return outputReader{p} }

// outputReader ends the output at EIO (a PTY whose other side is closed)
// and at a closed file (see drain), and counts what it reads.
type outputReader struct{ p *localProcess }

func (r outputReader) Read(b []byte) (int, error) {
	n, err := r.p.out.Read(b)
	r.p.read.Add(int64(n))
	if err != nil {
		r.p.eofOnce.Do(func() { close(r.p.eof) })
		if errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrClosed) {
			err = io.EOF
		}
	}
	return n, err
}

func (p *localProcess) Write(b []byte) (int, error) {
	p.mu.Lock()
	closed := p.inClosed || p.exited
	p.mu.Unlock()
	if p.in == nil || closed {
		return 0, errors.New("stdin is closed")
	}
	return p.in.Write(b)
}

func (p *localProcess) CloseStdin() error {
	if p.in == nil {
		return errors.New("stdin is closed")
	}
	p.mu.Lock()
	if p.inClosed {
		p.mu.Unlock()
		return nil
	}
	p.inClosed = true
	p.mu.Unlock()
	if p.pty {
		_, err := p.in.Write([]byte{4}) // ^D: the terminal's end of file
		return err
	}
	return p.in.Close()
}

func (p *localProcess) Kill() {
	p.mu.Lock()
	if p.killed || p.exited {
		p.mu.Unlock()
		return
	}
	p.killed = true
	p.mu.Unlock()
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	go func() {
		select {
		case <-p.done:
		case <-time.After(p.grace):
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		}
	}()
}

func (p *localProcess) Wait() Exit {
	<-p.done
	return p.exit
}

// wait waits for the shell to exit, kills what is left of its process
// group, reaps the shell and closes the output if something outside the
// group keeps it open.
func (p *localProcess) wait() {
	var err error
	if waitExited(p.pid) { // exited, not reaped: the group id stays ours
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		err = p.cmd.Wait()
	} else {
		err = p.cmd.Wait()
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	waitGroupGone(p.pid)
	p.exit = exitOf(p.cmd.ProcessState, err)
	p.mu.Lock()
	p.exited = true
	p.mu.Unlock()
	if p.in != nil && !p.pty {
		p.in.Close()
	}
	close(p.done)
	p.drain()
}

// drain closes the output of an exited command once reading it has
// stalled for drainDelay without reaching its end: something that left
// the process group (a daemon) holds it open.
func (p *localProcess) drain() {
	last := int64(-1)
	for {
		select {
		case <-p.eof:
			p.out.Close()
			return
		case <-time.After(drainDelay):
		}
		if n := p.read.Load(); n != last {
			last = n
			continue
		}
		p.out.Close()
		return
	}
}

// exitOf converts a process state to an Exit.
func exitOf(st *os.ProcessState, err error) Exit {
	if st == nil {
		return Exit{Code: -1, Signal: fmt.Sprint(err)}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: 128 + int(ws.Signal()), Signal: ws.Signal().String()}
	}
	return Exit{Code: st.ExitCode()}
}
