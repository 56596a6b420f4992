package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// LandlockABI returns the Landlock ABI version the kernel enforces, 0 when
// it has none (or it is disabled).
func LandlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// SandboxMain is SandboxCommand: with --server the session's sandbox
// server (on the control socket at descriptor 3), else the editor-terminal
// helper (helperMain). It prints nothing on stdout but the command's
// output.
func SandboxMain(args []string, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "--server" {
		return serverMain(stderr)
	}
	return helperMain(args, stderr)
}

// probe decides how commands are confined on this machine: it starts a
// throwaway sandbox server (which builds a whole view) unless the
// configuration forces the fallback.
func (s *Sandbox) probe() Confinement {
	if c, ok := s.fallbackKind(); ok {
		return c
	}
	dir, err := os.MkdirTemp("", "hermes-sandbox-probe-")
	if err != nil {
		return s.landlockConfinement("there is no temporary folder to try the namespace sandbox in: " + err.Error())
	}
	defer os.RemoveAll(dir)
	for _, d := range []string{"tmp", "scratch", "run"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return s.landlockConfinement("there is no temporary folder to try the namespace sandbox in: " + err.Error())
		}
	}
	v, err := s.viewFor(dir, s.WritableDirs(nil))
	if err == nil {
		var r *nsRunner
		if r, err = startNSServer(s, v); err == nil {
			r.close()
			<-r.done
			return Confinement{Kind: KindNamespaces}
		}
	}
	return s.landlockConfinement(err.Error())
}

// fallbackKind returns the confinement when no namespace sandbox is to be
// tried: configured away, or user namespaces unusable.
func (s *Sandbox) fallbackKind() (Confinement, bool) {
	if s.LandlockOnly {
		return s.landlockConfinement("terminal.sandbox is landlock"), true
	}
	if s.Exe == "" {
		return s.landlockConfinement("the agent cannot find its own binary, which the namespace sandbox runs"), true
	}
	check := s.userns
	if check == nil {
		check = usernsUsable
	}
	if err := check(); err != nil {
		return s.landlockConfinement("user namespaces are unavailable: " + err.Error()), true
	}
	if sc := s.yamaScope(); sc >= 3 {
		return s.landlockConfinement(fmt.Sprintf("ptrace is disabled (kernel.yama.ptrace_scope is %d), which the namespace sandbox needs to prepare each command before it runs", sc)), true
	}
	return Confinement{}, false
}

// yamaScope is Yama's kernel.yama.ptrace_scope (0 without Yama): at 2 only
// a tracer with CAP_SYS_PTRACE may have a child stop at its exec, at 3
// nobody may.
func (s *Sandbox) yamaScope() int {
	if s.ptraceScope != nil {
		return s.ptraceScope()
	}
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// gateless reports whether this process cannot stop its commands at their
// exec (ptrace restricted by Yama, and no CAP_SYS_PTRACE at 2): the
// Landlock-only sandbox then sets their limits just after they start.
func (s *Sandbox) gateless() bool {
	switch sc := s.yamaScope(); {
	case sc >= 3:
		return true
	case sc == 2:
		var caps [2]unix.CapUserData
		if err := unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &caps[0]); err != nil {
			return true
		}
		return caps[0].Effective&(1<<unix.CAP_SYS_PTRACE) == 0
	}
	return false
}

// landlockConfinement is the Landlock-only fallback for reason, or none
// when the kernel has no Landlock either.
func (s *Sandbox) landlockConfinement(reason string) Confinement {
	if LandlockABI() == 0 {
		return Confinement{Kind: KindNone, Reason: reason + ", and the kernel has no Landlock"}
	}
	gaps := landlockGaps
	if LandlockABI() < 6 {
		gaps = append(gaps[:len(gaps):len(gaps)], "signals to other processes of your user (Landlock before ABI 6 cannot scope them)")
	}
	if s.gateless() {
		gaps = append(gaps[:len(gaps):len(gaps)], fmt.Sprintf("processes a command starts at once, before its resource limits are set (ptrace is restricted: kernel.yama.ptrace_scope is %d)", s.yamaScope()))
	}
	return Confinement{Kind: KindLandlock, Reason: reason, Gaps: gaps}
}

// usernsUsable checks the switches that disable unprivileged user
// namespaces. Whether they really work is known only by trying
// (startNSServer).
func usernsUsable() error {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return errors.New("user.max_user_namespaces is 0")
	}
	if os.Getuid() != 0 && read("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return errors.New("kernel.unprivileged_userns_clone is 0")
	}
	return nil
}

// nsRunner runs a session's commands in its sandbox server.
type nsRunner struct {
	cmd   *exec.Cmd
	ctl   *wire
	notes []string
	done  chan struct{} // closed when the server has exited
	stop  chan struct{} // closed by close
	once  sync.Once
}

// serverStartTimeout bounds the server's setup (a guard against a hang,
// not a speed bound).
const serverStartTimeout = 30 * time.Second

// startNSServer starts a session's sandbox server with the view v. The
// server runs until close, or until this process exits (it is killed with
// it).
func startNSServer(sb *Sandbox, v viewSetup) (*nsRunner, error) {
	local, remote, err := wirePair()
	if err != nil {
		return nil, err
	}
	r := &nsRunner{ctl: local, done: make(chan struct{}), stop: make(chan struct{})}
	var stderr strings.Builder
	cmd := exec.Command(sb.Exe, SandboxCommand, "--server")
	cmd.ExtraFiles = []*os.File{remote}
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "GOMAXPROCS=2"}
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	cmd.Dir = "/"
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: allCaps(),
		Pdeathsig:   syscall.SIGKILL,
		Setsid:      true,
	}
	// Pdeathsig fires when the thread that started the server ends: start
	// it from a thread that lives until the server has exited.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err != nil {
			return
		}
		_ = cmd.Wait()
		close(r.done)
	}()
	err = <-started
	remote.Close()
	if err != nil {
		local.Close()
		return nil, fmt.Errorf("start the sandbox server: %w", err)
	}
	r.cmd = cmd
	ready := make(chan error, 1)
	go func() {
		if err := local.send(wireMsg{Op: opSetup, Setup: &v}); err != nil {
			ready <- err
			return
		}
		m, _, err := local.recv()
		switch {
		case err != nil:
			ready <- err
		case m.Op != opReady:
			ready <- fmt.Errorf("unexpected %q", m.Op)
		case m.Error != "":
			ready <- errors.New(m.Error)
		default:
			r.notes = m.Notes
			ready <- nil
		}
	}()
	select {
	case err = <-ready:
	case <-time.After(serverStartTimeout):
		err = errors.New("no answer")
	}
	if err != nil {
		r.close()
		<-r.done
		if msg := strings.TrimSpace(stderr.String()); msg != "" && !strings.Contains(err.Error(), msg) {
			err = fmt.Errorf("%w (%s)", err, msg)
		}
		return nil, fmt.Errorf("the namespace sandbox could not start: %w", err)
	}
	return r, nil
}

// allCaps lists every capability the kernel has, to keep in the server
// across its exec (ambient) when the user is not root.
func allCaps() []uintptr {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	caps := make([]uintptr, 0, last+1)
	for c := 0; c <= last; c++ {
		caps = append(caps, uintptr(c))
	}
	return caps
}

// close stops the server, which ends every command still running.
func (r *nsRunner) close() {
	r.once.Do(func() {
		close(r.stop)
		r.ctl.Close()
	})
}

// start runs e in the server.
func (r *nsRunner) start(ctx context.Context, e Exec) (*Proc, error) {
	local, remote, err := wirePair()
	if err != nil {
		return nil, err
	}
	err = r.ctl.send(wireMsg{Op: opConn}, remote)
	remote.Close()
	if err != nil {
		local.Close()
		return nil, fmt.Errorf("sandbox server: %w", r.gone(err))
	}
	x := &wireExec{Argv: e.Argv, Env: e.Env, Dir: e.Dir, PTY: e.PTY, Rows: e.Rows, Cols: e.Cols, Network: e.Network, Credentials: e.Credentials}
	var files []*os.File
	if !e.PTY {
		for i, f := range []*os.File{e.Stdin, e.Stdout, e.Stderr} {
			if f != nil {
				x.Files[i] = true
				files = append(files, f)
			}
		}
	}
	if err := local.send(wireMsg{Op: opStart, Exec: x}, files...); err != nil {
		local.Close()
		return nil, fmt.Errorf("sandbox server: %w", r.gone(err))
	}
	type answer struct {
		m     wireMsg
		files []*os.File
		err   error
	}
	ans := make(chan answer, 1)
	go func() {
		m, files, err := local.recv()
		ans <- answer{m, files, err}
	}()
	var a answer
	select {
	case a = <-ans:
	case <-ctx.Done():
		local.Close() // the server kills the command if it started
		a = <-ans
		for _, f := range a.files {
			f.Close()
		}
		return nil, ctx.Err()
	}
	if a.err != nil || a.m.Op != opStarted || a.m.Error != "" {
		for _, f := range a.files {
			f.Close()
		}
		local.Close()
		switch {
		case a.err != nil:
			return nil, fmt.Errorf("sandbox server: %w", r.gone(a.err))
		case a.m.Error != "":
			return nil, errors.New(a.m.Error)
		}
		return nil, fmt.Errorf("sandbox server: unexpected %q", a.m.Op)
	}
	if len(a.files) < 1 || (e.PTY && len(a.files) < 2) {
		for _, f := range a.files {
			f.Close()
		}
		local.Close()
		return nil, errors.New("sandbox server: the command's descriptors are missing")
	}
	pidfd := a.files[0]
	p := &Proc{pid: hostPID(pidfd), done: make(chan struct{})}
	if e.PTY {
		p.pty = a.files[1]
	}
	grace := e.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	p.kill = func() {
		if err := local.send(wireMsg{Op: opKill, GraceMS: grace.Milliseconds()}); err != nil {
			_ = unix.PidfdSendSignal(int(pidfd.Fd()), unix.SIGKILL, nil, 0)
		}
	}
	go func() {
		defer close(p.done)
		defer pidfd.Close()
		defer local.Close()
		for {
			m, files, err := local.recv()
			for _, f := range files {
				f.Close()
			}
			if err != nil {
				// The server is gone, and the command with it.
				p.exit = Exit{Code: -1, Signal: "sandbox server exited"}
				return
			}
			if m.Op == opExit {
				p.exit = Exit{Code: m.Code, Signal: m.Signal}
				return
			}
		}
	}()
	return p, nil
}

// gone adds the server's end to err when the server has exited.
func (r *nsRunner) gone(err error) error {
	select {
	case <-r.done:
		return fmt.Errorf("%w (the sandbox server has exited: %v)", err, r.cmd.ProcessState)
	default:
		return err
	}
}

// hostPID reads the process id of a pidfd in this process's PID namespace.
func hostPID(pidfd *os.File) int {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(int(pidfd.Fd())))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}

// startSandboxed calls start, which starts a process, on an OS thread
// that Landlock restricts with the rules of the fallback sandbox: the
// process inherits the restriction, the agent does not, and no helper
// process is needed. The thread is never unlocked, so the Go runtime ends
// it instead of reusing it.
func startSandboxed(writable []string, o ruleOptions, start func() error) error {
	cfg, rules := commandRules(writable, o)
	if rules == nil {
		return errors.New("sandbox: the kernel has no Landlock")
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if fd < 0 {
		return errors.New("sandbox: the kernel has no Landlock")
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		defer unix.Close(fd)
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
			return
		}
		if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
			errc <- fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
			return
		}
		errc <- start()
	}()
	return <-errc
}

// ruleOptions select the optional parts of a command's Landlock rules.
type ruleOptions struct {
	// scoped confines signals and abstract UNIX sockets to the command's
	// own processes (ABI 6).
	scoped bool
	// denyTCP refuses TCP bind and connect (ABI 4): the Landlock-only
	// fallback's commands without network.
	denyTCP bool
}

// commandRules are the Landlock configuration and rules of a command:
// read and execute everywhere; write in writable, /dev/shm, /dev/pts and
// the character devices of the sandbox's /dev; and what o adds. nil rules
// when the kernel has no Landlock.
func commandRules(writable []string, o ruleOptions) (landlock.Config, []landlock.Rule) {
	abi := LandlockABI()
	cfg := landlock.Config{HandledAccessFS: landlock.V5.HandledAccessFS}
	if o.scoped {
		cfg.Scoped = landlock.V6.Scoped
	}
	if o.denyTCP {
		cfg.HandledAccessNet = landlock.V4.HandledAccessNet
	}
	if abi == 0 {
		return cfg, nil
	}
	rw := landlock.RWDirs(writable...).IgnoreIfMissing()
	if abi >= 2 {
		rw = rw.WithRefer() // moves and links between writable folders
	}
	var devs []string
	for _, n := range devNodes {
		devs = append(devs, "/dev/"+n)
	}
	return cfg.BestEffort(), []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devs...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWFiles("/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
		rw,
	}
}

// newRunner picks how the session's programs run: in a namespace sandbox
// server when user namespaces work, else under Landlock alone (reported),
// else not at all.
func (s *Sandbox) newRunner(ss *SandboxSession, dir string) (runner, Confinement, error) {
	if s.Unconfined {
		return groupRunner{}, Confinement{Kind: KindOff}, nil
	}
	writable := s.WritableDirs(ss.roots)
	c, ok := s.knownConfinement()
	if !ok || c.Kind == KindNamespaces {
		c, ok = s.fallbackKind()
	}
	if !ok {
		v, err := s.viewFor(dir, writable)
		if err == nil {
			var r *nsRunner
			r, err = startNSServer(s, v)
			if err == nil {
				c := Confinement{Kind: KindNamespaces}
				s.setConfinement(c)
				return r, c, nil
			}
		}
		c = s.landlockConfinement(err.Error())
		s.setConfinement(c)
	}
	if c.Kind == KindNone {
		return nil, c, errors.New(c.Summary())
	}
	// The fallback: the machine's /tmp and the temporary directory stay
	// shared and writable, as does the session's scratch folder.
	tmp := os.TempDir()
	if t := s.getenv("TMPDIR"); t != "" {
		tmp = t
	}
	lw := append(writable, tmp, "/tmp", filepath.Join(dir, "scratch"), filepath.Join(dir, "tmp"))
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		lw = append(lw, r)
	}
	scoped := LandlockABI() >= 6
	lim := s.Limits.effective()
	g := groupRunner{
		confine: func(e Exec, start func() error) error {
			return startSandboxed(lw, ruleOptions{scoped: scoped, denyTCP: !e.Network}, start)
		},
		gate: func(pid int) error { return gateLimits(pid, lim, false) },
	}
	if s.gateless() {
		// No stop at the exec: the limits follow the start (a gap the
		// confinement names).
		g.gate = nil
		g.limit = func(pid int) error { return setLimits(pid, lim, false) }
	}
	return g, c, nil
}

// gateLimits sets the resource limits of process pid, stopped by ptrace at
// its exec (a child of the calling thread), then lets it go. nproc limits
// its user's processes too (RLIMIT_NPROC).
func gateLimits(pid int, l Limits, nproc bool) error {
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("sandbox: wait for the command's start: %w", err)
		}
		break
	}
	if !ws.Stopped() {
		return fmt.Errorf("sandbox: the command ended before it started (%v)", ws)
	}
	if err := setLimits(pid, l, nproc); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		_ = unix.PtraceDetach(pid)
		return err
	}
	if err := unix.PtraceDetach(pid); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("sandbox: let the command go: %w", err)
	}
	return nil
}

// setLimits sets the resource limits of process pid (0 fields: none).
func setLimits(pid int, l Limits, nproc bool) error {
	set := func(name string, res int, v int64) error {
		if v <= 0 {
			return nil
		}
		lim := unix.Rlimit{Cur: uint64(v), Max: uint64(v)}
		if err := unix.Prlimit(pid, res, &lim, nil); err != nil {
			return fmt.Errorf("sandbox: limit the %s: %w", name, err)
		}
		return nil
	}
	if err := set("address space", unix.RLIMIT_AS, l.AddressSpace); err != nil {
		return err
	}
	if err := set("CPU time", unix.RLIMIT_CPU, l.CPUTime); err != nil {
		return err
	}
	if err := set("file size", unix.RLIMIT_FSIZE, l.FileSize); err != nil {
		return err
	}
	if nproc {
		return set("processes", unix.RLIMIT_NPROC, int64(l.Processes))
	}
	return nil
}

// viewFor is the view of a session whose folder is dir.
func (s *Sandbox) viewFor(dir string, writable []string) (viewSetup, error) {
	always, creds := s.hiddenPlaces()
	always = append(always, s.runDir())
	if xdg := s.getenv("XDG_RUNTIME_DIR"); xdg != "" && filepath.IsAbs(xdg) && !underAny(xdg, writable) {
		always = append(always, xdg)
	}
	v := viewSetup{
		Writable:    writable,
		Scratch:     filepath.Join(dir, "scratch"),
		Hidden:      always,
		Empty:       filepath.Join(dir, "run", "empty"),
		HideSockets: true,
		Limits:      s.Limits.effective(),
	}
	if s.SharedTmp {
		v.Writable = append(slices.Clone(writable), "/tmp")
	} else {
		v.Tmp = filepath.Join(dir, "tmp")
	}
	v.Creds = creds
	if err := os.WriteFile(v.Empty, nil, 0o444); err != nil {
		return viewSetup{}, fmt.Errorf("sandbox: %w", err)
	}
	return v, nil
}
