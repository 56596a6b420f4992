package main_test

// The official ACP TypeScript SDK plays an editor while a hostile scripted
// model makes the agent do unbounded work (conformance/limits.mjs): a patch
// whose old_string is far over the fuzzy-match limits, a patch under them
// that would run for seconds and is cancelled, and a write_file of a TOML
// file nested 24 000 deep that is cancelled. The script checks the SDK's
// view (and that each cancel is answered within 1 s, which it measures and
// prints); this test checks the wire.

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKLimits(t *testing.T) {
	r := sdkRun{
		script:     filepath.Join("conformance", "limits.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 120*time.Second)

	conns := r.transcriptOf(t)
	for _, name := range []string{"over-limits", "fuzzy-cancel", "toml-cancel"} {
		lines := conns[name]
		if len(lines) == 0 {
			t.Errorf("%s: no connection in the transcript", name)
			continue
		}
		stops := promptStops(lines)
		cancels := 0
		for _, l := range lines {
			if l.From == "client" && l.msg.Method == "session/cancel" {
				cancels++
			}
		}
		switch name {
		case "over-limits":
			if !equalStrings(stops, []string{"end_turn"}) || cancels != 0 {
				t.Errorf("%s: prompts ended %v with %d cancels, want [end_turn] and none", name, stops, cancels)
			}
			var failed string
			for _, p := range agentNotifications(lines, "session/update") {
				if bytes.Contains(p, []byte(`"status":"failed"`)) {
					failed = string(p)
				}
			}
			if !strings.Contains(failed, "limited to old_string of 400 lines") {
				t.Errorf("%s: the failed patch does not tell the limit: %s", name, truncate(failed, 400))
			}
		default:
			if !equalStrings(stops, []string{"cancelled", "end_turn"}) || cancels != 1 {
				t.Errorf("%s: prompts ended %v with %d cancels, want [cancelled end_turn] and 1", name, stops, cancels)
			}
		}
	}
}

// promptStops returns the stopReason of each session/prompt response, in
// order.
func promptStops(lines []wireLine) []string {
	prompts := map[string]bool{}
	var stops []string
	for _, l := range lines {
		switch {
		case l.From == "client" && l.msg.Method == "session/prompt":
			prompts[string(l.msg.ID)] = true
		case l.From == "agent" && l.msg.isResponse() && prompts[string(l.msg.ID)]:
			var res struct {
				StopReason string `json:"stopReason"`
			}
			_ = json.Unmarshal(l.msg.Result, &res)
			stops = append(stops, res.StopReason)
		}
	}
	return stops
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}
