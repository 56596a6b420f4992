package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
)

// Notices are problems the user must hear about but that belong to no turn:
// the agent's (the configuration file's and the sandbox's at start-up,
// Options.Notices; the session database's; a command allowlist that could
// not be saved), shown once per process, and a session's own (its terminal
// backend is unavailable, skills were refused by the threat scan), shown
// once in that session. Each is shown at the start of the next
// session/prompt, before the turn's output. The first prompt rather than
// session/new: an update cannot precede the session/new reply that names
// the session, and editors show a message that arrives outside a turn
// inconsistently (or not at all); a notice is not part of the
// conversation, so it is neither saved, replayed nor sent to the model.
//
// A client that advertised clientCapabilities.session.notices gets each as
// a "notice" session update (severity, title, the text as its
// description); any other client gets the text as an agent message
// ("⚠️ text"). Never both.

// Notice is one problem for the user.
type Notice struct {
	// Severity is acp.NoticeInfo, acp.NoticeWarning or acp.NoticeError.
	Severity string
	// Title is a short plain-text line that stands alone.
	Title string
	// Text is the whole explanation: the notice's description, and the
	// agent message a client without notices is shown.
	Text string
}

// Notice titles of the agent's own notices.
const (
	titleStore          = "Session database problem"
	titleAllowlist      = "Command allowlist not saved"
	titleBackend        = "Terminal backend unavailable"
	titleSkillsRefused  = "Skills refused"
	backendCheckTimeout = 5 * time.Second
)

// notice queues n to be shown at the next prompt of any session.
func (a *Agent) notice(n Notice) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notices = append(a.notices, n)
}

// storeNotice shows a problem of the session database (the store's notify
// func).
func (a *Agent) storeNotice(text string) {
	a.notice(Notice{Severity: acp.NoticeError, Title: titleStore, Text: text})
}

// noticesOptIn reports whether the client presents notice updates.
func (a *Agent) noticesOptIn() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.clientCaps.Session != nil && a.clientCaps.Session.Notices != nil
}

// showNotices sends the agent's queued notices to s. The session database's
// header is checked first (cheaply, once), so that a damaged or newer
// database is reported at the first prompt.
func (s *Session) showNotices() {
	if s.store != nil {
		s.store.Check()
	}
	s.a.mu.Lock()
	notices := s.a.notices
	s.a.notices = nil
	s.a.mu.Unlock()
	s.sendNotices(notices)
}

// sessionNotices is a session's own notices until its first prompt shows
// them.
type sessionNotices struct {
	shown  bool
	skills *pendingNotices // the refused skills, scanned as the session opened; nil: none
}

// showSessionNotices sends the session's own notices at its first prompt:
// its terminal backend is checked now (not when it opened: a session never
// prompted costs no check), and the skill scan started when it opened is
// waited for. It runs after the prompt released the connection's queue, as
// a remote backend's check may take a while.
func (s *Session) showSessionNotices(ctx context.Context) {
	s.mu.Lock()
	if s.ownNotices.shown {
		s.mu.Unlock()
		return
	}
	s.ownNotices.shown = true
	p := s.ownNotices.skills
	s.ownNotices.skills = nil
	s.mu.Unlock()
	var list []Notice
	if n, ok := s.backendNotice(ctx); ok {
		list = append(list, n)
	}
	if p != nil {
		<-p.ready
		list = append(list, p.list...)
	}
	s.sendNotices(list)
}

// backendNotice checks the session's terminal backend (not this machine's)
// and returns the notice saying it is unavailable, if it is.
func (s *Session) backendNotice(ctx context.Context) (Notice, bool) {
	backend, check := s.terminalBackend(), s.a.opts.TerminalBackends.Check
	if check == nil || backend == "local" {
		return Notice{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, backendCheckTimeout)
	defer cancel()
	err := check(ctx, backend)
	if err == nil || errors.Is(ctx.Err(), context.Canceled) { // no notice for a cancelled prompt
		return Notice{}, false
	}
	return Notice{Severity: acp.NoticeError, Title: titleBackend,
		Text: fmt.Sprintf("The terminal backend `%s` is unavailable (%v): commands and scripts are refused until it is available again or the session switches backends.", backend, err)}, true
}

// sendNotices shows notices in the form the client takes.
func (s *Session) sendNotices(notices []Notice) {
	if len(notices) == 0 {
		return
	}
	optIn := s.a.noticesOptIn()
	for _, n := range notices {
		if optIn {
			desc := n.Text
			s.send(acp.SessionUpdate{Notice: &acp.Notice{Severity: n.Severity, Title: n.Title, Description: &desc}})
		} else {
			s.sendText("⚠️ " + n.Text + "\n\n")
		}
	}
}

// pendingNotices are a session's notices, computed in the background.
type pendingNotices struct {
	ready chan struct{}
	list  []Notice // written once, before ready is closed
}

// startSkillNotices starts, in the background, the scan for the skills
// the threat scan refuses (Options.SkillsBlocked) when a session opens, as
// its skill index is; nil when there is no scan.
func (s *Session) startSkillNotices() *pendingNotices {
	a := s.a
	blocked := a.opts.SkillsBlocked
	if blocked == nil {
		return nil
	}
	p := &pendingNotices{ready: make(chan struct{})}
	env := s.env
	go func() {
		defer close(p.ready)
		defer func() {
			if r := recover(); r != nil {
				a.log.Error("skill scan panicked", "session", s.id, "panic", r)
			}
		}()
		if lines := blocked(env); len(lines) > 0 {
			p.list = append(p.list, Notice{Severity: acp.NoticeWarning, Title: titleSkillsRefused,
				Text: fmt.Sprintf("%s left out of this session: the threat scan found possible prompt injection (inspect and fix; /context lists them):\n- %s", skillCount(len(lines)), strings.Join(lines, "\n- "))})
		}
	}()
	return p
}

// skillCount is "1 skill was" or "N skills were".
func skillCount(n int) string {
	if n == 1 {
		return "1 skill was"
	}
	return fmt.Sprintf("%d skills were", n)
}
