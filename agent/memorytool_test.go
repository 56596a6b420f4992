package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// memoryHarness is a harness whose only tools are the agent's own, with a
// model that sends one memory call with args and then answers "ok".
func memoryHarness(t *testing.T, home string, args ...string) (*harness, *fakeModel) {
	t.Helper()
	reg := registry.New(nil)
	if err := reg.RegisterAll(agent.Tools()...); err != nil {
		t.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if last := lastMessage(req); last.Role == model.RoleUser && len(args) > 0 {
			a := args[0]
			args = args[1:]
			return toolReply(model.ToolCall{ID: "m1", Name: "memory", Arguments: a}), nil
		}
		return textReply("ok", emit), nil
	}}
	return newHarness(t, fm, harnessOptions{reg: reg, home: home}), fm
}

// memoryCall returns the start and the end of the memory call m1.
func memoryCall(t *testing.T, h *harness, sid string) (*acp.ToolCall, *acp.ToolCallUpdate) {
	t.Helper()
	var start *acp.ToolCall
	var end *acp.ToolCallUpdate
	for _, u := range h.editor.Updates(sid) {
		if c := u.Update.ToolCall; c != nil && c.ToolCallID == "m1" {
			start = c
		}
		if c := u.Update.ToolCallUpdate; c != nil && c.ToolCallID == "m1" && (c.Status == acp.StatusCompleted || c.Status == acp.StatusFailed) {
			end = c
		}
	}
	if start == nil || end == nil {
		t.Fatalf("memory call: start %v, end %v", start, end)
	}
	return start, end
}

func systemOf(req model.Request) string {
	if len(req.Messages) == 0 || req.Messages[0].Role != model.RoleSystem {
		return ""
	}
	return req.Messages[0].Content
}

// TestMemoryWrittenShowsInTheNextSession: a memory add is written to
// $HERMES_HOME/memories/USER.md, the editor sees "memory add: user" (kind
// other) completed without the entry, the model's result has the usage but
// not the entry, the writing session's system prompt keeps the memory it
// started with, and the next session's system prompt has the new entry.
func TestMemoryWrittenShowsInTheNextSession(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	h, fm := memoryHarness(t, home, `{"action":"add","target":"user","content":"Name: Alice; prefers tabs"}`)
	sid := h.newSession("")
	h.prompt(sid, "remember me")

	raw, err := os.ReadFile(filepath.Join(home, "memories", "USER.md"))
	if err != nil || string(raw) != "Name: Alice; prefers tabs" {
		t.Fatalf("USER.md = %q, %v", raw, err)
	}
	start, end := memoryCall(t, h, sid)
	if start.Title != "memory add: user" || start.Kind != acp.KindOther {
		t.Errorf("start: title %q kind %q", start.Title, start.Kind)
	}
	if end.Status != acp.StatusCompleted {
		t.Errorf("status %q", end.Status)
	}
	shown, _ := json.Marshal(end.Content)
	if strings.Contains(string(shown), "Alice") || !strings.Contains(string(shown), "Entry added.") || !strings.Contains(string(shown), "25/1,375 chars") {
		t.Errorf("completion content %s", shown)
	}
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	result := lastMessage(reqs[1])
	if result.Role != model.RoleTool || strings.Contains(result.Content, "Alice") || !strings.Contains(result.Content, `"success":true`) || !strings.Contains(result.Content, `"entry_count":1`) {
		t.Errorf("tool result %q", result.Content)
	}
	if sys := systemOf(reqs[1]); sys == "" || strings.Contains(sys, "Alice") {
		t.Errorf("the writing session's system prompt changed mid-session:\n%s", sys)
	}
	if systemOf(reqs[0]) != systemOf(reqs[1]) {
		t.Error("the system prompt differs between the requests of one session")
	}

	sid2 := h.newSession("")
	h.prompt(sid2, "hello")
	reqs = fm.requests()
	sys := systemOf(reqs[len(reqs)-1])
	if !strings.Contains(sys, "USER PROFILE (who the user is)") || !strings.Contains(sys, "Name: Alice; prefers tabs") {
		t.Errorf("the next session's system prompt lacks the memory:\n%s", sys)
	}
}

// TestMemoryRefusalIsAFailedCallWithoutEntries: an add past the limit
// fails, the editor shows why without the stored entries, and the file is
// unchanged.
func TestMemoryRefusalIsAFailedCallWithoutEntries(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "memories")
	stored := "secret-ish stored fact " + strings.Repeat("x", 2100)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte(stored), 0o600); err != nil {
		t.Fatal(err)
	}
	h, fm := memoryHarness(t, home, `{"action":"add","target":"memory","content":"`+strings.Repeat("n", 200)+`"}`)
	sid := h.newSession("")
	h.prompt(sid, "remember")
	_, end := memoryCall(t, h, sid)
	if end.Status != acp.StatusFailed {
		t.Errorf("status %q, want failed", end.Status)
	}
	shown, _ := json.Marshal(end.Content)
	if strings.Contains(string(shown), "secret-ish") || !strings.Contains(string(shown), "would exceed the limit") {
		t.Errorf("completion content %s", shown)
	}
	result := lastMessage(fm.requests()[1]).Content
	if strings.Contains(result, "secret-ish") || !strings.Contains(result, `"success":false`) {
		t.Errorf("tool result %q", result)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "MEMORY.md")); string(raw) != stored {
		t.Error("MEMORY.md changed")
	}
}

// TestMemoryBatchAndValidation: a batch frees room and adds in one call;
// calls missing what their action needs fail with hermes's messages;
// new_text is accepted for content.
func TestMemoryBatchAndValidation(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	h, fm := memoryHarness(t, home,
		`{"target":"memory","operations":[{"action":"add","content":"uses pnpm"},{"action":"add","content":"stale"},{"action":"remove","old_text":"stale"}]}`,
		`{"target":"memory"}`,
		`{"action":"replace","target":"memory","content":"x"}`,
		`{"action":"add","target":"notes","content":"x"}`,
		`{"action":"replace","target":"memory","old_text":"pnpm","new_text":"uses pnpm 9"}`,
	)
	sid := h.newSession("")
	h.prompt(sid, "one")
	start, end := memoryCall(t, h, sid)
	if start.Title != "memory batch (3 operations): memory" || end.Status != acp.StatusCompleted {
		t.Errorf("batch: title %q status %q", start.Title, end.Status)
	}
	raw, _ := os.ReadFile(filepath.Join(home, "memories", "MEMORY.md"))
	if string(raw) != "uses pnpm" {
		t.Errorf("MEMORY.md = %q", raw)
	}
	for _, want := range []string{"Missing required parameter", "'replace' needs old_text", "Invalid target 'notes'"} {
		h.prompt(sid, "again")
		reqs := fm.requests()
		if got := lastMessage(reqs[len(reqs)-1]).Content; !strings.Contains(got, want) || !strings.Contains(got, `"success":false`) {
			t.Errorf("result %q, want %q", got, want)
		}
	}
	// new_text stands for content, as in hermes.
	h.prompt(sid, "alias")
	if raw, _ := os.ReadFile(filepath.Join(home, "memories", "MEMORY.md")); string(raw) != "uses pnpm 9" {
		t.Errorf("MEMORY.md = %q after a replace with new_text", raw)
	}
}
