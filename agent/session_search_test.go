package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

func agentToolsRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	if err := reg.RegisterAll(agent.Tools()...); err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestSessionSearchAcrossAgents: a session stored by one agent is found by
// session_search in another agent on the same $HERMES_HOME; the model reads
// hermes's discovery shape (session, title, snippet, the match in its
// window), the asking session is not among the results, the editor shows a
// completed search call titled "session search: <query>", and a scroll
// around the match returns its neighbours.
func TestSessionSearchAcrossAgents(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	first := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("Noted: the zanzibar migration runs on Fridays.", emit), nil
	}}
	w1 := newHarness(t, first, harnessOptions{home: home, reg: agentToolsRegistry(t)})
	old := w1.newSession("")
	w1.prompt(old, "Plan the zanzibar migration")
	w1.agent.Close()

	var found map[string]any
	second := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0:
			return toolReply(model.ToolCall{ID: "call_s", Name: "session_search", Arguments: `{"query":"zanzibar"}`}), nil
		case 1:
			if err := json.Unmarshal([]byte(lastMessage(req).Content), &found); err != nil {
				t.Errorf("search result %q: %v", lastMessage(req).Content, err)
			}
			res, _ := found["results"].([]any)
			hit, _ := res[0].(map[string]any)
			args := `{"session_id":"` + old + `","around_message_id":` + jsonNumber(hit["match_message_id"]) + `,"window":1}`
			return toolReply(model.ToolCall{ID: "call_scroll", Name: "session_search", Arguments: args}), nil
		default:
			return textReply("Found it.", emit), nil
		}
	}}
	w2 := newHarness(t, second, harnessOptions{home: home, reg: agentToolsRegistry(t)})
	sid := w2.newSession("")
	w2.prompt(sid, "What did we decide about zanzibar?")

	if found["success"] != true || found["mode"] != "discover" || found["count"] != float64(1) {
		t.Fatalf("discovery = %v", found)
	}
	hit := found["results"].([]any)[0].(map[string]any)
	if hit["session_id"] != old || hit["matched_role"] != "user" || hit["detail"] != "full" ||
		!strings.Contains(hit["snippet"].(string), ">>>zanzibar<<<") || hit["title"] == nil {
		t.Errorf("hit = %v", hit)
	}
	msgs := hit["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["anchor"] != true ||
		msgs[1].(map[string]any)["content"] != "Noted: the zanzibar migration runs on Fridays." {
		t.Errorf("window around the match = %v", msgs)
	}

	reqs := second.requests()
	var scroll map[string]any
	if err := json.Unmarshal([]byte(lastMessage(reqs[2]).Content), &scroll); err != nil {
		t.Fatal(err)
	}
	if scroll["mode"] != "scroll" || scroll["messages_before"] != float64(0) || scroll["messages_after"] != float64(1) {
		t.Errorf("scroll = %v", scroll)
	}

	var call *acp.ToolCall
	var done *acp.ToolCallUpdate
	for _, u := range w2.editor.Updates(sid) {
		if u.Update.ToolCall != nil && u.Update.ToolCall.ToolCallID == "call_s" {
			call = u.Update.ToolCall
		}
		if u.Update.ToolCallUpdate != nil && u.Update.ToolCallUpdate.ToolCallID == "call_s" && u.Update.ToolCallUpdate.Status == acp.StatusCompleted {
			done = u.Update.ToolCallUpdate
		}
	}
	if call == nil || call.Kind != acp.KindSearch || call.Title != "session search: zanzibar" {
		t.Fatalf("tool_call = %+v", call)
	}
	if done == nil || len(done.Content) == 0 || done.Content[0].Content == nil || !strings.Contains(done.Content[0].Content.Text.Text, "Found 1 matching session") {
		t.Errorf("completed update = %+v", done)
	}
}

// TestSessionSearchShapes: browse lists other sessions, scrolling in the
// asking session is refused, unknown sessions and anchors are clear errors.
func TestSessionSearchShapes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	var results []string
	calls := []string{
		`{}`,
		`{"session_id":"nope","around_message_id":1}`,
		`{"session_id":"SELF","around_message_id":1}`,
		`{"query":"nothing-matches-this"}`,
	}
	var self string
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return textReply("ok", emit), nil // the first session's turn
		}
		if n >= 2 {
			results = append(results, lastMessage(req).Content)
		}
		if i := n - 1; i < len(calls) {
			return toolReply(model.ToolCall{ID: "c", Name: "session_search", Arguments: strings.ReplaceAll(calls[i], "SELF", self)}), nil
		}
		return textReply("done", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{home: home, reg: agentToolsRegistry(t)})
	other := h.newSession("")
	h.prompt(other, "first session")
	self = h.newSession("")
	h.prompt(self, "second")
	want := []string{
		`"mode":"browse","results":[{"session_id":"` + other,
		`{"error":"session_id not found: nope","success":false}`,
		`scroll rejected: anchor lives in the current session`,
		`"count":0,"message":"No matching sessions found."`,
	}
	if len(results) != len(want) {
		t.Fatalf("results = %q", results)
	}
	for i, w := range want {
		if !strings.Contains(results[i], w) {
			t.Errorf("call %s = %s, want it to contain %s", calls[i], results[i], w)
		}
	}
	if strings.Contains(results[0], self) {
		t.Errorf("browse lists the asking session: %s", results[0])
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
