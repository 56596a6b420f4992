package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
)

// TestToolCallsPerReplyCapped: a reply with 10 000 tool calls runs the
// first DefaultMaxToolCallsPerReply; every other call gets a result telling
// the model it did not run, so the next request's history answers every id.
func TestToolCallsPerReplyCapped(t *testing.T) {
	t.Parallel()
	const n = 10_000
	fm := &fakeModel{reply: func(ctx context.Context, i int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if i > 0 {
			return textReply("done", emit), nil
		}
		calls := make([]model.ToolCall, n)
		for j := range calls {
			calls[j] = model.ToolCall{ID: fmt.Sprintf("c%d", j), Name: "echo", Arguments: fmt.Sprintf(`{"text":"%d"}`, j)}
		}
		return toolReply(calls...), nil
	}}
	// No session database: saving 10 000 tool results before the reply
	// takes ~16 s under the race detector (0.4 s without), and saving is not
	// what this test is about.
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), noStore: true})
	sid := h.newSession("")
	if stop := h.prompt(sid, "flood"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	started := 0
	for _, u := range h.editor.Updates(sid) {
		if u.Update.ToolCall != nil {
			started++
		}
	}
	if started != agent.DefaultMaxToolCallsPerReply {
		t.Errorf("tool calls shown = %d, want %d", started, agent.DefaultMaxToolCallsPerReply)
	}
	if text := h.editor.Text(sid); !strings.Contains(text, "10000 tool calls") {
		t.Errorf("the chat does not say calls were dropped: %q", text)
	}
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == model.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	if len(results) != n {
		t.Fatalf("tool results in the next request = %d, want one per call (%d)", len(results), n)
	}
	if got := results["c0"]; !strings.Contains(got, `"echo":"0"`) {
		t.Errorf("first call result = %s, want it run", got)
	}
	last := fmt.Sprintf("c%d", agent.DefaultMaxToolCallsPerReply-1)
	if got := results[last]; !strings.Contains(got, "echo") {
		t.Errorf("call %s result = %s, want it run", last, got)
	}
	dropped := fmt.Sprintf("c%d", agent.DefaultMaxToolCallsPerReply)
	for _, id := range []string{dropped, "c9999"} {
		if got := results[id]; !strings.Contains(got, "Not run") || !strings.Contains(got, "at most 128") {
			t.Errorf("call %s result = %s, want a 'not run' note naming the limit", id, got)
		}
	}
}
