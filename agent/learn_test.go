package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// learnTools is "learn", a tool that reads a file from the disk and hands
// it to the session's LearnLint, as read_file does.
func learnTools() []envTool {
	return []envTool{{
		entry: registry.Entry{
			Name: "learn", Toolset: "test", Kind: registry.KindRead, ReadOnly: true, PathArg: "path",
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
				env.LearnLint(p, b)
				return registry.OK(map[string]bool{"ok": true}), nil
			}
		},
	}}
}

// goSource returns a Go file of 300 one-line functions named tag0, tag1, …:
// big enough for the linter to learn.
func goSource(tag string) string {
	var b strings.Builder
	b.WriteString("package p\n")
	for i := range 300 {
		fmt.Fprintf(&b, "\nfunc %s%d() int { return %d }\n", tag, i, i)
	}
	return b.String()
}

// TestLearnLintFeedsTheAgentsLinter checks that the files a session hands to
// LearnLint reach the linter the agent was given, Go files only, and that
// the work is done by the time the agent has closed.
func TestLearnLintFeedsTheAgentsLinter(t *testing.T) {
	t.Parallel()
	src := goSource("F")
	dir := t.TempDir()
	for name, text := range map[string]string{"big.go": src, "data.json": `{"a": [1, 2]}`} {
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
	h := newHarness(t, fm, harnessOptions{bound: learnTools(), opts: agent.Options{Linter: linter}})
	sid := h.newSession(dir)
	h.prompt(sid, "read them")
	if err := h.agent.Close(); err != nil {
		t.Fatal(err)
	}
	var want lint.Linter
	want.Learn("big.go", []byte(src))
	if got := linter.Remembered(); got != want.Remembered() || got < 300 {
		t.Errorf("the agent's linter remembers %d declarations, want %d (those of big.go alone, at least 300)", got, want.Remembered())
	}
}

// TestPromptAttachmentsAreLearned checks that Go files the user attaches to
// a prompt, as resource links or as embedded text, reach the linter: the
// model often edits them without reading them first.
func TestPromptAttachmentsAreLearned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	linked, embedded := goSource("Linked"), goSource("Embedded")
	if err := os.WriteFile(filepath.Join(dir, "linked.go"), []byte(linked), 0o644); err != nil {
		t.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	linter := &lint.Linter{}
	h := newHarness(t, fm, harnessOptions{opts: agent.Options{Linter: linter}})
	sid := h.newSession(dir)
	res, err := h.editor.Prompt(h.ctx(), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
		acp.TextBlock("Fix these"),
		{ResourceLink: &acp.ResourceLink{URI: "file://" + filepath.Join(dir, "linked.go"), Name: "linked.go"}},
		{Resource: &acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file://" + filepath.Join(dir, "embedded.go"), Text: &embedded}}},
		{Resource: &acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "https://example.com/x.go", Text: &embedded}}},
	}})
	if err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt = %v, %v", res, err)
	}
	if err := h.agent.Close(); err != nil {
		t.Fatal(err)
	}
	var want lint.Linter
	want.Learn("linked.go", []byte(linked))
	want.Learn("embedded.go", []byte(embedded))
	if got := linter.Remembered(); got != want.Remembered() {
		t.Errorf("the agent's linter remembers %d declarations, want %d (both attached files)", got, want.Remembered())
	}
}
