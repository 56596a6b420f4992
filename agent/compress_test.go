package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

const summaryText = "SUMMARY: the user asked about files one to three."

// isSummaryRequest tells the summariser's request from a turn's.
func isSummaryRequest(req model.Request) bool {
	return len(req.Messages) == 1 && strings.Contains(req.Messages[0].Content, "TURNS TO SUMMARIZE")
}

// compressingModel answers a summary request with summaryText and a turn
// with one echo call of a large text, then a short answer.
func compressingModel() *fakeModel {
	return &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if isSummaryRequest(req) {
			return &model.Reply{Text: summaryText, FinishReason: model.Stop}, nil
		}
		if lastMessage(req).Role == model.RoleUser {
			return toolReply(model.ToolCall{ID: "", Name: "echo", Arguments: `{"text":"` + strings.Repeat("data ", 300) + `"}`}), nil
		}
		return textReply("Done.", emit), nil
	}}
}

// checkPaired fails unless every tool result of msgs follows its call.
func checkPaired(t *testing.T, msgs []model.Message) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
		if m.Role == model.RoleTool {
			if !open[m.ToolCallID] {
				t.Fatalf("tool result %s sent without its call", m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Fatalf("tool calls sent without their results: %v", open)
	}
}

func TestCompressionPastTheThreshold(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	fm := compressingModel()
	opts := agent.Options{Model: agent.ModelSetup{ContextWindow: 3000}} // threshold 2400 tokens
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home, opts: opts})
	sid := h.newSession(ws)
	const prompts = 8
	for i := range prompts {
		if stop := h.prompt(sid, "question "+string(rune('A'+i))); stop != acp.StopEndTurn {
			t.Fatalf("prompt %d: stop %s", i, stop)
		}
	}
	reqs := fm.requests()
	summaries, at := 0, -1
	for i, r := range reqs {
		if isSummaryRequest(r) {
			summaries++
			if at < 0 {
				at = i
			}
		}
	}
	if summaries == 0 {
		t.Fatalf("no compression in %d requests", len(reqs))
	}
	if !strings.Contains(reqs[at].Messages[0].Content, "question B") {
		t.Errorf("the summary request does not carry the middle of the conversation")
	}
	if strings.Contains(reqs[at].Messages[0].Content, "question A") {
		t.Errorf("the first exchange was summarised: it is kept verbatim")
	}
	next := reqs[at+1]
	if len(next.Messages) >= len(reqs[at-1].Messages) {
		t.Errorf("request after compression has %d messages, before %d", len(next.Messages), len(reqs[at-1].Messages))
	}
	found := false
	for _, m := range next.Messages {
		found = found || strings.Contains(m.Content, summaryText)
	}
	if !found {
		t.Error("the request after compression has no summary message")
	}
	if next.Messages[1].Content != "question A" {
		t.Errorf("first exchange not kept: %q", next.Messages[1].Content)
	}
	for _, r := range reqs {
		if !isSummaryRequest(r) {
			checkPaired(t, r.Messages)
		}
	}
	last := reqs[len(reqs)-1]
	if lm := last.Messages[len(last.Messages)-2]; lm.Role != model.RoleAssistant || len(lm.ToolCalls) != 1 {
		t.Errorf("the most recent turn is not kept verbatim: %+v", lm)
	}
	if !strings.Contains(h.editor.Text(sid), "Context compressed") {
		t.Error("the user was not told about the compression")
	}

	// /context reports the threshold and the compression.
	h.prompt(sid, "/context")
	if txt := h.editor.Text(sid); !strings.Contains(txt, "compression at ~2400 tokens (80%)") || !strings.Contains(txt, "Compressed: the model sees a summary") {
		t.Errorf("/context = %q", txt[strings.LastIndex(txt, "Conversation:"):])
	}
	h.agent.Close()

	// The store keeps the original conversation: session/load replays it all.
	h2 := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home, opts: opts})
	var loaded acp.LoadSessionResponse
	if err := h2.editor.Call(h2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	users, calls := 0, 0
	for _, u := range h2.editor.Updates(sid) {
		if c := u.Update.UserMessageChunk; c != nil {
			users++
			if strings.Contains(c.Content.Text.Text, summaryText) {
				t.Error("the summary was stored as a user message")
			}
		}
		if u.Update.ToolCall != nil {
			calls++
		}
	}
	if users != prompts || calls != prompts {
		t.Errorf("replayed %d prompts and %d tool calls, want %d of each", users, calls, prompts)
	}
}

func TestCompactCommand(t *testing.T) {
	t.Parallel()
	fm := compressingModel()
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t)}) // default context: no automatic compression
	sid := h.newSession("")
	h.prompt(sid, "/compact")
	if !strings.Contains(h.editor.Text(sid), "Nothing to compress") {
		t.Errorf("/compact on an empty conversation: %q", h.editor.Text(sid))
	}
	for _, p := range []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"} {
		h.prompt(sid, p)
	}
	h.prompt(sid, "/compact the echo tool")
	reqs := fm.requests()
	sum := reqs[len(reqs)-1]
	if !isSummaryRequest(sum) || !strings.Contains(sum.Messages[0].Content, `FOCUS TOPIC: "the echo tool"`) {
		t.Fatalf("/compact did not ask for a focused summary (last request: %d messages)", len(sum.Messages))
	}
	h.prompt(sid, "eleven")
	next := fm.requests()[len(reqs)]
	if len(next.Messages) >= len(reqs[len(reqs)-2].Messages) || !strings.Contains(next.Messages[4].Content, summaryText) {
		t.Errorf("the request after /compact is not compressed: %d messages", len(next.Messages))
	}
	checkPaired(t, next.Messages)
}

func TestContextLengthErrorCompressesAndRetries(t *testing.T) {
	t.Parallel()
	failed := 0
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if isSummaryRequest(req) {
			return &model.Reply{Text: summaryText, FinishReason: model.Stop}, nil
		}
		if len(req.Messages) > 12 && failed == 0 {
			failed++
			return nil, &model.Error{Kind: model.ContextLength, Status: 400, Message: "The conversation is too long for the model's context."}
		}
		if lastMessage(req).Role == model.RoleUser {
			return toolReply(model.ToolCall{Name: "echo", Arguments: `{"text":"x"}`}), nil
		}
		return textReply("Done.", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t)})
	sid := h.newSession("")
	for i := range 5 {
		if stop := h.prompt(sid, "step "+string(rune('a'+i))); stop != acp.StopEndTurn {
			t.Fatalf("stop %s", stop)
		}
	}
	if failed != 1 {
		t.Fatalf("the model refused %d times, want once", failed)
	}
	if txt := h.editor.Text(sid); strings.Contains(txt, "too long") || !strings.Contains(txt, "Context compressed") {
		t.Errorf("the turn failed instead of compressing and retrying: %q", txt)
	}
	reqs := fm.requests()
	for i, r := range reqs {
		if len(r.Messages) > 12 && !isSummaryRequest(r) { // the refused request
			sum, retry := reqs[i+1], reqs[i+2]
			if !isSummaryRequest(sum) || len(retry.Messages) >= len(r.Messages) || !strings.Contains(retry.Messages[4].Content, summaryText) {
				t.Errorf("the retried request is not compressed: %d messages, before %d", len(retry.Messages), len(r.Messages))
			}
			checkPaired(t, retry.Messages)
			break
		}
	}
}

// Compression gives the session fresh tool state (read dedup and the like
// refer to messages the model no longer sees), as /reset does.
func TestCompressionResetsToolState(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if isSummaryRequest(req) {
			return &model.Reply{Text: summaryText, FinishReason: model.Stop}, nil
		}
		if last := lastMessage(req); last.Role == model.RoleTool {
			return textReply("count "+last.Content+".", emit), nil
		}
		return toolReply(model.ToolCall{Name: "counter", Arguments: `{}`}), nil
	}}
	counter := envTool{
		entry: registry.Entry{Name: "counter", Toolset: "test", Description: "Count calls since the session's tools were bound.",
			Schema: map[string]any{"type": "object", "properties": map[string]any{}}},
		handler: func(env *agent.Env) registry.Handler {
			n := 0 // per binding, like the read tracker
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				n++
				return registry.OK(n), nil
			}
		},
	}
	h := newHarness(t, fm, harnessOptions{bound: []envTool{counter}})
	sid := h.newSession("")
	for _, p := range []string{"a", "b", "c", "d"} {
		h.prompt(sid, p)
	}
	if txt := h.editor.Text(sid); !strings.Contains(txt, "count 4.") {
		t.Fatalf("the counter did not count: %q", txt)
	}
	h.prompt(sid, "/compact")
	h.prompt(sid, "e")
	txt := h.editor.Text(sid)
	if !strings.Contains(txt, "Context compressed") || !strings.HasSuffix(txt, "count 1.") {
		t.Errorf("after compression the tool state is not fresh: %q", txt[strings.LastIndex(txt, "count"):])
	}
}

// A failed summary request loses nothing: the turn goes on with the whole
// conversation, and /compact says why it could not compress.
func TestCompressionSummaryFailureKeepsTheConversation(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if isSummaryRequest(req) {
			return nil, &model.Error{Kind: model.RateLimited, Status: 429, Message: "The model is rate limited."}
		}
		if lastMessage(req).Role == model.RoleUser {
			return toolReply(model.ToolCall{Name: "echo", Arguments: `{"text":"` + strings.Repeat("data ", 300) + `"}`}), nil
		}
		return textReply("Done.", emit), nil
	}}
	opts := agent.Options{Model: agent.ModelSetup{ContextWindow: 3000}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), opts: opts})
	sid := h.newSession("")
	prompts := []string{"p1", "p2", "p3", "p4", "p5", "p6"}
	for _, p := range prompts {
		if stop := h.prompt(sid, p); stop != acp.StopEndTurn {
			t.Fatalf("%s: stop %s", p, stop)
		}
	}
	reqs := fm.requests()
	tries := 0
	for _, r := range reqs {
		if isSummaryRequest(r) {
			tries++
		}
	}
	if tries == 0 || tries >= len(prompts) {
		t.Fatalf("%d summary requests in %d turns: want some, at most one a turn", tries, len(prompts))
	}
	last := reqs[len(reqs)-1]
	if got, want := len(last.Messages), 1+4*len(prompts)-1; got != want {
		t.Errorf("the last request has %d messages, want the whole conversation (%d)", got, want)
	}
	if txt := h.editor.Text(sid); strings.Contains(txt, "Context compressed") || strings.Count(txt, "Done.") != len(prompts) {
		t.Errorf("turns = %q", txt)
	}
	h.prompt(sid, "/compact")
	if txt := h.editor.Text(sid); !strings.Contains(txt, "Could not compress the conversation: summarise the conversation: The model is rate limited.") {
		t.Errorf("/compact after a failed summary: %q", txt[strings.LastIndex(txt, "Done."):])
	}
}
