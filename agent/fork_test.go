package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
)

// TestForkLiveSession: session/fork copies a live session — its
// conversation, mode and model, a fresh id, the title with " (fork)" — and
// saves it at once, so a new process lists and replays both; prompting the
// fork leaves the original as it was. Bad requests get clear errors.
func TestForkLiveSession(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("answer to "+lastMessage(req).Content, emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{home: home})
	var init acp.InitializeResponse
	if err := h.editor.Call(h.ctx(), "initialize", &acp.InitializeRequest{ProtocolVersion: 1}, &init); err != nil {
		t.Fatal(err)
	}
	if init.AgentCapabilities.SessionCapabilities.Fork == nil {
		t.Errorf("sessionCapabilities = %+v, want fork advertised", init.AgentCapabilities.SessionCapabilities)
	}
	sid := h.newSession(ws)
	if err := h.editor.Call(h.ctx(), "session/set_mode", &acp.SetSessionModeRequest{SessionID: sid, ModeID: "accept_edits"}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	h.prompt(sid, "one")
	h.prompt(sid, "two")
	var forked acp.NewSessionResponse
	if err := h.editor.Call(h.ctx(), "session/fork", &acp.ForkSessionRequest{SessionID: sid, Cwd: ws}, &forked); err != nil {
		t.Fatal(err)
	}
	if forked.SessionID == "" || forked.SessionID == sid {
		t.Fatalf("fork id = %q (source %q), want a fresh one", forked.SessionID, sid)
	}
	if forked.Modes == nil || forked.Modes.CurrentModeID != "accept_edits" {
		t.Errorf("fork modes = %+v, want accept_edits current", forked.Modes)
	}
	h.prompt(forked.SessionID, "fork only")
	if got := lastMessage(fm.requests()[2]); got.Content != "fork only" {
		t.Fatalf("the fork's prompt reached the model as %+v", got)
	}
	var sent []string
	for _, m := range fm.requests()[2].Messages[1:] {
		sent = append(sent, string(m.Role)+": "+m.Content)
	}
	if want := []string{"user: one", "assistant: answer to one", "user: two", "assistant: answer to two", "user: fork only"}; !slices.Equal(sent, want) {
		t.Errorf("the fork's model request = %q, want %q", sent, want)
	}
	h.agent.Close()

	h2 := newHarness(t, fm, harnessOptions{home: home})
	var list acp.ListSessionsResponse
	if err := h2.editor.Call(h2.ctx(), "session/list", &acp.ListSessionsRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, s := range list.Sessions {
		if s.Title != nil {
			titles[s.SessionID] = *s.Title
		}
	}
	if len(list.Sessions) != 2 || titles[sid] != "one" || titles[forked.SessionID] != "one (fork)" {
		t.Errorf("session/list titles = %v, want the original %q and the fork %q", titles, "one", "one (fork)")
	}
	for id, want := range map[string][]string{sid: {"one", "two"}, forked.SessionID: {"one", "two", "fork only"}} {
		var loaded acp.LoadSessionResponse
		if err := h2.editor.Call(h2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: id, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
			t.Fatal(err)
		}
		var users []string
		for _, u := range h2.editor.Updates(id) {
			if c := u.Update.UserMessageChunk; c != nil {
				users = append(users, c.Content.Text.Text)
			}
		}
		if !slices.Equal(users, want) {
			t.Errorf("session %s replays prompts %q, want %q", id, users, want)
		}
		if loaded.Modes == nil || loaded.Modes.CurrentModeID != "accept_edits" {
			t.Errorf("session %s loads in mode %+v, want accept_edits", id, loaded.Modes)
		}
	}

	for _, tc := range []struct {
		name string
		req  acp.ForkSessionRequest
		code int
		msg  string
	}{
		{"unknown session", acp.ForkSessionRequest{SessionID: "sess_nope", Cwd: ws}, acp.CodeResourceNotFound, "sess_nope"},
		{"forkAt names no message", acp.ForkSessionRequest{SessionID: sid, Cwd: ws, Meta: acp.Meta{"hermes": map[string]any{"forkAt": "msg-nope"}}}, acp.CodeInvalidParams, `no message "msg-nope"`},
		{"forkAt not a string", acp.ForkSessionRequest{SessionID: sid, Cwd: ws, Meta: acp.Meta{"hermes": map[string]any{"forkAt": 3}}}, acp.CodeInvalidParams, "forkAt: must be a messageId"},
		{"relative cwd", acp.ForkSessionRequest{SessionID: sid, Cwd: "rel"}, acp.CodeInvalidParams, "cwd"},
	} {
		var res acp.NewSessionResponse
		err := h2.editor.Call(h2.ctx(), "session/fork", &tc.req, &res)
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != tc.code || !strings.Contains(ae.Error(), tc.msg) {
			t.Errorf("%s: session/fork = %v, want code %d naming %q", tc.name, err, tc.code, tc.msg)
		}
	}
}
