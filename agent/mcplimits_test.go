package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	"github.com/hermes-acp/hermes-acp/model"
)

// TestMCPOversizedResultKeepsServer: a 20 MiB result, over the 16 MiB
// limit of one stdio message, is refused with a clear result; the server
// stays connected and its next call works.
func TestMCPOversizedResultKeepsServer(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0:
			return toolReply(model.ToolCall{ID: "c_big", Name: "mcp_test_big", Arguments: `{"mib":20}`}), nil
		case 1:
			return toolReply(model.ToolCall{ID: "c_echo", Name: "mcp_test_echo", Arguments: `{"text":"still here"}`}), nil
		}
		return textReply("done", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	srv, _ := mcpStdioServer(t, "test")
	sid := h.newMCPSession(srv)
	// The turn moves 20 MiB of JSON: the server's SDK encodes it (about a
	// second of CPU), and the agent reads it, race-instrumented under
	// -race. On a loaded 2-core machine that took from 12 s to over 40 s,
	// past the harness's usual 20 s guard against hangs; this guard is
	// sized for the work (it still only catches a hang, not slowness).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stop, err := h.editor.PromptText(ctx, sid, "fetch a lot")
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	reqs := fm.requests()
	if len(reqs) != 3 {
		t.Fatalf("model calls = %d, want 3", len(reqs))
	}
	big := mcpResults(reqs[1])["c_big"]
	if !strings.Contains(big, "over the 16 MiB limit") || len(big) > 1000 {
		t.Errorf("oversized result the model read = %.300q, want a short refusal naming the limit", big)
	}
	if got, want := mcpResults(reqs[2])["c_echo"], `{"result":"still here"}`; got != want {
		t.Errorf("next call's result = %q, want %q (the server must stay usable)", got, want)
	}
	if text := h.editor.Text(sid); strings.Contains(text, "stopped") {
		t.Errorf("chat = %q, want no server stop", text)
	}
}

// TestMCPServerReconnectedOnce: a stdio server that dies is started again
// once, the chat says so and its tools work again; a second death is final
// and said too.
func TestMCPServerReconnectedOnce(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		last := lastMessage(req)
		switch {
		case last.Role == model.RoleUser && strings.HasPrefix(last.Content, "crash"):
			return toolReply(model.ToolCall{ID: "c_crash_" + last.Content, Name: "mcp_test_crash", Arguments: `{}`}), nil
		case last.Role == model.RoleUser && last.Content == "echo":
			return toolReply(model.ToolCall{ID: "c_echo", Name: "mcp_test_echo", Arguments: `{"text":"back"}`}), nil
		}
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	srv, events := mcpStdioServer(t, "test")
	sid := h.newMCPSession(srv)
	h.prompt(sid, "crash1")
	mcpWaitEvent(t, events, mcptest.EventCrash)
	if err := h.editor.WaitFor(h.ctx(), func() bool { return strings.Contains(h.editor.Text(sid), `MCP server "test" reconnected`) }); err != nil {
		t.Fatalf("no reconnect message: %v; chat: %q", err, h.editor.Text(sid))
	}
	if text := h.editor.Text(sid); !strings.Contains(text, `⚠️ MCP server "test" stopped; reconnecting it once.`) {
		t.Errorf("chat = %q, want it to say the server stopped and is reconnected", text)
	}
	h.prompt(sid, "echo")
	reqs := fm.requests()
	if got, want := mcpResults(reqs[len(reqs)-1])["c_echo"], `{"result":"back"}`; got != want {
		t.Errorf("call after the reconnect = %q, want %q", got, want)
	}
	h.prompt(sid, "crash2")
	if err := h.editor.WaitFor(h.ctx(), func() bool { return strings.Contains(h.editor.Text(sid), `stopped again`) }); err != nil {
		t.Fatalf("no final stop message: %v; chat: %q", err, h.editor.Text(sid))
	}
	if n := strings.Count(h.editor.Text(sid), "reconnecting it once"); n != 1 {
		t.Errorf("reconnect attempts announced = %d, want 1", n)
	}
}
