package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// statusRegistry has tools whose results say "error" without failing, and
// tools that fail without saying "error".
func statusRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	entry := func(name string, r registry.Result) registry.Entry {
		return registry.Entry{
			Name: name, Toolset: "test", Kind: registry.KindSearch,
			Title: func(map[string]any) string { return "status: " + name },
			Handler: func(context.Context, *registry.Call) (registry.Result, error) {
				return r, nil
			},
		}
	}
	err := reg.RegisterAll(
		entry("list_dir", registry.OK(map[string]any{"files": []string{"error", "errors.log"}, "error_count": 0})),
		entry("say_error", registry.Text("Error: none — the word is only in the text", false)),
		entry("fail_plain", registry.Failed(map[string]string{"status": "refused"})),
		entry("fail_error", registry.Error("boom")),
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestStatusFollowsIsError: the editor's completed/failed status of a call
// is the tool's own verdict (Result.IsError), live and when the session is
// loaded again: a successful result that mentions "error" (a file named
// error) is completed, a failure that does not is failed.
func TestStatusFollowsIsError(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(
				model.ToolCall{ID: "c_list", Name: "list_dir", Arguments: `{}`},
				model.ToolCall{ID: "c_say", Name: "say_error", Arguments: `{}`},
				model.ToolCall{ID: "c_plain", Name: "fail_plain", Arguments: `{}`},
				model.ToolCall{ID: "c_err", Name: "fail_error", Arguments: `{}`},
			), nil
		}
		return textReply("done", emit), nil
	}}
	want := map[string]acp.ToolCallStatus{
		"c_list": acp.StatusCompleted, "c_say": acp.StatusCompleted,
		"c_plain": acp.StatusFailed, "c_err": acp.StatusFailed,
	}
	wantText := map[string]string{
		"c_plain": `❌ {"status":"refused"}`,
		"c_err":   "❌ boom",
	}
	check := func(h *harness, sid, when string) {
		t.Helper()
		ended := map[string]*acp.ToolCallUpdate{}
		titles := map[string]string{}
		for _, u := range h.editor.Updates(sid) {
			if tc := u.Update.ToolCall; tc != nil {
				titles[tc.ToolCallID] = tc.Title
				if tc.Kind != acp.KindSearch {
					t.Errorf("%s: %s shown as kind %q, want search", when, tc.ToolCallID, tc.Kind)
				}
			}
			if tu := u.Update.ToolCallUpdate; tu != nil && (tu.Status == acp.StatusCompleted || tu.Status == acp.StatusFailed) {
				ended[tu.ToolCallID] = tu
			}
		}
		for id, status := range want {
			tu := ended[id]
			if tu == nil {
				t.Errorf("%s: %s never ended", when, id)
				continue
			}
			var text string
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Text != nil {
					text += c.Content.Text.Text
				}
			}
			if tu.Status != status {
				t.Errorf("%s: %s ended %q (%q), want %q", when, id, tu.Status, text, status)
			}
			if w, ok := wantText[id]; ok && text != w {
				t.Errorf("%s: %s shows %q, want %q", when, id, text, w)
			}
			if status == acp.StatusCompleted && strings.HasPrefix(text, "❌") {
				t.Errorf("%s: completed %s shows %q", when, id, text)
			}
			if !strings.HasPrefix(titles[id], "status: ") {
				t.Errorf("%s: %s titled %q, want the tool's title", when, id, titles[id])
			}
		}
	}

	h := newHarness(t, fm, harnessOptions{reg: statusRegistry(t), home: home})
	sid := h.newSession(ws)
	h.prompt(sid, "run them")
	check(h, sid, "live")
	results := map[string]model.Message{}
	for _, m := range fm.requests()[1].Messages {
		if m.Role == model.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	for id, status := range want {
		if results[id].IsError != (status == acp.StatusFailed) {
			t.Errorf("tool message %s: IsError = %v, want %v", id, results[id].IsError, status == acp.StatusFailed)
		}
	}
	if got := results["c_list"].Content; !strings.Contains(got, `"error"`) {
		t.Fatalf("list_dir result %q does not name the file error: the test proves nothing", got)
	}
	h.agent.Close()

	// A restarted editor loads the session: the replay shows the stored verdicts.
	h2 := newHarness(t, fm, harnessOptions{reg: statusRegistry(t), home: home})
	var loaded acp.LoadSessionResponse
	if err := h2.editor.Call(h2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
		t.Fatal(err)
	}
	check(h2, sid, "replay")
}
