package main_test

// The official ACP TypeScript SDK plays an editor while the scripted model
// asks questions with clarify (conformance/clarify.mjs) and works in plan
// mode (conformance/plan_mode.mjs), issue #28 items 4 and 5. The scripts
// check the SDK's view; these tests check the wire: every agent message
// validates against the ACP schema the SDK bundles, the forms are
// elicitation/create requests (a cancelled one withdrawn with
// $/cancel_request), and the plan is approved with
// session/request_permission.

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

func TestTypeScriptSDKClarify(t *testing.T) {
	t.Parallel()
	r := sdkRun{
		script:     filepath.Join("conformance", "clarify.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 90*time.Second)

	conns := r.transcriptOf(t) // every agent line validates against the ACP schema
	forms := conns["forms"]
	if stops := promptStops(forms); !equalStrings(stops, []string{"end_turn", "end_turn", "cancelled", "end_turn"}) {
		t.Errorf("forms: prompts ended %v, want end_turn, end_turn, cancelled, end_turn", stops)
	}
	var ids []string
	for _, l := range forms {
		if l.From == "agent" && l.msg.Method == "elicitation/create" && len(l.msg.ID) > 0 {
			ids = append(ids, string(l.msg.ID))
		}
	}
	if len(ids) != 3 {
		t.Fatalf("forms: %d elicitation/create requests, want 3", len(ids))
	}
	withdrawn := false
	for _, p := range agentNotifications(forms, "$/cancel_request") {
		var c struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if err := json.Unmarshal(p, &c); err != nil {
			t.Fatal(err)
		}
		withdrawn = withdrawn || string(c.RequestID) == ids[2]
	}
	if !withdrawn {
		t.Errorf("forms: no $/cancel_request for the third form (id %s) after session/cancel", ids[2])
	}
	if n := len(agentRequests(forms, "session/request_permission")); n != 0 {
		t.Errorf("forms: %d permission requests, want none", n)
	}
	plain := conns["plain"]
	if len(plain) == 0 {
		t.Fatal("plain: no connection in the transcript")
	}
	if n := len(agentRequests(plain, "elicitation/create")); n != 0 {
		t.Errorf("plain: %d elicitation/create to an editor without forms, want none", n)
	}
}

func TestTypeScriptSDKPlanMode(t *testing.T) {
	t.Parallel()
	r := sdkRun{
		script:     filepath.Join("conformance", "plan_mode.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 90*time.Second)

	lines := r.transcriptOf(t)["plan"] // every agent line validates against the ACP schema
	if stops := promptStops(lines); !equalStrings(stops, []string{"end_turn"}) {
		t.Errorf("prompts ended %v, want end_turn", stops)
	}
	perms := agentRequests(lines, "session/request_permission")
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1 (the plan)", len(perms))
	}
	var p struct {
		ToolCall struct {
			Kind string `json:"kind"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
		} `json:"options"`
	}
	if err := json.Unmarshal(perms[0], &p); err != nil {
		t.Fatal(err)
	}
	if p.ToolCall.Kind != "switch_mode" || len(p.Options) != 4 {
		t.Errorf("plan approval = %s, want a switch_mode tool call with four options", perms[0])
	}
	switched := false
	for _, n := range agentNotifications(lines, "session/update") {
		var u struct {
			Update struct {
				Kind string `json:"sessionUpdate"`
				Mode string `json:"currentModeId"`
			} `json:"update"`
		}
		if err := json.Unmarshal(n, &u); err != nil {
			t.Fatal(err)
		}
		switched = switched || u.Update.Kind == "current_mode_update" && u.Update.Mode == "accept_edits"
	}
	if !switched {
		t.Error("no current_mode_update to accept_edits after the approval")
	}
}
