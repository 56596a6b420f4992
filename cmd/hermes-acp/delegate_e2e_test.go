package main_test

// The official ACP TypeScript SDK plays an editor while the scripted model
// delegates a batch of three tasks (conformance/delegate.mjs): the children
// run concurrently, their tool calls interleave under the delegate_task
// call, their edits ask the same session for approval, their summaries
// reach the session's model, and a cancel mid-batch ends all three. The
// script checks the SDK's view; this test checks the wire.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKDelegate(t *testing.T) {
	t.Parallel()
	r := sdkRun{
		script:     filepath.Join("conformance", "delegate.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 120*time.Second)

	conns := r.transcriptOf(t) // every agent line validates against the ACP schema
	for name, want := range map[string][]string{"batch": {"end_turn"}, "cancel": {"cancelled", "end_turn"}} {
		lines := conns[name]
		if len(lines) == 0 {
			t.Errorf("%s: no connection in the transcript", name)
			continue
		}
		if stops := promptStops(lines); !equalStrings(stops, want) {
			t.Errorf("%s: prompts ended %v, want %v", name, stops, want)
		}
		children := map[string]string{} // child tool call id → title
		for _, p := range agentNotifications(lines, "session/update") {
			var n struct {
				Update struct {
					Kind  string `json:"sessionUpdate"`
					ID    string `json:"toolCallId"`
					Title string `json:"title"`
					Meta  struct {
						Hermes struct {
							Parent string `json:"parentToolCallId"`
						} `json:"hermes"`
					} `json:"_meta"`
				} `json:"update"`
			}
			if err := json.Unmarshal(p, &n); err != nil {
				t.Fatal(err)
			}
			if n.Update.Kind == "tool_call" && n.Update.Meta.Hermes.Parent == "call_delegate" {
				children[n.Update.ID] = n.Update.Title
			}
		}
		switch name {
		case "batch":
			if len(children) != 3 {
				t.Errorf("batch: child tool calls %v, want three under call_delegate", children)
			}
			for id, title := range children {
				if !strings.HasPrefix(id, "call_delegate.") || !strings.Contains(title, "] write: ") {
					t.Errorf("batch: child call %s titled %q", id, title)
				}
			}
		case "cancel":
			if len(children) != 0 {
				t.Errorf("cancel: children ran tools after the cancel: %v", children)
			}
		}
	}
}
