package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// scriptTool stands for execute_code: its handler makes the calls in
// "calls" through Env.CallTool, as a script's hermes_tools functions do,
// and returns what each one read.
func scriptTool() envTool {
	return envTool{
		entry: registry.Entry{Name: "run_script", Toolset: "test", Kind: registry.KindExecute,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"calls": map[string]any{"type": "array"}}}},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				calls, _ := c.Args["calls"].([]any)
				var got []string
				for _, v := range calls {
					m := v.(map[string]any)
					args, _ := json.Marshal(m["args"])
					out, err := env.CallTool(ctx, c.ID, m["name"].(string), args)
					if err != nil {
						return registry.Error(err.Error()), nil
					}
					got = append(got, out)
				}
				return registry.OK(map[string]any{"results": got}), nil
			}
		},
	}
}

// A script's write goes through the session's pipeline: the editor is
// asked with the diff, under the script's call; after reject the file is
// unchanged and the script reads the denial. Its calls show as their own
// tool calls with the parent's id in _meta.
func TestCallToolRunsScriptCallsThroughTheSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ answer, want string }{{"reject", "old\n"}, {"allow", "new\n"}} {
		t.Run(tc.answer, func(t *testing.T) {
			t.Parallel()
			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				if n == 0 {
					return toolReply(model.ToolCall{ID: "call_s", Name: "run_script",
						Arguments: `{"calls":[{"name":"write_file","args":{"path":"a.txt","content":"new\n"}}]}`}), nil
				}
				return textReply("done", emit), nil
			}}
			var mu sync.Mutex
			var asked []*acp.RequestPermissionRequest
			h := newHarness(t, fm, harnessOptions{bound: append(editTools(), scriptTool()),
				perm: func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
					mu.Lock()
					asked = append(asked, req)
					mu.Unlock()
					return acp.PermissionOutcome{OptionID: tc.answer}
				}})
			dir := t.TempDir()
			file := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sid := h.newSession(dir)
			if stop := h.prompt(sid, "go"); stop != acp.StopEndTurn {
				t.Fatalf("stop = %s", stop)
			}
			if len(asked) != 1 {
				t.Fatalf("permission requests = %d, want 1", len(asked))
			}
			p := asked[0].ToolCall
			if p.Title == nil || !strings.HasPrefix(*p.Title, "[py 1] Approve edit: ") || len(p.Content) == 0 || p.Content[0].Diff == nil ||
				p.Content[0].Diff.NewText != "new\n" {
				t.Errorf("permission request = %+v (title %q)", p, *p.Title)
			}
			if hm, _ := p.Meta["hermes"].(map[string]any); hm["parentToolCallId"] != "call_s" {
				t.Errorf("permission meta = %+v", p.Meta)
			}
			if got, _ := os.ReadFile(file); string(got) != tc.want {
				t.Errorf("a.txt = %q, want %q", got, tc.want)
			}
			reqs := fm.requests()
			res := lastMessage(reqs[len(reqs)-1]).Content
			if denied := strings.Contains(res, "edit denied"); denied != (tc.answer == "reject") {
				t.Errorf("the script read %s", res)
			}
			var child bool
			for _, u := range h.editor.Updates(sid) {
				if call := u.Update.ToolCall; call != nil && call.ToolCallID == "call_s.py1" {
					hm, _ := call.Meta["hermes"].(map[string]any)
					child = hm["parentToolCallId"] == "call_s"
				}
			}
			if !child && tc.answer == "allow" { // a rejected edit is shown by its permission request only
				t.Errorf("the script's call was not shown as a tool call under call_s: %v", h.kinds(sid))
			}
		})
	}
}
