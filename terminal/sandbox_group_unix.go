//go:build unix

package terminal

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// groupRunner starts programs from this process, each in its own session
// and process group, which a kill ends whole: unconfined (terminal.sandbox:
// off), under Landlock on a thread of this process (the Linux fallback),
// or through macOS's sandbox-exec with a Seatbelt profile.
type groupRunner struct {
	// confine, when set, starts the process confined (start starts it).
	confine func(e Exec, start func() error) error
	// gate, when set, is called from the thread that started the
	// process, stopped at its exec by ptrace, to set its limits and let it
	// go (only with confine, which starts it on a locked thread).
	gate func(pid int) error
	// limit, when set, sets the limits of the process just started, where
	// it cannot be stopped at its exec (ptrace restricted).
	limit func(pid int) error
	// wrap, when set, rewrites the program's argv (Seatbelt).
	wrap func(e Exec) []string
}

func (groupRunner) close() {}

func (g groupRunner) start(ctx context.Context, e Exec) (*Proc, error) {
	argv := e.Argv
	if g.wrap != nil {
		argv = g.wrap(e)
	}
	path, err := lookPathIn(argv[0], e.Env)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: e.Env, Dir: e.Dir}
	attr := &syscall.SysProcAttr{Setsid: true}
	var ptm, pts *os.File
	if e.PTY {
		ptm, pts, err = pty.Open()
		if err != nil {
			return nil, err
		}
		rows, cols := e.Rows, e.Cols
		if rows == 0 || cols == 0 {
			rows, cols = 50, 200
		}
		_ = pty.Setsize(ptm, &pty.Winsize{Rows: rows, Cols: cols})
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
		attr.Setctty, attr.Ctty = true, 0
	} else {
		if e.Stdin != nil {
			cmd.Stdin = e.Stdin
		}
		if e.Stdout != nil {
			cmd.Stdout = e.Stdout
		}
		if e.Stderr != nil {
			cmd.Stderr = e.Stderr
		}
	}
	cmd.SysProcAttr = attr
	if g.confine != nil {
		start := cmd.Start
		if g.gate != nil {
			attr.Ptrace = true
			start = func() error {
				if err := cmd.Start(); err != nil {
					return err
				}
				if err := g.gate(cmd.Process.Pid); err != nil {
					_ = cmd.Wait()
					return err
				}
				return nil
			}
		}
		err = g.confine(e, start)
	} else {
		err = cmd.Start()
	}
	if pts != nil {
		pts.Close()
	}
	if err != nil {
		if ptm != nil {
			ptm.Close()
		}
		return nil, err
	}
	pid := cmd.Process.Pid
	if g.limit != nil {
		if err := g.limit(pid); err != nil {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = cmd.Wait()
			if ptm != nil {
				ptm.Close()
			}
			return nil, err
		}
	}
	grace := e.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	p := &Proc{pid: pid, pty: ptm, done: make(chan struct{})}
	p.kill = func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		go func() {
			select {
			case <-p.done:
			case <-time.After(grace):
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}()
	}
	go func() {
		// Exited, not reaped: the group id stays ours while what is left
		// of the group is killed.
		var err error
		if waitExited(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			err = cmd.Wait()
		} else {
			err = cmd.Wait()
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		waitGroupGone(pid)
		p.exit = exitOf(cmd.ProcessState, err)
		close(p.done)
	}()
	return p, nil
}
