package agent_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
)

// TestSignedThinkingKeptInHistory checks that an Anthropic reply's signed
// and redacted thinking blocks reach the next request of the tool round
// unchanged, and survive a restart through sessions.db.
func TestSignedThinkingKeptInHistory(t *testing.T) {
	t.Parallel()
	blocks := []model.ReasoningBlock{{Thinking: "Let me echo.", Signature: "sig-abc"}, {Redacted: "opaque=="}}
	var seen [][]model.ReasoningBlock // the assistant reasoning each request carried
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		var got []model.ReasoningBlock
		for _, m := range req.Messages {
			if m.Role == model.RoleAssistant {
				got = append(got, m.Reasoning...)
			}
		}
		seen = append(seen, got)
		if lastMessage(req).Role == model.RoleUser && n == 0 {
			r := toolReply(model.ToolCall{ID: "toolu_1", Name: "echo", Arguments: `{"text":"x"}`})
			r.Thought, r.Reasoning = "Let me echo.", blocks
			return r, nil
		}
		return textReply("ok", emit), nil
	}}
	home, ws := t.TempDir(), t.TempDir()
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
	sid := h.newSession(ws)
	h.prompt(sid, "echo x")
	h.agent.Close()

	h2 := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
	var loaded acp.LoadSessionResponse
	if err := h2.editor.Call(h2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	h2.prompt(sid, "again")
	if len(seen) != 3 {
		t.Fatalf("%d model requests, want 3", len(seen))
	}
	for i, want := range [][]model.ReasoningBlock{nil, blocks, blocks} {
		if diff := cmp.Diff(want, seen[i]); diff != "" {
			t.Errorf("request %d reasoning (-want +got):\n%s", i+1, diff)
		}
	}
}
