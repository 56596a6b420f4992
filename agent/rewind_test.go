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
	"github.com/hermes-acp/hermes-acp/checkpoint"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// rewindRegistry has "touch" (it can change files: it writes its content
// to its path, "" removes the file) and "look" (it changes nothing).
func rewindRegistry(t *testing.T, cwd string) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}}
	for _, e := range []registry.Entry{
		{Name: "touch", Toolset: "test", Description: "Write a file.", Schema: schema, ChangesFiles: true,
			Handler: func(_ context.Context, c *registry.Call) (registry.Result, error) {
				p, _ := c.String("path")
				content, _ := c.String("content")
				abs := filepath.Join(cwd, p)
				if content == "" {
					return registry.OK("removed"), os.Remove(abs)
				}
				return registry.OK("written"), os.WriteFile(abs, []byte(content), 0o644)
			}},
		{Name: "look", Toolset: "test", Description: "Change nothing.", Schema: schema, ReadOnly: true,
			Handler: func(context.Context, *registry.Call) (registry.Result, error) { return registry.OK("ok"), nil }},
	} {
		if err := reg.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// scriptedTools answers each prompt by running the tool calls of its
// entry in turns (in order of the prompts that reach the model), then
// "done".
func scriptedTools(turns [][]model.ToolCall) *fakeModel {
	var mu sync.Mutex
	next := 0
	return &fakeModel{reply: func(_ context.Context, _ int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if lastMessage(req).Role == model.RoleTool {
			return textReply("done", emit), nil
		}
		mu.Lock()
		defer mu.Unlock()
		calls := turns[next]
		next++
		return toolReply(calls...), nil
	}}
}

func call(id, name, path, content string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return model.ToolCall{ID: id, Name: name, Arguments: string(args)}
}

func TestRewindUndoesTheTurnAndKeepsUserEdits(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	for name, content := range map[string]string{"keep.txt": "original\n", "gone.txt": "will be removed\n", "user.txt": "v1\n"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fm := scriptedTools([][]model.ToolCall{
		{call("c1", "look", "keep.txt", "")},
		{call("c2", "touch", "keep.txt", "changed\n"), call("c3", "touch", "new.txt", "new\n"), call("c4", "touch", "gone.txt", ""), call("c5", "touch", "user.txt", "agent\n")},
	})
	var mu sync.Mutex
	answer := "rewind_cancel"
	var asked []*acp.RequestPermissionRequest
	home := t.TempDir()
	h := newHarness(t, fm, harnessOptions{
		home: home,
		reg:  rewindRegistry(t, cwd),
		opts: agent.Options{Checkpoints: checkpoint.New(checkpoint.Options{Dir: filepath.Join(home, "checkpoints")})},
		perm: func(_ context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req)
			return acp.PermissionOutcome{OptionID: answer}
		},
	})
	sid := h.newSession(cwd)
	text := func(f func()) string {
		before := len(h.editor.Text(sid))
		f()
		return h.editor.Text(sid)[before:]
	}

	// A turn whose tools change nothing records nothing.
	h.prompt(sid, "only look")
	if got := text(func() { h.prompt(sid, "/rewind") }); !strings.Contains(got, "No checkpoints yet") {
		t.Errorf("/rewind after a read-only turn: %q", got)
	}
	h.prompt(sid, "change things")
	if err := os.WriteFile(filepath.Join(cwd, "user.txt"), []byte("agent\nuser edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := text(func() { h.prompt(sid, "/rewind") })
	for _, want := range []string{"**Turn 1**", `"change things"`, "modified keep.txt", "added new.txt", "deleted gone.txt", "modified user.txt"} {
		if !strings.Contains(got, want) {
			t.Errorf("/rewind = %q, want %q in it", got, want)
		}
	}

	// Declined: nothing changes.
	h.prompt(sid, "/undo")
	if b, _ := os.ReadFile(filepath.Join(cwd, "keep.txt")); string(b) != "changed\n" {
		t.Errorf("keep.txt after a declined undo = %q", b)
	}
	// Allowed: the turn is undone; the user's edit is a conflict, kept.
	mu.Lock()
	answer = "rewind"
	mu.Unlock()
	got = text(func() { h.prompt(sid, "/undo") })
	if !strings.HasPrefix(got, "Rewound to before turn 1") || !strings.Contains(got, "Left alone") {
		t.Errorf("/undo = %q", got)
	}
	for name, want := range map[string]string{"keep.txt": "original\n", "gone.txt": "will be removed\n", "user.txt": "agent\nuser edit\n"} {
		if b, err := os.ReadFile(filepath.Join(cwd, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt: %v, want it removed", err)
	}
	mu.Lock()
	if len(asked) != 2 {
		t.Fatalf("%d permission requests, want 2 (one per /undo)", len(asked))
	}
	last := asked[1]
	mu.Unlock()
	listing := last.ToolCall.Content[0].Content.Text.Text
	if !strings.Contains(listing, "user.txt") || !strings.Contains(listing, "CONFLICT") {
		t.Errorf("the permission request does not show user.txt as a conflict: %q", listing)
	}
	var ids []string
	for _, o := range last.Options {
		ids = append(ids, o.OptionID)
	}
	if strings.Join(ids, ",") != "rewind,rewind_drop,rewind_overwrite,rewind_cancel" {
		t.Errorf("options %v", ids)
	}
	// The model is told, and the turn leaves the list.
	if got := text(func() { h.prompt(sid, "/undo") }); !strings.Contains(got, "Nothing to undo") {
		t.Errorf("second /undo = %q", got)
	}
}

func TestRewindCapability(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, on := range []bool{false, true} {
		o := agent.Options{}
		if on {
			o.Checkpoints = checkpoint.New(checkpoint.Options{Dir: filepath.Join(home, "checkpoints")})
		}
		h := newHarness(t, &fakeModel{}, harnessOptions{opts: o, noModel: true})
		res, err := h.editor.Init(h.ctx())
		if err != nil {
			t.Fatal(err)
		}
		hermes, _ := res.AgentCapabilities.Meta["hermes"].(map[string]any)
		if got := hermes["rewind"] == true; got != on {
			t.Errorf("checkpoints %v: _meta.hermes = %v", on, hermes)
		}
	}
}
