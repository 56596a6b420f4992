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
	"github.com/hermes-acp/hermes-acp/registry"
)

// refusalTools are readTools plus "term", which runs its argv in an editor
// terminal, and "cmd", which asks the command approval for a dangerous
// command.
func refusalTools() []envTool {
	return append(readTools(),
		envTool{
			entry: registry.Entry{
				Name: "term", Toolset: "test", Kind: registry.KindExecute,
				Schema: map[string]any{"type": "object", "properties": map[string]any{"argv": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}},
			},
			handler: func(env *agent.Env) registry.Handler {
				return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
					var argv []string
					for _, a := range c.Args["argv"].([]any) {
						argv = append(argv, a.(string))
					}
					res, err := env.RunInTerminal(ctx, c.ID, agent.TerminalRun{Argv: argv})
					if err != nil {
						return registry.Error(err.Error()), nil
					}
					return registry.Text(res.Output, false), nil
				}
			},
		},
		envTool{
			entry: registry.Entry{
				Name: "cmd", Toolset: "test", Kind: registry.KindExecute,
				Schema: map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}},
			},
			handler: func(env *agent.Env) registry.Handler {
				return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
					cmd, _ := c.String("command")
					if d := env.ApproveCommand(ctx, c.ID, agent.CommandRequest{Command: cmd}); !d.Allowed {
						return registry.Error(d.Message), nil
					}
					return registry.Text("ran", false), nil
				}
			},
		})
}

// TestClientErrorsKeepTheirReason: when the editor answers fs/*,
// terminal/* or a permission request with a JSON-RPC error, the model's
// tool result and the chat's failed tool call carry the editor's message
// and data (not a bare "Internal error (code -32603)"), and a refused read
// is not answered from the disk.
func TestClientErrorsKeepTheirReason(t *testing.T) {
	t.Parallel()
	const reason = "blocked by the workspace trust policy"
	refusal := &acp.Error{Code: acp.CodeInternalError, Message: "Internal error", Data: map[string]any{"details": reason}}
	for _, tc := range []struct {
		method, tool, args string
	}{
		{"fs/read_text_file", "read", `{"path":"a.txt"}`},
		{"fs/write_text_file", "write_file", `{"path":"a.txt","content":"new\n"}`},
		{"terminal/create", "term", `{"argv":["echo","hi"]}`},
		{"session/request_permission", "write_file", `{"path":"a.txt","content":"new\n"}`},
		{"session/request_permission", "cmd", `{"command":"rm -rf build"}`},
	} {
		t.Run(tc.method+" "+tc.tool, func(t *testing.T) {
			t.Parallel()
			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				if n == 0 {
					return toolReply(model.ToolCall{ID: "c1", Name: tc.tool, Arguments: tc.args}), nil
				}
				return textReply("ok", emit), nil
			}}
			opts := agent.Options{}
			if tc.method != "session/request_permission" {
				opts.ApprovalsOff = true
			}
			h := newHarness(t, fm, harnessOptions{
				bound: refusalTools(),
				caps:  acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
				opts:  opts,
				refuse: func(m string) *acp.Error {
					if m == tc.method {
						return refusal
					}
					return nil
				},
			})
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sid := h.newSession(dir)
			if stop := h.prompt(sid, "go"); stop != acp.StopEndTurn {
				t.Fatalf("stop = %s, want end_turn", stop)
			}
			if got := h.editor.Refused(); len(got) != 1 || got[0] != tc.method {
				t.Fatalf("the editor refused %v, want one %s", got, tc.method)
			}
			reqs := fm.requests()
			if len(reqs) != 2 {
				t.Fatalf("model requests = %d, want 2", len(reqs))
			}
			got := lastMessage(reqs[1]).Content
			if !strings.Contains(got, "Internal error") || !strings.Contains(got, reason) {
				t.Errorf("tool result = %s, want the editor's message and data (%q)", got, reason)
			}
			if strings.Contains(got, "on disk") {
				t.Errorf("tool result = %s: the refused read was answered from the disk", got)
			}
			var shown string
			for _, u := range h.editor.Updates(sid) {
				if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status == acp.StatusFailed {
					for _, c := range tu.Content {
						if c.Content != nil && c.Content.Text != nil {
							shown += c.Content.Text.Text
						}
					}
				}
			}
			if !strings.Contains(shown, reason) {
				t.Errorf("the chat's failed tool call shows %q, want the editor's reason %q", shown, reason)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "on disk\n" {
				t.Errorf("a.txt = %q, want it untouched", b)
			}
		})
	}
}
