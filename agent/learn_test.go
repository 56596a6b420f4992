package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// learnRegistry registers "learn", a tool that reads a file from the disk
// and hands it to the session's LearnLint, as read_file does.
func learnRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	err := reg.Register(registry.Entry{
		Name: "learn", Toolset: "test",
		Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
		Handler: func(ctx context.Context, c *registry.Call) (string, error) {
			env := c.Env.(*agent.Env)
			path, _ := c.String("path")
			p, err := env.Workspace().Resolve(path)
			if err != nil {
				return errJSON(err.Error()), nil
			}
			b, err := env.Files().Read(ctx, p)
			if err != nil {
				return errJSON(err.Error()), nil
			}
			env.LearnLint(p, b)
			return `{"ok":true}`, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestLearnLintFeedsTheAgentsLinter checks that the files a session hands to
// LearnLint reach the linter the agent was given, Go files only, and that
// the work is done by the time the agent has closed.
func TestLearnLintFeedsTheAgentsLinter(t *testing.T) {
	t.Parallel()
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range 300 {
		fmt.Fprintf(&src, "\nfunc F%d() int { return %d }\n", i, i)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"big.go": src.String(), "data.json": `{"a": [1, 2]}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			call := func(id, path string) model.ToolCall {
				args, _ := json.Marshal(map[string]string{"path": path})
				return model.ToolCall{ID: id, Name: "learn", Arguments: string(args)}
			}
			return toolReply(call("l1", "big.go"), call("l2", "data.json")), nil
		}
		return textReply("done", emit), nil
	}}
	linter := &lint.Linter{}
	h := newHarness(t, fm, harnessOptions{reg: learnRegistry(t), opts: agent.Options{Linter: linter}})
	sid := h.newSession(dir)
	h.prompt(sid, "read them")
	if err := h.agent.Close(); err != nil {
		t.Fatal(err)
	}
	var want lint.Linter
	want.Learn("big.go", []byte(src.String()))
	if got := linter.Remembered(); got != want.Remembered() || got < 300 {
		t.Errorf("the agent's linter remembers %d declarations, want %d (those of big.go alone, at least 300)", got, want.Remembered())
	}
}
