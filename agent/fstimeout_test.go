package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// readTools returns editTools plus a "read" tool that reads a file
// through the session's file access (the editor when it can read).
func readTools() []envTool {
	return append(editTools(), envTool{
		entry: registry.Entry{
			Name: "read", Toolset: "test", Kind: registry.KindRead, ReadOnly: true, PathArg: "path",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
		},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				path, _ := c.String("path")
				p, err := env.Workspace().Resolve(path)
				if err != nil {
					return registry.Error(err.Error()), nil
				}
				b, err := env.Files().Read(ctx, p)
				if err != nil {
					return registry.Error(err.Error()), nil
				}
				return registry.Text(string(b), false), nil
			}
		},
	})
}

// TestEditorFSTimeout: an editor that never answers fs/read_text_file or
// fs/write_text_file does not hang the turn; the model is told the editor
// did not answer, and nothing is read from a disk copy instead.
func TestEditorFSTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, tool, args string
	}{
		{"fs/read_text_file", "read", `{"path":"a.txt"}`},
		{"fs/write_text_file", "write_file", `{"path":"a.txt","content":"new\n"}`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				if n == 0 {
					return toolReply(model.ToolCall{ID: "c1", Name: tc.tool, Arguments: tc.args}), nil
				}
				return textReply("ok", emit), nil
			}}
			h := newHarness(t, fm, harnessOptions{
				bound: readTools(),
				caps:  acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
				opts:  agent.Options{FSTimeout: 300 * time.Millisecond, ApprovalsOff: true},
				stall: func(m string) bool { return m == tc.method },
			})
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sid := h.newSession(dir)
			if stop := h.prompt(sid, "go"); stop != acp.StopEndTurn {
				t.Fatalf("stop = %s, want end_turn", stop)
			}
			reqs := fm.requests()
			if len(reqs) != 2 {
				t.Fatalf("model requests = %d, want 2", len(reqs))
			}
			got := lastMessage(reqs[1]).Content
			if !strings.Contains(got, "did not answer "+tc.method) || !strings.Contains(got, "fs.timeout") || strings.Contains(got, "on disk") {
				t.Errorf("tool result = %s, want it to say the editor did not answer %s", got, tc.method)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "on disk\n" {
				t.Errorf("file on disk = %q, want it untouched", b)
			}
		})
	}
}
