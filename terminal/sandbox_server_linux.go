package terminal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The session's sandbox server: `<exe> sandbox-exec --server`, started by
// the agent once per session (startNSServer) in new user, mount and PID
// namespaces, of which it is PID 1: when it exits, for whatever reason,
// the kernel kills every process of the session. It builds the session's
// view (buildView) and network namespace once, then runs each command the
// agent sends it:
//
//   - on an OS thread of its own, a new mount and PID namespace (the
//     command is PID 1 of its namespace: killing it kills everything it
//     started, setsid or not), the session's network namespace unless the
//     command is granted the network, the credential places unhidden when
//     it is granted them, an empty capability bounding set, no new
//     privileges and the Landlock domain (writes only in the writable
//     folders; signals and abstract UNIX sockets confined to the
//     command);
//   - started with the descriptors the agent passed (pipes, or a PTY of
//     the session's devpts), stopped at its exec (ptrace) while another
//     thread mounts its own /proc and its resource limits are set, then
//     let go;
//   - its exit status, and the agent's kill requests, on the command's
//     connection; a connection that closes kills the command.
//
// Per command this costs a thread, two namespaces and a few system calls,
// not a process start of this binary.

// serverMain runs the server on the control socket at descriptor 3.
func serverMain(stderr io.Writer) int {
	ctl, err := wireFromFile(os.NewFile(3, "sandbox-control"))
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp %s: no control socket: %v\n", SandboxCommand, err)
		return 2
	}
	m, _, err := ctl.recv()
	if err != nil || m.Op != opSetup || m.Setup == nil {
		fmt.Fprintf(stderr, "hermes-acp %s: no setup (%v)\n", SandboxCommand, err)
		return 2
	}
	srv, err := newServer(*m.Setup)
	if err != nil {
		_ = ctl.send(wireMsg{Op: opReady, Error: err.Error()})
		return 1
	}
	if err := ctl.send(wireMsg{Op: opReady, Notes: srv.notes}); err != nil {
		return 1
	}
	for {
		m, files, err := ctl.recv()
		if err != nil {
			return 0 // the agent is gone: exiting kills the session
		}
		if m.Op != opConn || len(files) != 1 {
			for _, f := range files {
				f.Close()
			}
			continue
		}
		w, err := wireFromFile(files[0])
		if err != nil {
			continue
		}
		go srv.serve(w)
	}
}

// server is the state of a session's sandbox server.
type server struct {
	limits  Limits
	netns   int // the session's network namespace
	ruleset int // the commands' Landlock ruleset (-1: no Landlock)
	llflags uint32
	lastCap int
	creds   []string // credential hiders, deepest first
	nproc   bool     // limit processes with RLIMIT_NPROC (pid_max is not per namespace)
	// sessionProc: the kernel cannot mount the proc of another PID
	// namespace, so commands get the session's.
	sessionProc atomic.Bool
	notes       []string
}

func newServer(v viewSetup) (*server, error) {
	// The first process start checks pidfd support by cloning a child
	// (os.checkPidfd): that child must not become the init of a command's
	// PID namespace, or the namespace is dead before the command starts
	// (fork fails with ENOMEM). Have it checked here.
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
	view, err := buildView(v)
	if err != nil {
		return nil, err
	}
	s := &server{limits: v.Limits, creds: view.credMounts, notes: view.notes, ruleset: -1}
	if n := v.Limits.Processes; n > 0 {
		if n < 301 {
			n = 301 // the kernel's least pid_max
		}
		if err := os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(n)), 0); err != nil {
			s.nproc = true
			s.notes = append(s.notes, fmt.Sprintf("processes limited per command (RLIMIT_NPROC): pid_max: %v", err))
		}
	}
	s.lastCap = 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			s.lastCap = n
		}
	}
	if s.netns, err = newNetns(); err != nil {
		return nil, fmt.Errorf("network namespace: %w", err)
	}
	cfg, rules := commandRules(view.writable, ruleOptions{scoped: true})
	if rules != nil {
		fd, flags, err := cfg.NewRulesetFD(rules...)
		if err != nil {
			return nil, fmt.Errorf("landlock: %w", err)
		}
		s.ruleset, s.llflags = fd, flags
	}
	return s, nil
}

// newNetns makes the session's network namespace with its loopback up and
// returns a descriptor of it.
func newNetns() (int, error) {
	type result struct {
		fd  int
		err error
	}
	c := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends in the namespace
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			c <- result{-1, err}
			return
		}
		if err := loopbackUp(); err != nil {
			c <- result{-1, fmt.Errorf("loopback: %w", err)}
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		c <- result{fd, err}
	}()
	r := <-c
	return r.fd, r.err
}

// loopbackUp brings lo up in the calling thread's network namespace.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

// serve runs the command of one connection.
func (s *server) serve(w *wire) {
	defer w.Close()
	m, files, err := w.recv()
	if err != nil || m.Op != opStart || m.Exec == nil {
		for _, f := range files {
			f.Close()
		}
		_ = w.send(wireMsg{Op: opStarted, Error: "sandbox: bad request"})
		return
	}
	c, err := s.spawn(*m.Exec, files)
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		_ = w.send(wireMsg{Op: opStarted, Error: err.Error()})
		return
	}
	pidfd, err := unix.PidfdOpen(c.pid, 0)
	if err != nil {
		c.kill()
		c.wait()
		_ = w.send(wireMsg{Op: opStarted, Error: "sandbox: pidfd_open: " + err.Error()})
		return
	}
	pf := os.NewFile(uintptr(pidfd), "pidfd")
	out := []*os.File{pf}
	if c.ptm != nil {
		out = append(out, c.ptm)
	}
	err = w.send(wireMsg{Op: opStarted, PID: c.pid}, out...)
	pf.Close()
	if c.ptm != nil {
		c.ptm.Close()
	}
	if err != nil {
		c.kill()
		c.wait()
		return
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		st := c.wait()
		_ = w.send(wireMsg{Op: opExit, Code: st.Code, Signal: st.Signal})
	}()
	go func() {
		for {
			m, files, err := w.recv()
			for _, f := range files {
				f.Close()
			}
			if err != nil {
				c.kill() // the agent (or the editor's helper) is gone
				return
			}
			if m.Op == opKill {
				c.terminate(time.Duration(m.GraceMS) * time.Millisecond)
			}
		}
	}()
	<-exited
}

// command is a command the server started.
type command struct {
	cmd *exec.Cmd
	pid int
	ptm *os.File // the PTY master, until sent

	mu     sync.Mutex // guards exited
	exited bool
	done   chan struct{}
}

// kill ends the command's PID namespace at once.
func (c *command) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.exited {
		_ = unix.Kill(c.pid, unix.SIGKILL)
	}
}

// terminate sends SIGTERM to the command's process group and, after grace,
// SIGKILL to its first process, which ends its namespace.
func (c *command) terminate(grace time.Duration) {
	c.mu.Lock()
	if c.exited {
		c.mu.Unlock()
		return
	}
	_ = unix.Kill(-c.pid, unix.SIGTERM)
	c.mu.Unlock()
	go func() {
		select {
		case <-c.done:
		case <-time.After(grace):
			c.kill()
		}
	}()
}

// wait waits for the command's first process (and so its whole
// namespace) to end.
func (c *command) wait() Exit {
	// Exited, not reaped: its pid (and group id) stays ours while a kill
	// may be under way.
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, c.pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			break
		}
	}
	c.mu.Lock()
	c.exited = true
	c.mu.Unlock()
	err := c.cmd.Wait()
	close(c.done)
	return exitOf(c.cmd.ProcessState, err)
}

// spawn starts x with the passed descriptors (stdin, stdout, stderr as
// x.Files says).
func (s *server) spawn(x wireExec, files []*os.File) (*command, error) {
	if len(x.Argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	path, err := lookPathIn(x.Argv[0], x.Env)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: x.Argv, Env: x.Env, Dir: x.Dir}
	c := &command{cmd: cmd, done: make(chan struct{})}
	attr := &syscall.SysProcAttr{Setsid: true, Ptrace: true}
	var pts *os.File
	if x.PTY {
		ptm, slave, err := pty.Open()
		if err != nil {
			return nil, fmt.Errorf("sandbox: open a pseudo-terminal: %w", err)
		}
		rows, cols := x.Rows, x.Cols
		if rows == 0 || cols == 0 {
			rows, cols = 50, 200
		}
		_ = pty.Setsize(ptm, &pty.Winsize{Rows: rows, Cols: cols})
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		attr.Setctty, attr.Ctty = true, 0
		c.ptm, pts = ptm, slave
	} else {
		i := 0
		next := func(present bool) *os.File {
			if !present || i >= len(files) {
				return nil
			}
			f := files[i]
			i++
			return f
		}
		stdin, stdout, stderr := next(x.Files[0]), next(x.Files[1]), next(x.Files[2])
		if stdin != nil {
			cmd.Stdin = stdin
		}
		if stdout != nil {
			cmd.Stdout = stdout
		}
		if stderr != nil {
			cmd.Stderr = stderr
		}
	}
	cmd.SysProcAttr = attr
	type result struct {
		pid int
		err error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		pid, err := s.startConfined(cmd, x)
		res <- result{pid, err}
	}()
	r := <-res
	if pts != nil {
		pts.Close()
	}
	if r.err != nil {
		if c.ptm != nil {
			c.ptm.Close()
		}
		return nil, r.err
	}
	c.pid = r.pid
	return c, nil
}

// startConfined starts cmd from the calling locked thread once the thread
// is in the command's namespaces and confined; it returns the command's
// pid (in the server's namespace) once it runs its program.
func (s *server) startConfined(cmd *exec.Cmd, x wireExec) (int, error) {
	if err := unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_NEWPID); err != nil {
		return 0, fmt.Errorf("sandbox: unshare: %w", err)
	}
	if !x.Network {
		if err := unix.Setns(s.netns, unix.CLONE_NEWNET); err != nil {
			return 0, fmt.Errorf("sandbox: enter the session's network namespace: %w", err)
		}
	}
	if x.Credentials {
		for _, p := range s.creds {
			if err := unix.Unmount(p, unix.MNT_DETACH); err != nil {
				return 0, fmt.Errorf("sandbox: show %s: %w", p, err)
			}
		}
	}
	for c := 0; c <= s.lastCap; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return 0, fmt.Errorf("sandbox: drop capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("sandbox: clear ambient capabilities: %w", err)
	}
	// No capability left but CAP_SYS_PTRACE (permitted and effective, for
	// this thread: where Yama's ptrace_scope is 2 the command may stop at
	// its exec only for a tracer that has it); no inheritable one: root's
	// exec would otherwise get back every inheritable one, whatever the
	// bounding set. The command's exec leaves it with none at all (an
	// empty bounding set, no ambient or inheritable ones).
	var caps [2]unix.CapUserData
	caps[0].Effective = 1 << unix.CAP_SYS_PTRACE
	caps[0].Permitted = 1 << unix.CAP_SYS_PTRACE
	if err := unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &caps[0]); err != nil {
		return 0, fmt.Errorf("sandbox: drop capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if s.ruleset >= 0 {
		if err := llsys.LandlockRestrictSelf(s.ruleset, s.llflags); err != nil {
			return 0, fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
		}
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	fail := func(err error) (int, error) {
		_ = unix.Kill(pid, unix.SIGKILL)
		_ = cmd.Wait()
		return 0, err
	}
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail(fmt.Errorf("sandbox: wait for the command's start: %w", err))
		}
		break
	}
	if !ws.Stopped() {
		return 0, fmt.Errorf("sandbox: the command ended before it started (%v)", ws)
	}
	if err := s.prepare(pid); err != nil {
		return fail(err)
	}
	if err := unix.PtraceDetach(pid); err != nil {
		return fail(fmt.Errorf("sandbox: let the command go: %w", err))
	}
	return pid, nil
}

// prepare mounts the /proc of the command stopped at its exec (from an
// unconfined thread that joins its mount namespace) and sets its limits.
func (s *server) prepare(pid int) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends in the command's namespace
		errc <- s.mountCommandProc(pid)
	}()
	if err := <-errc; err != nil {
		return err
	}
	return setLimits(pid, s.limits, s.nproc)
}

// mountCommandProc runs on a locked thread that it moves into the mount
// namespace of command pid, where it mounts the command's /proc.
func (s *server) mountCommandProc(pid int) error {
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return fmt.Errorf("sandbox: unshare the file system context: %w", err)
	}
	base := "/proc/" + strconv.Itoa(pid) + "/ns/"
	mnt, err := unix.Open(base+"mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: the command's mount namespace: %w", err)
	}
	defer unix.Close(mnt)
	pidns, err := unix.Open(base+"pid", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: the command's PID namespace: %w", err)
	}
	defer unix.Close(pidns)
	if err := unix.Setns(mnt, unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("sandbox: enter the command's mount namespace: %w", err)
	}
	if !s.sessionProc.Load() {
		err = mountProc(pidns, true)
		if !errors.Is(err, errPidnsOption) {
			return err
		}
		s.sessionProc.Store(true)
	}
	return mountProc(-1, true)
}
