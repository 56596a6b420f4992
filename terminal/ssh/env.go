package ssh

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/wsync"
)

// Env runs commands on the remote machine of a Config, in a copy of one
// local workspace folder. It holds one connection, opened on first use
// and reopened after it drops. It is safe for concurrent use; Close it
// when the session ends.
type Env struct {
	r    *resolved
	root string // the local workspace folder (absolute, clean)
	id   string // names this Env's sync markers on the remote
	log  *slog.Logger
	seq  atomic.Int64

	mu     sync.Mutex // guards client, lost, closed, note, orphans, live
	client *gossh.Client
	lost   error // why the last connection ended, for the next command's note
	closed bool
	note   string // said before the next command's output (a reconnection)
	// orphans are the commands (process group → sync marker) that were
	// running when their connection was lost: nobody waits for them; the
	// next command kills them.
	orphans map[int]string
	// live are the commands running now (process group → sync marker).
	live map[int]string

	tree *wsync.Tree // the local folder and what the remote copy holds
}

var _ terminal.Environment = (*Env)(nil)

// Options are New's optional settings.
type Options struct {
	// Home is the local home folder (~ in paths; "": os.UserHomeDir).
	Home string
	// Getenv reads the environment (SSH_AUTH_SOCK, USER); nil: os.Getenv.
	Getenv func(string) string
	// Log receives the sync's notes (files kept because they changed on
	// both sides, refused paths); nil discards them.
	Log *slog.Logger
}

// New returns the environment that runs commands per cfg in a remote copy
// of the local folder root. It reads the ssh config but does not connect:
// the first command does.
func New(cfg Config, root string, o Options) (*Env, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("ssh environment: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("ssh environment: %w", err)
	}
	r, err := resolve(cfg, o.Home, abs, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("ssh environment: %w", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Env{r: r, root: abs, id: hex.EncodeToString(b[:]), log: o.Log, tree: wsync.NewTree(abs, o.Log, "ssh sync")}, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return o, err
		}
		o.Home = h
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// Check connects to cfg's host and logs in, as the first command would,
// and says why commands cannot run there (nil: they can): a bad config,
// an unreachable host, a refused host key (a *HostKeyError, with the
// fingerprint to verify), a refused login. It runs nothing.
func Check(ctx context.Context, cfg Config, o Options) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	r, err := resolve(cfg, o.Home, "workspace", o.Getenv)
	if err != nil {
		return err
	}
	c, err := dial(ctx, r)
	if err != nil {
		return err
	}
	return c.Close()
}

// Describe names where commands run: "ssh user@host:port:remote_dir".
func (e *Env) Describe() string {
	return fmt.Sprintf("ssh %s@%s:%s", e.r.user, e.r.addr(), e.r.remoteDir)
}

// RemoteDir is the remote folder the workspace is copied to ("~/…" is the
// remote home).
func (e *Env) RemoteDir() string { return e.r.remoteDir }

// Close kills the commands still running on the remote (SIGTERM, then
// SIGKILL after the grace; and those a lost connection left running),
// then closes the connection. Nothing runs there afterwards, whatever the
// caller closes next (a process table whose kills would come too late).
func (e *Env) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	live := maps.Clone(e.live)
	orphans := e.orphans
	e.mu.Unlock()
	if len(live) > 0 || len(orphans) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), e.r.grace+5*time.Second)
		e.killAll(ctx, live, orphans)
		cancel()
	}
	e.mu.Lock()
	c := e.client
	e.client, e.closed = nil, true
	e.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}

// killAll ends the process groups live (SIGTERM, SIGKILL once the grace
// is over or they are gone) and the orphans still marked, over one
// session, and removes their sync markers (nothing is brought back after
// Close).
func (e *Env) killAll(ctx context.Context, live, orphans map[int]string) {
	pgids := slices.Sorted(maps.Keys(live))
	groups := strings.Trim(fmt.Sprint(pgids), "[]")
	var b strings.Builder
	for pgid, marker := range orphans {
		fmt.Fprintf(&b, "if [ -e %s ]; then kill -KILL -- -%d 2>/dev/null; rm -f %s; fi\n", shq(marker), pgid, shq(marker))
	}
	if len(live) > 0 {
		tenths := max(1, int(e.r.grace/(100*time.Millisecond)))
		fmt.Fprintf(&b, "for p in %s; do kill -TERM -- -$p 2>/dev/null; done\n", groups)
		fmt.Fprintf(&b, "i=0\nwhile [ $i -lt %d ]; do\n  alive=\n  for p in %s; do kill -0 -- -$p 2>/dev/null && alive=1; done\n"+
			"  [ -z \"$alive\" ] && break\n  sleep 0.1 2>/dev/null || break\n  i=$((i+1))\ndone\n", tenths, groups)
		fmt.Fprintf(&b, "for p in %s; do kill -KILL -- -$p 2>/dev/null; done\n", groups)
		for _, marker := range live {
			if marker != "" {
				fmt.Fprintf(&b, "rm -f %s\n", shq(marker))
			}
		}
	}
	b.WriteString("true\n")
	if _, err := e.run(ctx, b.String(), nil); err != nil {
		e.log.Warn("ssh: could not kill the commands still running on close", "host", e.r.addr(), "error", err)
	}
}

// conn returns the connection, dialing when there is none. A connection
// lost since the last command is noted for the next command's output
// (whichever of the command's steps reconnects).
func (e *Env) conn(ctx context.Context) (*gossh.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("the ssh environment is closed")
	}
	if e.client != nil {
		return e.client, nil
	}
	c, err := dial(ctx, e.r)
	if err != nil {
		return nil, err
	}
	if e.lost != nil {
		e.note += fmt.Sprintf("[ssh: the connection to %s was lost (%v); reconnected]\n", e.r.addr(), e.lost)
		e.lost = nil
	}
	e.client = c
	go func() {
		err := c.Wait()
		e.drop(c, err)
	}()
	return c, nil
}

// takeNote returns and forgets what the next command's output begins with.
func (e *Env) takeNote() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := e.note
	e.note = ""
	return n
}

// orphan remembers a command whose connection was lost while it ran.
func (e *Env) orphan(pgid int, marker string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.orphans == nil {
		e.orphans = map[int]string{}
	}
	e.orphans[pgid] = marker
}

// killOrphans kills what is left of the commands whose connection was
// lost. A group is killed only while its sync marker exists: the command
// was never brought back, so the group is still its (its pid was not
// reused by another command of ours). Ones not reached stay for the next
// command.
func (e *Env) killOrphans(ctx context.Context) {
	e.mu.Lock()
	orphans := e.orphans
	e.orphans = nil
	e.mu.Unlock()
	if len(orphans) == 0 {
		return
	}
	// Each group still running is named in the output.
	var b strings.Builder
	for pgid, marker := range orphans {
		fmt.Fprintf(&b, "if [ -e %s ]; then kill -KILL -- -%d 2>/dev/null && echo %d; rm -f %s; fi\n", shq(marker), pgid, pgid, shq(marker))
	}
	b.WriteString("true\n")
	out, err := e.run(ctx, b.String(), nil)
	if err != nil {
		for pgid, marker := range orphans {
			e.orphan(pgid, marker)
		}
		return
	}
	killed := strings.Fields(string(out))
	if len(killed) == 0 {
		return
	}
	sort.Strings(killed)
	e.mu.Lock()
	e.note += fmt.Sprintf("[ssh: killed the command(s) left running by the lost connection (process group %s)]\n", strings.Join(killed, ", "))
	e.mu.Unlock()
}

// drop forgets c after it failed or ended, remembering why.
func (e *Env) drop(c *gossh.Client, why error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c == nil || e.client != c {
		return
	}
	if why == nil {
		why = errors.New("closed by the server")
	}
	e.client, e.lost = nil, why
	c.Close()
}

// session opens a session, reconnecting once when the connection turns
// out to be gone (nothing had started on it).
func (e *Env) session(ctx context.Context) (*gossh.Session, error) {
	for attempt := 0; ; attempt++ {
		c, err := e.conn(ctx)
		if err != nil {
			return nil, err
		}
		s, err := c.NewSession()
		if err == nil {
			return s, nil
		}
		var refused *gossh.OpenChannelError
		if !errors.As(err, &refused) {
			// The connection broke: say why it ended (EOF, reset) rather
			// than how the channel request failed on it ("unexpected
			// packet in response to channel open: <nil>").
			c.Close()
			if werr := c.Wait(); werr != nil {
				err = werr
			}
		}
		e.drop(c, err)
		if attempt == 1 {
			return nil, fmt.Errorf("open ssh session on %s: %w", e.r.addr(), err)
		}
	}
}

// run runs script on the remote with stdin and returns its output.
func (e *Env) run(ctx context.Context, script string, stdin io.Reader) ([]byte, error) {
	s, err := e.session(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	s.Stdin = stdin
	out, err := s.CombinedOutput(script)
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

// remoteDirFor maps a local directory inside the workspace to its remote
// copy.
func (e *Env) remoteDirFor(dir string) (string, error) {
	if dir == "" {
		return e.r.remoteDir, nil
	}
	rel, err := filepath.Rel(e.root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is outside the workspace folder %s copied to the ssh host", dir, e.root)
	}
	if rel == "." {
		return e.r.remoteDir, nil
	}
	return e.r.remoteDir + "/" + filepath.ToSlash(rel), nil
}

// rq quotes a remote path for sh, keeping "~/" as the remote home.
func rq(p string) string {
	if p == "~" {
		return `"$HOME"`
	}
	if strings.HasPrefix(p, "~/") {
		return `"$HOME"/` + shq(p[2:])
	}
	return shq(p)
}

// shq quotes s as one sh word.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Start copies the workspace to the remote folder, then starts s there.
// The command's shell runs as the leader of its own process group (sshd
// starts every session in a new session): Kill signals the whole group.
// After the command exits, what is left of its group is killed and the
// files it changed are brought back.
func (e *Env) Start(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	return e.start(ctx, s, true)
}

// StartHelper starts s on the remote as Start does (its own process
// group, killed whole, killed on Close), but copies nothing of the
// workspace there or back: for a helper that works only over its stdio
// and in folders of its own (execute_code's relay), beside commands that
// do sync.
func (e *Env) StartHelper(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	return e.start(ctx, s, false)
}

func (e *Env) start(ctx context.Context, s terminal.Spec, sync bool) (terminal.Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir, err := e.remoteDirFor(s.Dir)
	if err != nil {
		return nil, err
	}
	e.killOrphans(ctx)
	gen := 0
	if sync {
		if _, err := e.push(ctx); err != nil {
			return nil, fmt.Errorf("copy the workspace to %s: %w", e.Describe(), err)
		}
		gen = e.tree.Gen() // the copy the command starts on
	}
	sess, err := e.session(ctx)
	if err != nil {
		return nil, err
	}
	marker := ""
	if sync {
		marker = fmt.Sprintf("/tmp/.hermes-acp-sync-%s-%d", e.id, e.seq.Add(1))
	}
	var b strings.Builder
	b.WriteString("exec 2>&1\n")
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%s\n", k, shq(s.Env[k]))
	}
	// The files the command writes are those newer than the marker. File
	// times come from a clock that ticks every few milliseconds: a file
	// written in the marker's tick would not be newer, and would stay
	// behind. So the command starts only once the clock has ticked past
	// the marker's time.
	if sync {
		fmt.Fprintf(&b, "cd %s || exit 126\n", rq(dir))
	} else {
		// A helper may start before the first command made the folder.
		fmt.Fprintf(&b, "cd %s 2>/dev/null || cd || exit 126\n", rq(dir))
	}
	if marker != "" {
		m := shq(marker)
		fmt.Fprintf(&b, ": > %s && : > %s.t || exit 126\nwhile ! [ %s.t -nt %s ]; do : > %s.t; done\nrm -f %s.t\n", m, m, m, m, m, m)
	}
	b.WriteString("echo \"$$\"\n")
	fmt.Fprintf(&b, "if command -v bash >/dev/null 2>&1; then exec bash -c %s; else exec sh -c %s; fi\n", shq(s.Command), shq(s.Command))
	p := &process{env: e, sess: sess, marker: marker, gen: gen, done: make(chan struct{}), exited: make(chan struct{})}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("start on %s: %w", e.Describe(), err)
	}
	if s.PTY {
		modes := gossh.TerminalModes{gossh.ECHO: 0, gossh.TTY_OP_ISPEED: 38400, gossh.TTY_OP_OSPEED: 38400}
		if err := sess.RequestPty("xterm-256color", 50, 200, modes); err != nil {
			sess.Close()
			return nil, fmt.Errorf("start on %s: pty: %w", e.Describe(), err)
		}
	}
	if s.Stdin || s.PTY {
		in, err := sess.StdinPipe()
		if err != nil {
			sess.Close()
			return nil, fmt.Errorf("start on %s: %w", e.Describe(), err)
		}
		p.in, p.pty = in, s.PTY
	}
	if err := sess.Start(b.String()); err != nil {
		sess.Close()
		e.drop(e.currentClient(), err)
		return nil, fmt.Errorf("start on %s: %w", e.Describe(), err)
	}
	// The first line is the process group id; anything else is why the
	// command could not start.
	br := bufio.NewReaderSize(&countingReader{r: stdout, n: &p.read}, 32<<10)
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	line, err := br.ReadString('\n')
	stop()
	pgid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil || pgid <= 1 {
		rest, _ := io.ReadAll(io.LimitReader(br, 4096))
		sess.Close()
		msg := strings.TrimSpace(line + string(rest))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return nil, fmt.Errorf("start on %s: %s", e.Describe(), msg)
	}
	p.pgid = pgid
	e.mu.Lock()
	if e.live == nil {
		e.live = map[int]string{}
	}
	e.live[pgid] = marker
	e.mu.Unlock()
	p.body = br
	p.head = e.takeNote()
	go p.wait()
	return p, nil
}

func (e *Env) currentClient() *gossh.Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.client
}

// signal sends sig to the remote process group pgid on a new session.
func (e *Env) signal(pgid int, sig string) {
	ctx, cancel := context.WithTimeout(context.Background(), e.r.timeout)
	defer cancel()
	_, _ = e.run(ctx, fmt.Sprintf("kill -%s -- -%d 2>/dev/null; true", sig, pgid), nil)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// process is a command started by Env.
type process struct {
	env    *Env
	sess   *gossh.Session
	pgid   int
	marker string
	gen    int // the generation of the workspace copy it started on
	in     io.WriteCloser
	pty    bool

	head    string        // a note shown before the output
	body    *bufio.Reader // the remote output
	tail    string        // a note shown after it (set before done closes)
	read    atomic.Int64
	exited  chan struct{} // the remote command ended
	done    chan struct{} // exited, leftovers killed, files brought back
	exit    Exit
	outDone atomic.Bool

	mu       sync.Mutex
	killed   bool
	inClosed bool
	headDone bool
}

// Exit is terminal.Exit (re-declared for brevity inside the package).
type Exit = terminal.Exit

func (p *process) PID() int { return p.pgid }

func (p *process) Output() io.Reader { return outputReader{p} }

type outputReader struct{ p *process }

func (r outputReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	if !p.headDone {
		p.headDone = true
		if p.head != "" {
			n := copy(b, p.head)
			p.head = p.head[n:]
			if p.head != "" {
				p.headDone = false
			}
			p.mu.Unlock()
			return n, nil
		}
	}
	p.mu.Unlock()
	if !p.outDone.Load() {
		n, err := p.body.Read(b)
		if err == nil {
			return n, nil
		}
		p.outDone.Store(true)
		if n > 0 {
			return n, nil
		}
	}
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tail == "" {
		return 0, io.EOF
	}
	n := copy(b, p.tail)
	p.tail = p.tail[n:]
	return n, nil
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	closed := p.inClosed
	p.mu.Unlock()
	select {
	case <-p.exited:
		closed = true
	default:
	}
	if p.in == nil || closed {
		return 0, errors.New("stdin is closed")
	}
	return p.in.Write(b)
}

func (p *process) CloseStdin() error {
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
		_, err := p.in.Write([]byte{4})
		return err
	}
	return p.in.Close()
}

// Kill sends SIGTERM to the remote process group, then SIGKILL after the
// grace, each over a new session of the same connection.
func (p *process) Kill() {
	p.mu.Lock()
	if p.killed {
		p.mu.Unlock()
		return
	}
	p.killed = true
	p.mu.Unlock()
	select {
	case <-p.exited:
		return
	default:
	}
	go func() {
		p.env.signal(p.pgid, "TERM")
		select {
		case <-p.exited:
		case <-time.After(p.env.r.grace):
			p.env.signal(p.pgid, "KILL")
		}
	}()
}

func (p *process) Wait() Exit {
	<-p.done
	return p.exit
}

// wait waits for the remote command, kills what is left of its group,
// brings back the files it changed and ends the output.
func (p *process) wait() {
	err := p.sess.Wait()
	var ee *gossh.ExitError
	lost := false
	switch {
	case err == nil:
		p.exit = Exit{Code: 0}
	case errors.As(err, &ee):
		if sig := ee.Signal(); sig != "" {
			n := signalNumber(sig)
			p.exit = Exit{Code: 128 + n, Signal: syscall.Signal(n).String()}
		} else {
			p.exit = Exit{Code: ee.ExitStatus()}
		}
	default:
		lost = true
		p.exit = Exit{Code: 255}
		p.env.drop(p.env.currentClient(), err)
		if p.marker != "" {
			// (A helper has no marker: it ends when its session's
			// input does.)
			p.env.orphan(p.pgid, p.marker)
		}
	}
	p.env.mu.Lock()
	delete(p.env.live, p.pgid)
	p.env.mu.Unlock()
	close(p.exited)
	var tail string
	if lost {
		tail = fmt.Sprintf("\n[ssh: the connection to %s was lost while the command ran (%v); its files were not brought back; the next command reconnects and kills it]\n", p.env.r.addr(), err)
	} else if p.marker != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		st, err := p.env.pull(ctx, p.pgid, p.marker, p.gen)
		cancel()
		if err != nil {
			tail = fmt.Sprintf("\n[ssh: the files the command changed could not be brought back: %v]\n", err)
		} else if len(st.Kept) > 0 {
			tail = fmt.Sprintf("\n[ssh: kept the local version of %s: changed here and on %s while the command ran]\n", strings.Join(st.Kept, ", "), p.env.r.alias)
		}
	} else {
		p.env.signal(p.pgid, "KILL") // what is left of a helper's group
	}
	p.mu.Lock()
	p.tail = tail
	p.mu.Unlock()
	if p.in != nil {
		p.in.Close()
	}
	close(p.done)
	// Output held open by something that left the group: close it once
	// reading stalls.
	last := int64(-1)
	for !p.outDone.Load() {
		time.Sleep(200 * time.Millisecond)
		if n := p.read.Load(); n != last {
			last = n
			continue
		}
		time.Sleep(2 * time.Second)
		if p.read.Load() == last {
			break
		}
	}
	p.sess.Close()
}

// signalNumber is the number of a signal as SSH names it ("TERM").
func signalNumber(name string) int {
	switch name {
	case "HUP":
		return 1
	case "INT":
		return 2
	case "QUIT":
		return 3
	case "ILL":
		return 4
	case "ABRT":
		return 6
	case "FPE":
		return 8
	case "KILL":
		return 9
	case "SEGV":
		return 11
	case "PIPE":
		return 13
	case "ALRM":
		return 14
	case "USR1":
		return 10
	case "USR2":
		return 12
	default:
		return 15
	}
}
