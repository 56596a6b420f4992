package agent_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
)

func TestSessionPersistenceAndReplay(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := t.TempDir()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if lastMessage(req).Role == model.RoleUser {
			emit(model.Delta{Thought: "thinking"})
			r := toolReply(model.ToolCall{ID: "call_9", Name: "echo", Arguments: `{"text":"persisted"}`})
			r.Thought = "thinking"
			return r, nil
		}
		return textReply("All done.", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
	sid := h.newSession(ws)
	h.prompt(sid, "Remember this conversation\nsecond line")
	h.agent.Close() // the editor quits: pending saves are written

	// A new connection (a restarted editor) sees and reloads it.
	h2 := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
	ctx := h2.ctx()
	var list acp.ListSessionsResponse
	if err := h2.editor.Call(ctx, "session/list", &acp.ListSessionsRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].Cwd != ws ||
		list.Sessions[0].Title == nil || *list.Sessions[0].Title != "Remember this conversation" || list.Sessions[0].UpdatedAt == nil {
		t.Fatalf("session/list = %+v", list.Sessions)
	}
	other := "/elsewhere"
	if err := h2.editor.Call(ctx, "session/list", &acp.ListSessionsRequest{Cwd: &other}, &list); err != nil || len(list.Sessions) != 0 {
		t.Errorf("cwd filter: %+v, %v", list.Sessions, err)
	}
	var loaded acp.LoadSessionResponse
	if err := h2.editor.Call(ctx, "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	kinds := h2.kinds(sid)
	want := []string{"user_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "agent_message_chunk"}
	if len(kinds) < len(want) || !slices.Equal(kinds[:len(want)], want) {
		t.Fatalf("replay = %v, want %v first (all before the response)", kinds, want)
	}
	ups := h2.editor.Updates(sid)
	if ups[0].Update.UserMessageChunk.Content.Text.Text != "Remember this conversation\nsecond line" {
		t.Errorf("replayed user text = %q", ups[0].Update.UserMessageChunk.Content.Text.Text)
	}
	if tc := ups[2].Update.ToolCall; tc.ToolCallID != "call_9" || tc.Title != "echo" || tc.Name != "echo" {
		t.Errorf("replayed tool call = %+v", tc)
	}
	if tu := ups[3].Update.ToolCallUpdate; tu.Status != acp.StatusCompleted {
		t.Errorf("replayed completion = %+v", tu)
	}
	if loaded.Modes == nil || len(loaded.ConfigOptions) == 0 {
		t.Errorf("load response = %+v", loaded)
	}
	// The restored conversation continues with its history.
	h2.prompt(sid, "continue")
	reqs := fm.requests()
	msgs := reqs[len(reqs)-1].Messages
	if !strings.Contains(msgs[1].Content, "Remember this conversation") {
		t.Errorf("continued conversation lost its history: %+v", msgs)
	}

	// Resume restores without replaying.
	h3 := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
	var resumed acp.LoadSessionResponse
	if err := h3.editor.Call(h3.ctx(), "session/resume", &acp.ResumeSessionRequest{SessionID: sid, Cwd: ws}, &resumed); err != nil {
		t.Fatal(err)
	}
	for _, k := range h3.kinds(sid) {
		if k != "available_commands_update" {
			t.Errorf("resume replayed %s", k)
		}
	}
	// Delete removes it; deleting again is fine; loading it now fails.
	for range 2 {
		if err := h3.editor.Call(h3.ctx(), "session/delete", &acp.SessionRequest{SessionID: sid}, &acp.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h3.editor.Call(h3.ctx(), "session/list", &acp.ListSessionsRequest{}, &list); err != nil || len(list.Sessions) != 0 {
		t.Errorf("after delete: %+v, %v", list.Sessions, err)
	}
	err := h3.editor.Call(h3.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Errorf("load after delete: %v, want -32002", err)
	}
}

func TestSessionListPagination(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	ws := t.TempDir()
	ids := map[string]bool{}
	for range 53 {
		sid := h.newSession(ws)
		h.prompt(sid, "hi")
		ids[sid] = true
	}
	h.newSession(ws) // never prompted: not listed
	var page acp.ListSessionsResponse
	ctx := h.ctx()
	if err := h.editor.Call(ctx, "session/list", &acp.ListSessionsRequest{}, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Sessions) != 50 || page.NextCursor == nil {
		t.Fatalf("first page: %d sessions, cursor %v", len(page.Sessions), page.NextCursor)
	}
	seen := map[string]bool{}
	for _, s := range page.Sessions {
		seen[s.SessionID] = true
	}
	var page2 acp.ListSessionsResponse
	if err := h.editor.Call(ctx, "session/list", &acp.ListSessionsRequest{Cursor: page.NextCursor}, &page2); err != nil {
		t.Fatal(err)
	}
	if len(page2.Sessions) != 3 || page2.NextCursor != nil {
		t.Fatalf("second page: %d sessions, cursor %v", len(page2.Sessions), page2.NextCursor)
	}
	for _, s := range page2.Sessions {
		if seen[s.SessionID] {
			t.Errorf("%s on both pages", s.SessionID)
		}
		seen[s.SessionID] = true
	}
	if len(seen) != 53 {
		t.Errorf("listed %d distinct sessions, want 53", len(seen))
	}
	bad := "not-a-cursor"
	err := h.editor.Call(ctx, "session/list", &acp.ListSessionsRequest{Cursor: &bad}, &page)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Errorf("bad cursor: %v, want -32602", err)
	}
}

func TestCloseSession(t *testing.T) {
	t.Parallel()
	started := make(chan int, 2)
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, blockingModel(started, release), harnessOptions{})
	sid := h.newSession("")
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "long") }()
	<-started
	if err := h.editor.Call(h.ctx(), "session/close", &acp.SessionRequest{SessionID: sid}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Errorf("prompt during close = %s, want cancelled", stop)
	}
	_, err := h.editor.PromptText(h.ctx(), sid, "again")
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Errorf("prompt after close: %v, want -32002", err)
	}
	err = h.editor.Call(h.ctx(), "session/close", &acp.SessionRequest{SessionID: sid}, &acp.Empty{})
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Errorf("second close: %v, want -32002", err)
	}
}

// TestTwoAgentsOnOneSession is an editor with two windows on one thread:
// two agents (two processes, one HERMES_HOME) load the same session and
// prompt in turn; a third agent replays every message of both, in order.
func TestTwoAgentsOnOneSession(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("answer to "+lastMessage(req).Content, emit), nil
	}}
	w1 := newHarness(t, fm, harnessOptions{home: home})
	w2 := newHarness(t, fm, harnessOptions{home: home})
	// saved makes a window's pending save happen now (session/list saves).
	saved := func(h *harness) {
		var list acp.ListSessionsResponse
		if err := h.editor.Call(h.ctx(), "session/list", &acp.ListSessionsRequest{}, &list); err != nil {
			t.Fatal(err)
		}
	}
	sid := w1.newSession(ws)
	w1.prompt(sid, "one")
	saved(w1)
	var loaded acp.LoadSessionResponse
	if err := w2.editor.Call(w2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		h    *harness
		text string
	}{{w1, "two (window 1)"}, {w2, "three (window 2)"}, {w1, "four (window 1)"}, {w2, "five (window 2)"}} {
		p.h.prompt(sid, p.text)
		saved(p.h)
	}
	w1.agent.Close()
	w2.agent.Close()

	w3 := newHarness(t, fm, harnessOptions{home: home})
	if err := w3.editor.Call(w3.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range w3.editor.Updates(sid) {
		switch {
		case u.Update.UserMessageChunk != nil:
			got = append(got, "user: "+u.Update.UserMessageChunk.Content.Text.Text)
		case u.Update.AgentMessageChunk != nil:
			got = append(got, "agent: "+u.Update.AgentMessageChunk.Content.Text.Text)
		}
	}
	var want []string
	for _, p := range []string{"one", "two (window 1)", "three (window 2)", "four (window 1)", "five (window 2)"} {
		want = append(want, "user: "+p, "agent: answer to "+p)
	}
	if !slices.Equal(got, want) {
		t.Errorf("replay after two windows =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNoticesOnceAtFirstPrompt: start-up notices (a configuration problem)
// and a damaged session database are shown once, at the first prompt of the
// process, before the turn's output; they are not part of the conversation;
// the agent works without persistence and leaves the file as it was.
func TestNoticesOnceAtFirstPrompt(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	db := filepath.Join(home, "sessions.db")
	junk := []byte("not a database at all\n")
	if err := os.WriteFile(db, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("model says hi", emit), nil
	}}
	configNotice := "Problems in the configuration file /h/config.yaml:\n- approvals.timeout: \"abc\" is not a whole number; this setting is ignored"
	h := newHarness(t, fm, harnessOptions{home: home, opts: agent.Options{Notices: []agent.Notice{{Severity: acp.NoticeWarning, Title: "Configuration problems", Text: configNotice}}}})
	sid := h.newSession("")
	if stop := h.prompt(sid, "hello"); stop != acp.StopEndTurn {
		t.Errorf("first prompt stopped with %s", stop)
	}
	first := h.editor.Text(sid)
	cfgAt, dbAt, replyAt := strings.Index(first, configNotice), strings.Index(first, db+" is damaged"), strings.Index(first, "model says hi")
	if cfgAt < 0 || dbAt < 0 || replyAt < 0 || replyAt < cfgAt || replyAt < dbAt {
		t.Errorf("first turn's text = %q; want both notices, then the reply", first)
	}
	h.prompt(sid, "again")
	if second := strings.TrimPrefix(h.editor.Text(sid), first); second != "model says hi" {
		t.Errorf("second turn's text = %q, want the reply alone", second)
	}
	other := h.newSession("")
	h.prompt(other, "hello")
	if text := h.editor.Text(other); text != "model says hi" {
		t.Errorf("another session's first turn = %q, want no notice again", text)
	}
	for _, req := range fm.requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "damaged") || strings.Contains(m.Content, "approvals.timeout") {
				t.Errorf("a notice reached the model: %q", m.Content)
			}
		}
	}
	var list acp.ListSessionsResponse
	if err := h.editor.Call(h.ctx(), "session/list", &acp.ListSessionsRequest{}, &list); err != nil || len(list.Sessions) != 0 {
		t.Errorf("session/list without persistence = %+v, %v; want an empty list", list.Sessions, err)
	}
	h.agent.Close()
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, junk) {
		t.Errorf("sessions.db after the run = %q, %v; want it untouched", after, err)
	}
}

// TestResetIsSaved: after /reset, a reload shows only what came after it.
func TestResetIsSaved(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("answer to "+lastMessage(req).Content, emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{home: home})
	sid := h.newSession(ws)
	h.prompt(sid, "before")
	var list acp.ListSessionsResponse
	if err := h.editor.Call(h.ctx(), "session/list", &acp.ListSessionsRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	h.prompt(sid, "/reset")
	h.prompt(sid, "after")
	h.agent.Close()

	h2 := newHarness(t, fm, harnessOptions{home: home})
	var loaded acp.LoadSessionResponse
	if err := h2.editor.Call(h2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, u := range h2.editor.Updates(sid) {
		if u.Update.UserMessageChunk != nil {
			users = append(users, u.Update.UserMessageChunk.Content.Text.Text)
		}
	}
	if !slices.Equal(users, []string{"after"}) {
		t.Errorf("replayed prompts after /reset = %q, want [after]", users)
	}
}

// TestUnpromptedSessionKeepsConfig: a session never prompted is stored
// from session/new on; its mode and config options set before any prompt
// come back in another agent on the same home, through load and resume.
func TestUnpromptedSessionKeepsConfig(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	opts := agent.Options{TerminalBackends: agent.TerminalBackends{Names: []string{"local", "docker"}, Default: "local",
		Check: func(context.Context, string) error { return nil }}}
	h := newHarness(t, &fakeModel{}, harnessOptions{home: home, opts: opts})
	sid := h.newSession(ws)
	ctx := h.ctx()
	var cres acp.SetSessionConfigOptionResponse
	if err := h.editor.Call(ctx, "session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "terminal_backend", Value: "docker"}, &cres); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.Call(ctx, "session/set_mode", &acp.SetSessionModeRequest{SessionID: sid, ModeID: "accept_edits"}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}

	for _, method := range []string{"session/load", "session/resume"} {
		h2 := newHarness(t, &fakeModel{}, harnessOptions{home: home, opts: opts})
		var got acp.LoadSessionResponse
		if err := h2.editor.Call(h2.ctx(), method, &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &got); err != nil {
			t.Fatalf("%s of a session never prompted: %v", method, err)
		}
		if got.Modes == nil || got.Modes.CurrentModeID != "accept_edits" || optionValue(got.ConfigOptions, "mode") != "accept_edits" {
			t.Errorf("%s: modes %+v, mode option %q; want accept_edits", method, got.Modes, optionValue(got.ConfigOptions, "mode"))
		}
		if v := optionValue(got.ConfigOptions, "terminal_backend"); v != "docker" {
			t.Errorf("%s: terminal_backend = %q, want docker (set before the restart)", method, v)
		}
		if kinds := h2.kinds(sid); len(kinds) != 1 || kinds[0] != "available_commands_update" {
			t.Errorf("%s: updates before the reply = %q, want only the command list", method, kinds)
		}
	}
	var list acp.ListSessionsResponse
	if err := h.editor.Call(ctx, "session/list", &acp.ListSessionsRequest{}, &list); err != nil || len(list.Sessions) != 0 {
		t.Errorf("session/list = %+v, %v; want the unprompted session left out", list.Sessions, err)
	}
}
