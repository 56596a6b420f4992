package agent

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/terminal"
)

// TerminalRun is a command to run in an editor terminal.
type TerminalRun struct {
	Argv            []string
	Dir             string
	Env             map[string]string
	OutputByteLimit int
	Timeout         time.Duration // 0: none
}

// TerminalResult is how an editor terminal's command ended.
type TerminalResult struct {
	Output    string
	Truncated bool
	ExitCode  *int // nil when killed by a signal
	Signal    string
	TimedOut  bool
	Cancelled bool
}

// editorCallTimeout bounds the editor's answer to terminal/create, kill,
// output and release (not wait_for_exit, which lasts as long as the
// command).
const editorCallTimeout = 10 * time.Second

// HasTerminals reports whether the editor runs commands in its own
// terminals (it advertised the terminal capability).
func (e *Env) HasTerminals() bool { return e.s.client.Capabilities().Terminal }

// RunInTerminal runs r in a new editor terminal embedded in tool call
// callID: terminal/create, the terminal shown in the tool call,
// terminal/wait_for_exit raced against r.Timeout and ctx, terminal/kill
// when one of those ends first, terminal/output, and terminal/release on
// every path once the terminal exists. The error is for an editor that
// fails or does not answer.
func (e *Env) RunInTerminal(ctx context.Context, callID string, r TerminalRun) (TerminalResult, error) {
	s := e.s
	if len(r.Argv) == 0 {
		return TerminalResult{}, fmt.Errorf("run in editor terminal: no command")
	}
	req := &acp.CreateTerminalRequest{SessionID: s.id, Command: r.Argv[0], Args: r.Argv[1:]}
	if r.Dir != "" {
		req.Cwd = &r.Dir
	}
	for _, k := range sortedKeys(r.Env) {
		req.Env = append(req.Env, acp.EnvVariable{Name: k, Value: r.Env[k]})
	}
	if r.OutputByteLimit > 0 {
		l := uint64(r.OutputByteLimit)
		req.OutputByteLimit = &l
	}
	cctx, cancel := context.WithTimeout(ctx, editorCallTimeout)
	created, err := s.client.CreateTerminal(cctx, req)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return TerminalResult{Cancelled: true}, nil
		}
		return TerminalResult{}, fmt.Errorf("editor terminal/create: %w", err)
	}
	tr := &acp.TerminalRequest{SessionID: s.id, TerminalID: created.TerminalID}
	// after runs an editor call that must happen whatever ctx says.
	after := func(what string, call func(context.Context) error) {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), editorCallTimeout)
		defer cancel()
		if err := call(actx); err != nil {
			s.log.Warn("editor terminal call failed", "session", s.id, "call", what, "terminal_id", created.TerminalID, "error", err)
		}
	}
	defer after("terminal/release", func(c context.Context) error { return s.client.ReleaseTerminal(c, tr) })
	if t := s.tracker(callID); t != nil {
		t.showTerminal(created.TerminalID)
	}

	type waited struct {
		st  *acp.TerminalExitStatus
		err error
	}
	wctx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	done := make(chan waited, 1)
	go func() {
		st, err := s.client.WaitForTerminalExit(wctx, tr)
		done <- waited{st, err}
	}()
	var timeout <-chan time.Time
	if r.Timeout > 0 {
		tm := time.NewTimer(r.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var res TerminalResult
	var exit *acp.TerminalExitStatus
	select {
	case w := <-done:
		switch {
		case w.err == nil:
			exit = w.st
		case ctx.Err() != nil:
			res.Cancelled = true
		default:
			return TerminalResult{}, fmt.Errorf("editor terminal/wait_for_exit: %w", w.err)
		}
	case <-timeout:
		res.TimedOut = true
	case <-ctx.Done():
		res.Cancelled = true
	}
	if exit == nil {
		// Stop waiting first: an editor that answers one request at a time
		// would hold the kill behind the wait.
		stopWait()
		after("terminal/kill", func(c context.Context) error { return s.client.KillTerminal(c, tr) })
	}
	var out *acp.TerminalOutputResponse
	after("terminal/output", func(c context.Context) (err error) {
		out, err = s.client.TerminalOutput(c, tr)
		return err
	})
	if out != nil {
		res.Output, res.Truncated = out.Output, out.Truncated
		if exit == nil {
			exit = out.ExitStatus
		}
		if t := s.tracker(callID); t != nil {
			t.mu.Lock()
			t.termOutput = out.Output // the replay shows it as text (agent/replay.go)
			t.mu.Unlock()
		}
	}
	if exit != nil {
		if exit.ExitCode != nil {
			c := int(*exit.ExitCode)
			res.ExitCode = &c
		}
		if exit.Signal != nil {
			res.Signal = *exit.Signal
		}
	}
	return res, nil
}

// showTerminal embeds an editor terminal in the call; it stays there when
// the call ends.
func (t *toolCallTracker) showTerminal(id string) {
	t.announce(acp.StatusInProgress, nil, nil)
	t.mu.Lock()
	t.terminalID = id
	t.mu.Unlock()
	t.update(acp.StatusInProgress, []acp.ToolCallContent{{TerminalID: id}})
}

// Streaming the output of commands the agent runs itself: the tool call
// shows the last streamWindow bytes of output, refreshed at most every
// streamInterval (every streamSlowInterval after streamFastFor), so that a
// command printing 35 000 lines sends a handful of small updates, not one
// per line, and memory holds one window per running command whatever the
// output's size.
const (
	streamWindow       = 4 << 10
	streamInterval     = 100 * time.Millisecond
	streamSlowInterval = time.Second
	streamFastFor      = 10 * time.Second
)

// outputStream is the editor's view of one call's output.
type outputStream struct {
	t     *toolCallTracker
	start time.Time

	mu      sync.Mutex // guards the fields below; updates are posted under it, so they keep their order, and written by the session's sender
	tail    []byte     // the last streamWindow bytes (or fewer)
	total   int64      // bytes seen
	lines   int64      // newlines seen
	shown   int64      // total at the last update
	last    time.Time  // when the last update was sent
	timer   *time.Timer
	closed  bool
	updates int
}

// Output shows a new piece of the output of the command of tool call
// callID (a call of a tool the agent runs itself), throttled.
func (e *Env) Output(callID string, chunk []byte) {
	if len(chunk) == 0 {
		return
	}
	st := e.stream(callID)
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	st.total += int64(len(chunk))
	st.lines += int64(bytes.Count(chunk, []byte{'\n'}))
	if len(chunk) >= streamWindow {
		st.tail = append(st.tail[:0], chunk[len(chunk)-streamWindow:]...)
	} else {
		if over := len(st.tail) + len(chunk) - streamWindow; over > 0 {
			st.tail = st.tail[:copy(st.tail, st.tail[over:])]
		}
		st.tail = append(st.tail, chunk...)
	}
	interval := streamInterval
	if time.Since(st.start) > streamFastFor {
		interval = streamSlowInterval
	}
	wait := interval - time.Since(st.last)
	switch {
	case st.timer != nil:
		// An update is due already.
	case wait <= 0:
		st.flushLocked()
	default:
		st.timer = time.AfterFunc(wait, st.flush)
	}
}

// stream returns the output stream of a running call, making it on first
// use; nil when the call is not running.
func (e *Env) stream(callID string) *outputStream {
	t := e.s.tracker(callID)
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stream == nil {
		t.stream = &outputStream{t: t, start: time.Now()}
	}
	return t.stream
}

func (st *outputStream) flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.flushLocked()
}

func (st *outputStream) flushLocked() {
	st.timer = nil
	if st.closed || st.total == st.shown {
		return
	}
	st.shown, st.last = st.total, time.Now()
	st.updates++
	st.t.postUpdate(acp.StatusInProgress, []acp.ToolCallContent{acp.TextContentItem(st.textLocked())})
}

// textLocked is the window as the editor shows it: whole lines, no
// terminal escapes, with a note of what came before.
func (st *outputStream) textLocked() string {
	w := st.tail
	if int64(len(w)) < st.total {
		// Start at a line (the first one is cut) and at a whole rune.
		if i := bytes.IndexByte(w, '\n'); i >= 0 && i < len(w)-1 {
			w = w[i+1:]
		}
		for len(w) > 0 && !utf8.RuneStart(w[0]) {
			w = w[1:]
		}
	}
	text := strings.ToValidUTF8(stripEscapes(string(w)), "\uFFFD")
	text = strings.TrimRight(text, "\n")
	var b strings.Builder
	if earlier := st.lines - int64(strings.Count(text, "\n")) - 1; int64(len(st.tail)) < st.total && earlier > 0 {
		fmt.Fprintf(&b, "… %d earlier lines (%s in all so far)\n", earlier, byteSize(st.total))
	}
	b.WriteString("```\n")
	b.WriteString(strings.ReplaceAll(text, "```", "`\u200b``"))
	b.WriteString("\n```")
	return b.String()
}

// close stops the stream: nothing is sent after it returns.
func (st *outputStream) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
}

// stripEscapes removes terminal escape sequences (the terminal tool's
// own stripper) and the control characters an editor cannot show.
func stripEscapes(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, terminal.StripANSI(s))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Announcements: things that happen outside a tool call (a background
// process ended). The user sees each in the chat at once when no turn is
// running, else between the turn's model requests; the model reads it
// before its next request.
type announcement struct {
	text  string
	shown bool
}

// announcements are a session's announcements not yet read by the model.
// It has its own lock (a background process ends on its own goroutine);
// its methods are safe for concurrent use.
type announcements struct {
	mu   sync.Mutex // guards list
	list []*announcement
}

// add records text; shown: the user saw it already.
func (n *announcements) add(text string, shown bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, &announcement{text: text, shown: shown})
}

// take returns the texts the user has not seen (marking them seen) and,
// when forModel, every text, which it forgets.
func (n *announcements) take(forModel bool) (show, notes []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, a := range n.list {
		if !a.shown {
			a.shown = true
			show = append(show, a.text)
		}
	}
	if forModel {
		for _, a := range n.list {
			notes = append(notes, a.text)
		}
		n.list = nil
	}
	return show, notes
}

// Announce tells the user and the model text.
func (e *Env) Announce(text string) {
	s := e.s
	running := s.queue.Running()
	s.notes.add(text, !running)
	if !running {
		s.sendText("\n\n" + text + "\n\n")
	}
}

// takeAnnouncements shows the announcements not yet shown and, when
// forModel, hands all of them to the model as a user message. It runs
// before each model request (forModel) and at the end of a turn.
func (s *Session) takeAnnouncements(forModel bool) {
	show, notes := s.notes.take(forModel)
	if len(notes) > 0 {
		s.mu.Lock()
		s.history = append(s.history, model.Message{Role: model.RoleUser, Content: "[Notification from the agent, not the user]\n" + strings.Join(notes, "\n")})
		s.mu.Unlock()
	}
	for _, t := range show {
		s.sendText("\n\n" + t + "\n\n")
	}
}

// OnClose registers f to run when the session closes.
func (e *Env) OnClose(f func()) {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	e.closers = append(e.closers, f)
}

// runClosers runs the OnClose functions, last registered first.
func (e *Env) runClosers() {
	e.closeMu.Lock()
	fs := slices.Clone(e.closers)
	e.closers = nil
	e.closeMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
