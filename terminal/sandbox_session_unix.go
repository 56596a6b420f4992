//go:build unix

package terminal

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// runner starts programs for a SandboxSession.
type runner interface {
	start(ctx context.Context, e Exec) (*Proc, error)
	close()
}

// SandboxSession runs one agent session's programs in the sandbox: it owns
// the session's folders (private /tmp, scratch folder), its sandbox server
// (started at the first program, on Linux) and the tickets of its editor
// terminals. It is safe for concurrent use; Close ends every program.
type SandboxSession struct {
	sb    *Sandbox
	roots []string

	startOnce sync.Once
	startErr  error
	dir       string   // the session's folder: tmp, scratch, run
	lock      *os.File // held while the folder is in use
	conf      Confinement
	run       runner
	ln        *net.UnixListener
	wg        sync.WaitGroup // the ticket listener and its connections

	mu      sync.Mutex // guards tickets, noted, closed
	tickets map[string]*ticket
	noted   bool
	closed  bool
}

// ticket is a command an editor terminal's helper may run once.
type ticket struct {
	exec  Exec
	shown string
}

// NewSession returns the sandbox of a session whose workspace roots are
// roots. Nothing starts until the first program or Scratch.
func (s *Sandbox) NewSession(roots []string) *SandboxSession {
	return &SandboxSession{sb: s, roots: roots, tickets: map[string]*ticket{}}
}

// Confinement returns what confines the session's programs (starting the
// session if needed).
func (ss *SandboxSession) Confinement() Confinement {
	if err := ss.ensure(); err != nil {
		return Confinement{Kind: KindNone, Reason: err.Error()}
	}
	return ss.conf
}

// Note returns, once per session, what the user and the model must be
// told with the session's first command result when the sandbox fell back
// to a weaker kind than the namespace sandbox (not when the user turned it
// off); "" otherwise, and after the first call.
func (ss *SandboxSession) Note() string {
	c := ss.Confinement()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.noted || c.Kind != KindLandlock {
		ss.noted = true
		return ""
	}
	ss.noted = true
	return c.Summary()
}

// Scratch returns the session's scratch folder: visible at the same path
// inside and outside the sandbox, writable by the session's programs and
// by no other session's (a place for a tool socket: a path of up to
// ScratchSocketRoom bytes below it fits a UNIX socket's). It is removed
// with the session.
func (ss *SandboxSession) Scratch() (string, error) {
	if err := ss.ensure(); err != nil {
		return "", err
	}
	return filepath.Join(ss.dir, "scratch"), nil
}

// Start starts e in the session's sandbox. ctx bounds the start only.
func (ss *SandboxSession) Start(ctx context.Context, e Exec) (*Proc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(e.Argv) == 0 {
		return nil, errors.New("sandbox: no program")
	}
	if e.PTY && (e.Stdin != nil || e.Stdout != nil || e.Stderr != nil) {
		return nil, errors.New("sandbox: a PTY program takes no standard files")
	}
	if err := ss.ensure(); err != nil {
		return nil, err
	}
	ss.mu.Lock()
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return nil, errors.New("the session is closed")
	}
	if ss.conf.Kind == KindNamespaces && !ss.sb.SharedTmp {
		e.Env = withEnv(e.Env, map[string]string{"TMPDIR": "/tmp"}, "TMP", "TEMP")
	}
	return ss.run.start(ctx, e)
}

// withEnv returns env with set applied and the variables of also, when
// present, set to set's TMPDIR too.
func withEnv(env []string, set map[string]string, also ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	v := set["TMPDIR"]
	for _, kv := range env {
		k, _, _ := cutEnv(kv)
		if _, ok := set[k]; ok {
			continue
		}
		replaced := false
		for _, a := range also {
			if k == a {
				out = append(out, a+"="+v)
				replaced = true
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	for k, val := range set {
		out = append(out, k+"="+val)
	}
	return out
}

// ensure makes the session's folders and starts its runner, once.
func (ss *SandboxSession) ensure() error {
	ss.startOnce.Do(func() { ss.startErr = ss.begin() })
	return ss.startErr
}

// begin makes the session's folders and picks and starts its runner.
func (ss *SandboxSession) begin() error {
	base := ss.sb.runDir()
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fmt.Errorf("sandbox: session folder: %w", err)
	}
	if err := checkPrivate(base); err != nil {
		return err
	}
	removeStale(base)
	dir, err := os.MkdirTemp(base, "s-")
	if err != nil {
		return fmt.Errorf("sandbox: session folder: %w", err)
	}
	ss.dir = dir
	for _, d := range []string{"tmp", "scratch", "run"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return fmt.Errorf("sandbox: session folder: %w", err)
		}
	}
	// The session's folder is in use while this lock is held (removeStale).
	lock, err := os.OpenFile(filepath.Join(dir, "run", "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("sandbox: session folder: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return fmt.Errorf("sandbox: lock the session folder: %w", err)
	}
	ss.lock = lock
	if err := os.Chmod(filepath.Join(dir, "tmp"), 0o1777); err != nil {
		return fmt.Errorf("sandbox: session folder: %w", err)
	}
	for _, d := range ss.sb.mustExist() {
		if d != "" && filepath.IsAbs(d) {
			_ = os.MkdirAll(d, 0o755)
		}
	}
	ss.run, ss.conf, err = ss.sb.newRunner(ss, dir)
	if err != nil {
		return err
	}
	return ss.listen()
}

// checkPrivate refuses a sessions folder that another user could reach.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("sandbox: %s must be a folder of yours that only you can open (mode 0700)", dir)
	}
	return nil
}

// Close ends every program of the session and removes its folders. It is
// safe to call more than once.
func (ss *SandboxSession) Close() error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil
	}
	ss.closed = true
	ss.mu.Unlock()
	started := false
	ss.startOnce.Do(func() { ss.startErr = errors.New("the session is closed") })
	if ss.startErr == nil {
		started = true
	}
	if ss.ln != nil {
		ss.ln.Close()
	}
	if started && ss.run != nil {
		ss.run.close()
	}
	ss.wg.Wait()
	if ss.dir != "" {
		err := os.RemoveAll(ss.dir)
		if ss.lock != nil {
			ss.lock.Close()
		}
		return err
	}
	return nil
}

// removeStale removes the session folders under base whose agent is gone
// (nobody holds their lock): an agent that was killed leaves its folders.
func removeStale(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "s-") {
			continue
		}
		dir := filepath.Join(base, e.Name())
		f, err := os.Open(filepath.Join(dir, "run", "lock"))
		if err != nil {
			continue // being made, or not ours to judge
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}

// Editor terminals. The command line an editor runs is
//
//	<exe> sandbox-exec TICKET 'COMMAND'
//
// where TICKET (letters, digits, - and _) names the command the agent
// registered, with its whole policy, for one run, and 'COMMAND' is the
// model's command quoted for a POSIX shell, so the editor shows it and an
// editor that joins the arguments with spaces and runs the line with sh -c
// gets the same words back. Nothing of the policy is on the line: the
// helper sends its standard files and the ticket to the agent, which runs
// the registered command with them in the session's sandbox and sends back
// its exit.

// EditorCommand registers e to run once from an editor terminal and
// returns the command line for terminal/create; shown is what the editor
// shows (the model's command). The caller calls release when the terminal
// is done, whether or not it ran.
func (ss *SandboxSession) EditorCommand(e Exec, shown string) (argv []string, release func(), err error) {
	if e.PTY || e.Stdin != nil || e.Stdout != nil || e.Stderr != nil {
		return nil, nil, errors.New("sandbox: an editor terminal brings its own standard files")
	}
	if ss.sb.Exe == "" {
		return nil, nil, ErrNoHelper
	}
	if err := ss.ensure(); err != nil {
		return nil, nil, err
	}
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	id := hex.EncodeToString(secret)
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil, nil, errors.New("the session is closed")
	}
	ss.tickets[id] = &ticket{exec: e, shown: shown}
	ss.mu.Unlock()
	sock := ss.ln.Addr().String()
	tk := base64.RawURLEncoding.EncodeToString([]byte(sock)) + "." + id
	release = func() {
		ss.mu.Lock()
		delete(ss.tickets, id)
		ss.mu.Unlock()
	}
	return []string{ss.sb.Exe, SandboxCommand, tk, ShellQuote(shown)}, release, nil
}

// ShellQuote quotes s as one word for a POSIX shell.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// listen opens the session's ticket socket.
func (ss *SandboxSession) listen() error {
	path := filepath.Join(ss.dir, "run", "t.sock")
	if len(path) > 100 {
		return fmt.Errorf("sandbox: the session's socket path %s is too long; set TMPDIR or XDG_RUNTIME_DIR to a shorter folder", path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	ss.ln = ln
	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			ss.wg.Add(1)
			go func() {
				defer ss.wg.Done()
				ss.serveTicket(newWire(c))
			}()
		}
	}()
	return nil
}

// serveTicket runs the command of a helper's ticket with the helper's
// standard files and reports its end; the helper's kill requests, or its
// going away, kill the command.
func (ss *SandboxSession) serveTicket(w *wire) {
	defer w.Close()
	m, files, err := w.recv()
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	if err != nil || m.Op != opStart || len(files) != 3 {
		_ = w.send(wireMsg{Op: opStarted, Error: "bad request"})
		return
	}
	ss.mu.Lock()
	t := ss.tickets[m.Ticket]
	delete(ss.tickets, m.Ticket)
	ss.mu.Unlock()
	if t == nil {
		_ = w.send(wireMsg{Op: opStarted, Error: "unknown or used ticket: the agent runs each editor-terminal command once"})
		return
	}
	if m.Shown != t.shown && m.Shown != ShellQuote(t.shown) {
		_ = w.send(wireMsg{Op: opStarted, Error: "the command shown does not match the registered one"})
		return
	}
	e := t.exec
	e.Stdin, e.Stdout, e.Stderr = files[0], files[1], files[2]
	p, err := ss.Start(context.Background(), e)
	for _, f := range files {
		f.Close()
	}
	files = nil
	if err != nil {
		_ = w.send(wireMsg{Op: opStarted, Error: err.Error()})
		return
	}
	if err := w.send(wireMsg{Op: opStarted, PID: p.PID()}); err != nil {
		p.Kill()
		p.Wait()
		return
	}
	go func() {
		for {
			m, fs, err := w.recv()
			for _, f := range fs {
				f.Close()
			}
			if err != nil {
				p.Kill()
				return
			}
			if m.Op == opKill {
				p.Kill()
			}
		}
	}()
	st := p.Wait()
	_ = w.send(wireMsg{Op: opExit, Code: st.Code, Signal: st.Signal})
}

// lookPathIn finds program name in the PATH of env, as a shell would.
func lookPathIn(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found", name)
}

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
