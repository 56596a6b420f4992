package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
)

// noticesSetup is an agent with a notice of every kind: a configuration
// problem (start-up), a damaged session database, a terminal backend that
// is unavailable and a skill the threat scan refused (the session's own).
func noticesSetup(t *testing.T, caps acp.ClientCapabilities) (*harness, []agent.Notice) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "sessions.db"), []byte("not a database at all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("model says hi", emit), nil
	}}
	start := []agent.Notice{{Severity: acp.NoticeWarning, Title: "Configuration problems", Text: "Problems in the configuration file /h/config.yaml:\n- approvals.timeout: \"abc\" is not a whole number; this setting is ignored"}}
	opts := agent.Options{
		Notices: start,
		TerminalBackends: agent.TerminalBackends{Names: []string{"local", "docker"}, Default: "docker",
			Check: func(ctx context.Context, name string) error { return errors.New("no daemon at unix:///nowhere.sock") }},
		SkillsBlocked: func(env *agent.Env) []string { return []string{"`evil`: /skills/evil/SKILL.md — prompt injection"} },
	}
	return newHarness(t, fm, harnessOptions{home: home, caps: caps, opts: opts}), start
}

// TestNoticesAsUpdates: a client that advertises session.notices gets each
// notice as a notice update (severity, title, the text as description),
// before the turn's output and never as chat text; a second prompt and
// another session's first prompt repeat only the notices of their own
// session.
func TestNoticesAsUpdates(t *testing.T) {
	t.Parallel()
	caps := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.Marker{}}}
	h, start := noticesSetup(t, caps)
	sid := h.newSession("")
	h.prompt(sid, "hello")
	if got := h.editor.Text(sid); got != "model says hi" {
		t.Errorf("agent text = %q, want the reply alone (notices go as notice updates)", got)
	}
	type seen struct{ severity, title, text string }
	var notices []seen
	replyAt, lastNotice := -1, -1
	for i, u := range h.editor.Updates(sid) {
		if n := u.Update.Notice; n != nil {
			d := ""
			if n.Description != nil {
				d = *n.Description
			}
			notices = append(notices, seen{n.Severity, n.Title, d})
			lastNotice = i
		}
		if u.Update.AgentMessageChunk != nil && replyAt < 0 {
			replyAt = i
		}
	}
	want := []struct{ severity, title, contains string }{
		{acp.NoticeWarning, start[0].Title, start[0].Text},
		{acp.NoticeError, "Session database problem", "sessions.db is damaged"},
		{acp.NoticeError, "Terminal backend unavailable", "The terminal backend `docker` is unavailable (no daemon at unix:///nowhere.sock)"},
		{acp.NoticeWarning, "Skills refused", "1 skill was left out of this session"},
	}
	if len(notices) != len(want) {
		t.Fatalf("notices = %+v, want %d", notices, len(want))
	}
	for i, w := range want {
		if n := notices[i]; n.severity != w.severity || n.title != w.title || !strings.Contains(n.text, w.contains) {
			t.Errorf("notice %d = %+v, want %s %q containing %q", i, n, w.severity, w.title, w.contains)
		}
	}
	if replyAt < lastNotice {
		t.Errorf("the reply (update %d) came before the last notice (update %d)", replyAt, lastNotice)
	}
	h.prompt(sid, "again")
	if n := countNotices(h, sid); n != len(want) {
		t.Errorf("after a second prompt the session got %d notices, want still %d", n, len(want))
	}
	other := h.newSession("")
	h.prompt(other, "hello")
	var titles []string
	for _, u := range h.editor.Updates(other) {
		if u.Update.Notice != nil {
			titles = append(titles, u.Update.Notice.Title)
		}
	}
	if strings.Join(titles, "|") != "Terminal backend unavailable|Skills refused" {
		t.Errorf("another session's notices = %q, want only its own (backend, skills)", titles)
	}
	if got := h.editor.Text(other); got != "model says hi" {
		t.Errorf("another session's text = %q", got)
	}
}

// TestNoticesAsText: a client that did not opt in gets the same notices as
// "⚠️ text" agent messages before the reply, and no notice update.
func TestNoticesAsText(t *testing.T) {
	t.Parallel()
	h, start := noticesSetup(t, acp.ClientCapabilities{})
	sid := h.newSession("")
	h.prompt(sid, "hello")
	if n := countNotices(h, sid); n != 0 {
		t.Errorf("%d notice updates sent to a client that did not opt in", n)
	}
	text := h.editor.Text(sid)
	at := -1
	for _, part := range []string{"⚠️ " + start[0].Text, "sessions.db is damaged", "⚠️ The terminal backend `docker` is unavailable", "⚠️ 1 skill was left out", "model says hi"} {
		i := strings.Index(text, part)
		if i <= at {
			t.Fatalf("agent text = %q; want %q after the previous part", text, part)
		}
		at = i
	}
	if !strings.HasSuffix(text, "\n\nmodel says hi") {
		t.Errorf("agent text = %q, want the notices, then the reply", text)
	}
}

func countNotices(h *harness, sid string) int {
	n := 0
	for _, u := range h.editor.Updates(sid) {
		if u.Update.Notice != nil {
			n++
		}
	}
	return n
}
