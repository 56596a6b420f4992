package terminal

import (
	"errors"
	"os"
	"sync"
	"time"
)

// ErrNoHelper is EditorCommand's error when the agent's binary, which is
// the editor-terminal helper, is unknown: run the command in the agent.
var ErrNoHelper = errors.New("sandbox: the agent's binary is unknown, so editor terminals cannot run its helper")

// Exec is one program to run in a session's sandbox (SandboxSession.Start).
type Exec struct {
	// Argv is the program and its arguments; a program name without a
	// slash is looked up in the PATH of Env.
	Argv []string
	// Env is the whole environment ("KEY=value"; build it with Environ).
	// In a namespace sandbox with a private /tmp, TMPDIR, TMP and TEMP
	// are set to /tmp.
	Env []string
	// Dir is the absolute working directory.
	Dir string
	// Stdin, Stdout and Stderr are the program's standard files (nil:
	// /dev/null). They stay the caller's to close once Start returns.
	Stdin, Stdout, Stderr *os.File
	// PTY runs the program on a new pseudo-terminal of the sandbox (its
	// standard files, and its controlling terminal), Rows by Cols (0: 50
	// by 200); Stdin, Stdout and Stderr must be nil. Proc.PTY is its
	// master.
	PTY        bool
	Rows, Cols uint16
	// Network grants the program (and everything it starts) the
	// machine's network; without it the program sees only the session's
	// own loopback (namespace sandbox) or cannot use TCP (Landlock).
	Network bool
	// Credentials grants it the credential places (~/.ssh, ~/.aws, …).
	Credentials bool
	// KillGrace is the time between SIGTERM and SIGKILL when it is
	// killed (0: DefaultKillGrace).
	KillGrace time.Duration
}

// Proc is a program started by SandboxSession.Start. Its methods are safe
// for concurrent use.
type Proc struct {
	pid  int
	pty  *os.File
	kill func()
	done chan struct{} // closed when exit is set
	exit Exit

	mu     sync.Mutex // guards killed
	killed bool
}

// PID is the program's process id in this process's PID namespace (its
// process group id); 0 when unknown.
func (p *Proc) PID() int { return p.pid }

// PTY is the master of the program's pseudo-terminal (Exec.PTY), which the
// caller owns and closes; nil otherwise.
func (p *Proc) PTY() *os.File { return p.pty }

// Kill ends the program and everything it started: SIGTERM to its process
// group, then SIGKILL to all of it after the grace. It returns at once;
// Wait reports the end. Calling it again, or after the end, does nothing.
func (p *Proc) Kill() {
	p.mu.Lock()
	if p.killed {
		p.mu.Unlock()
		return
	}
	p.killed = true
	p.mu.Unlock()
	select {
	case <-p.done:
	default:
		p.kill()
	}
}

// Wait waits for the program to end and returns how. In the namespace
// sandbox nothing it started is left running then (the program was PID 1
// of its namespace); in the other sandboxes, nothing of its process group.
func (p *Proc) Wait() Exit {
	<-p.done
	return p.exit
}

// Done is closed when the program has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }
