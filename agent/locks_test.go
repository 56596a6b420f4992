package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
)

// No session lock is held while the session waits for something slow: a
// turn waiting for the skills index (a slow skills folder) still lets the
// editor change the session's mode and cancel the turn. Were the session's
// lock held across the wait, session/cancel — served on the connection's
// read goroutine — would stall the whole connection and the prompt would
// never answer.
func TestSlowSkillsScanDoesNotHoldTheSession(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{caps: fsCaps, opts: agent.Options{SkillsIndex: func(*agent.Env) string {
		<-release // a skills folder that takes its time
		return "## Skills\n- demo: a skill for the test"
	}}})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	sid := h.newSession(ws)
	result := make(chan acp.StopReason, 1)
	go func() {
		// The linked file is read through the editor: once it is, the turn
		// is past its last check of the cancellation before it needs the
		// skills index.
		res, err := h.editor.Prompt(h.ctx(), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
			acp.TextBlock("hello"),
			{ResourceLink: &acp.ResourceLink{URI: "file://" + filepath.Join(ws, "notes.md"), Name: "notes.md"}},
		}})
		if err != nil {
			t.Errorf("session/prompt: %v", err)
			result <- ""
			return
		}
		result <- res.StopReason
	}()
	if err := h.editor.WaitFor(h.ctx(), func() bool { return len(h.editor.Reads()) > 0 }); err != nil {
		t.Fatalf("the prompt's linked file was not read: %v", err)
	}
	if err := h.editor.Call(h.ctx(), "session/set_mode", map[string]any{"sessionId": sid, "modeId": "accept_edits"}, nil); err != nil {
		t.Fatalf("session/set_mode while the skills are listed: %v", err)
	}
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Errorf("prompt cancelled while the skills were listed: stop = %s, want cancelled", stop)
	}
	if n := len(fm.requests()); n != 0 {
		t.Errorf("the cancelled turn made %d model requests, want none", n)
	}
	close(release)
	if stop := h.prompt(sid, "hello again"); stop != acp.StopEndTurn {
		t.Errorf("next prompt: stop = %s, want end_turn", stop)
	}
	reqs := fm.requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Content, "- demo: a skill for the test") {
		t.Errorf("the next turn's system prompt lacks the skills index: %d requests", len(reqs))
	}
}

// A request to the editor that is not answered (a permission dialog the
// user leaves open) holds up only its own call: the session's mode can be
// changed, the sessions listed, another session prompted, all while it is
// open; session/cancel ends the turn and withdraws the request.
func TestSlowEditorCallDoesNotHoldTheSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	asked := make(chan struct{}, 1)
	withdrawn := make(chan struct{})
	wait := func(ctx context.Context, _ *acp.RequestPermissionRequest) acp.PermissionOutcome {
		asked <- struct{}{}
		<-ctx.Done() // the agent's $/cancel_request
		close(withdrawn)
		return acp.PermissionOutcome{Cancelled: true}
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if lastMessage(req).Role == model.RoleTool {
			return textReply("done", emit), nil
		}
		if strings.Contains(lastMessage(req).Content, "other") {
			return textReply("the other session answers", emit), nil
		}
		return toolReply(model.ToolCall{ID: "c1", Name: "write_file", Arguments: `{"path":"slow.txt","content":"x"}`}), nil
	}}
	h := newHarness(t, fm, harnessOptions{bound: editTools(), perm: wait})
	sid := h.newSession(ws)
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "write") }()
	<-asked

	if err := h.editor.Call(h.ctx(), "session/set_mode", map[string]any{"sessionId": sid, "modeId": "plan"}, nil); err != nil {
		t.Fatalf("session/set_mode while a permission request is open: %v", err)
	}
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	if err := h.editor.Call(h.ctx(), "session/list", map[string]any{}, &list); err != nil {
		t.Fatalf("session/list while a permission request is open: %v", err)
	}
	other := h.newSession(t.TempDir())
	if stop := h.prompt(other, "the other session"); stop != acp.StopEndTurn {
		t.Errorf("another session's prompt while a permission request is open: stop = %s, want end_turn", stop)
	}
	if got := h.editor.Text(other); !strings.Contains(got, "the other session answers") {
		t.Errorf("other session's text = %q", got)
	}

	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Errorf("stop = %s, want cancelled", stop)
	}
	select {
	case <-withdrawn:
	case <-h.ctx().Done():
		t.Fatal("the open permission request was not withdrawn after session/cancel")
	}
}
