//go:build unix

package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Start starts s in a new session and process group (with the PTY as its
// controlling terminal), in the session's sandbox when there is one.
func (l *Local) Start(ctx context.Context, s Spec) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e := l.exec(s)
	p := &localProcess{done: make(chan struct{}), eof: make(chan struct{})}
	var stdinR, w *os.File
	if !s.PTY {
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", e.Argv[0], err)
		}
		p.out, w = r, wr
		e.Stdout, e.Stderr = w, w
		if s.Stdin {
			sr, sw, err := os.Pipe()
			if err != nil {
				r.Close()
				w.Close()
				return nil, fmt.Errorf("start %s: %w", e.Argv[0], err)
			}
			stdinR, p.in = sr, sw
			e.Stdin = sr
		}
	}
	var proc *Proc
	var err error
	if l.Sandbox != nil {
		proc, err = l.Sandbox.Start(ctx, e)
	} else {
		proc, err = groupRunner{}.start(ctx, e)
	}
	if w != nil {
		w.Close()
	}
	if stdinR != nil {
		stdinR.Close()
	}
	if err != nil {
		if p.out != nil {
			p.out.Close()
		}
		if p.in != nil {
			p.in.Close()
		}
		return nil, fmt.Errorf("start %s: %w", e.Argv[0], err)
	}
	p.proc = proc
	if s.PTY {
		p.out, p.in, p.pty = proc.PTY(), proc.PTY(), true
	}
	go p.wait()
	return p, nil
}

// EditorArgv returns the command line of an editor terminal that runs s
// (terminal/create's command and args) and a release to call when the
// terminal is done. In the session's sandbox the line is the sandbox's
// helper with a ticket and the command as the editor shows it (see
// SandboxSession.EditorCommand); without one it is the shell, which then
// gets the editor's environment rather than the one built here.
func (l *Local) EditorArgv(s Spec) ([]string, func(), error) {
	if l.Sandbox == nil {
		return l.Argv(s.Command), func() {}, nil
	}
	return l.Sandbox.EditorCommand(l.exec(s), s.Command)
}

// localProcess is a command started by Local.
type localProcess struct {
	proc *Proc
	pty  bool
	out  *os.File // output pipe or PTY master
	in   *os.File // stdin pipe or PTY master; nil without stdin

	done chan struct{} // closed when the command has ended
	exit Exit

	read    atomic.Int64  // bytes of output read so far
	eof     chan struct{} // closed when the output has ended
	eofOnce sync.Once

	mu       sync.Mutex // guards exited, inClosed
	exited   bool
	inClosed bool
}

func (p *localProcess) PID() int { return p.proc.PID() }

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

func (p *localProcess) Kill() { p.proc.Kill() }

func (p *localProcess) Wait() Exit {
	<-p.done
	return p.exit
}

// wait waits for the command to end, then closes its stdin and, if
// something outside it keeps it open, its output.
func (p *localProcess) wait() {
	p.exit = p.proc.Wait()
	p.mu.Lock()
	p.exited = true
	p.mu.Unlock()
	if p.in != nil && !p.pty {
		p.in.Close()
	}
	close(p.done)
	p.drain()
}

// drain closes the output of an ended command once reading it has
// stalled for drainDelay without reaching its end: something outside the
// command (a daemon it handed it to) holds it open.
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
