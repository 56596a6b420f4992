package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSignatureCanonical(t *testing.T) {
	t.Parallel()
	a := map[string]any{"z": []any{map[string]any{"β": "☤", "a": 1}}, "a": map[string]any{"y": 2, "x": "secret-token-value"}}
	b := map[string]any{"a": map[string]any{"x": "secret-token-value", "y": 2}, "z": []any{map[string]any{"a": 1, "β": "☤"}}}
	sa, sb := signatureOf("web_search", a), signatureOf("web_search", b)
	if sa != sb {
		t.Errorf("signatureOf differs for reordered args: %v vs %v", sa, sb)
	}
	pub := sa.public()
	if len(pub.ArgsHash) != 64 || pub.ToolName != "web_search" {
		t.Errorf("signature %+v: want the tool name and a hex SHA-256", pub)
	}
	meta, _ := json.Marshal(pub)
	if strings.Contains(string(meta), "secret-token-value") || strings.Contains(string(meta), "☤") {
		t.Errorf("signature metadata %s exposes raw arguments", meta)
	}
	if signatureOf("web_search", nil) != signatureOf("web_search", map[string]any{}) {
		t.Errorf("nil and empty args have different signatures")
	}
	if signatureOf("web_search", a) == signatureOf("web_extract", a) {
		t.Errorf("different tools share a signature")
	}
}

func TestClassifyFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool, result string
		want         bool
	}{
		{"write_file", `{"bytes_written": 10, "lint": {"status": "error", "output": "SyntaxError: invalid syntax"}}`, false},
		{"write_file", `{"bytes_written": 0}`, false},
		{"write_file", `{"error": "Permission denied"}`, true},
		{"write_file", `{"error": "x", "bytes_written": 3}`, true},
		{"patch", `{"success": true, "diff": "...", "lint": {"status": "error"}}`, false},
		{"patch", `{"success": false, "error": "Could not find a match"}`, true},
		{"patch", `{"applied": true, "error": "validation failed"}`, false},
		{"terminal", `{"output": "error: everything failed", "exit_code": 0}`, false},
		{"terminal", `{"output": "1 failed", "exit_code": 1}`, true},
		{"terminal", `{"output": "", "exit_code": null}`, false},
		{"terminal", `not json`, false},
		{"read_file", `{"error": "File not found"}`, true},
		{"read_file", `{"content": "1|\"ERROR\": escaped quotes do not count"}`, false},
		{"read_file", `{"status": "ERROR"}`, true},
		{"search_files", `{"status": "FAILED"}`, true},
		{"web_search", `Error executing tool`, true},
		{"web_search", `error: lower case`, false},
		{"web_search", `{"results": []}`, false},
		{"web_search", `{"text": "` + strings.Repeat("x", 600) + `", "error": "late"}`, false},
		{"web_search", strings.Repeat("é", 499) + `"error"`, false},
		{"web_search", strings.Repeat("é", 490) + `"error"`, true},
	} {
		if got := ClassifyFailure(tc.tool, tc.result); got != tc.want {
			t.Errorf("ClassifyFailure(%q, %.60q) = %v, want %v", tc.tool, tc.result, got, tc.want)
		}
	}
}

func TestGuardrailsDefaultsWarnOnly(t *testing.T) {
	t.Parallel()
	g := newGuardrails(GuardrailConfig{})
	sig := signatureOf("web_search", map[string]any{"query": "same"})
	var actions []string
	for range 5 {
		if d := g.before(sig); d.Action != ActionAllow {
			t.Fatalf("before = %s, want allow without hard stop", d.Action)
		}
		d := g.after(sig, `{"error":"boom"}`, true)
		actions = append(actions, d.Action+":"+d.Code)
	}
	want := []string{"allow:allow", "warn:repeated_exact_failure_warning", "warn:repeated_exact_failure_warning",
		"warn:repeated_exact_failure_warning", "warn:repeated_exact_failure_warning"}
	if diff := cmp.Diff(want, actions); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if d, halted := g.haltDecision(); halted {
		t.Errorf("haltDecision = %+v, want none without hard stop", d)
	}
}

func TestGuardrailsHardStop(t *testing.T) {
	t.Parallel()
	t.Run("blocks the 6th identical failure", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true})
		sig := signatureOf("web_search", map[string]any{"query": "same"})
		for i := range 5 {
			if d := g.before(sig); d.Action != ActionAllow {
				t.Fatalf("call %d: before = %s, want allow", i+1, d.Action)
			}
			g.after(sig, `{"error":"boom"}`, true)
		}
		d := g.before(sig)
		if d.Action != ActionBlock || d.Code != "repeated_exact_failure_block" || d.Count != 5 {
			t.Fatalf("6th before = %+v, want block repeated_exact_failure_block count 5", d)
		}
		if h, ok := g.haltDecision(); !ok || h.Code != d.Code {
			t.Errorf("haltDecision = %+v %v, want the block", h, ok)
		}
	})
	t.Run("custom thresholds", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true, ExactFailureWarnAfter: 2, ExactFailureBlockAfter: 2, SameToolFailureHaltAfter: 99})
		sig := signatureOf("web_search", map[string]any{"query": "same"})
		if d := g.after(sig, `{"error":"boom"}`, true); d.Action != ActionAllow {
			t.Fatalf("first failure = %s, want allow", d.Action)
		}
		if d := g.after(sig, `{"error":"boom"}`, true); d.Action != ActionWarn {
			t.Fatalf("second failure = %s, want warn", d.Action)
		}
		if d := g.before(sig); d.Action != ActionBlock || d.Count != 2 {
			t.Fatalf("third before = %+v, want block count 2", d)
		}
	})
	t.Run("same tool failing eight ways halts", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true})
		var last GuardrailDecision
		for i := range 8 {
			last = g.after(signatureOf("send_message", map[string]any{"to": i}), `{"error":"no route"}`, true)
		}
		if last.Action != ActionHalt || last.Code != "same_tool_failure_halt" || last.Count != 8 {
			t.Fatalf("8th failure = %+v, want halt same_tool_failure_halt count 8", last)
		}
		if _, ok := g.haltDecision(); !ok {
			t.Errorf("haltDecision missing after a halt")
		}
	})
	t.Run("idempotent no progress blocks", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true, NoProgressWarnAfter: 2, NoProgressBlockAfter: 2})
		sig := signatureOf("read_file", map[string]any{"path": "a"})
		g.after(sig, `{"content":"same"}`, false)
		if d := g.after(sig, `{ "content" : "same" }`, false); d.Code != "idempotent_no_progress_warning" {
			t.Fatalf("second identical read = %+v, want no-progress warning (JSON compared canonically)", d)
		}
		if d := g.before(sig); d.Action != ActionBlock || d.Code != "idempotent_no_progress_block" {
			t.Fatalf("third before = %+v, want idempotent_no_progress_block", d)
		}
	})
}

func TestGuardrailsCounting(t *testing.T) {
	t.Parallel()
	t.Run("success resets", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{})
		sig := signatureOf("web_search", map[string]any{"query": "q"})
		g.after(sig, `{"error":"x"}`, true)
		g.after(sig, `{"results":[1]}`, false)
		if d := g.after(sig, `{"error":"x"}`, true); d.Action != ActionAllow {
			t.Errorf("failure after a success = %+v, want allow (counter reset)", d)
		}
	})
	t.Run("same tool different args warns on the third", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{})
		var d GuardrailDecision
		for i := range 3 {
			d = g.after(signatureOf("search_files", map[string]any{"pattern": i}), `{"error":"x"}`, true)
		}
		if d.Code != "same_tool_failure_warning" || !strings.HasPrefix(d.Message, "search_files has failed 3 times this turn.") {
			t.Errorf("third failure = %+v, want same_tool_failure_warning", d)
		}
		g2 := newGuardrails(GuardrailConfig{})
		for i := range 3 {
			d = g2.after(signatureOf("terminal", map[string]any{"command": i}), `{"exit_code":1}`, true)
		}
		if !strings.Contains(d.Message, "`pwd && ls -la`") {
			t.Errorf("terminal hint = %q, want the terminal-specific diagnostic", d.Message)
		}
	})
	t.Run("idempotent identical result warns on the second", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{})
		sig := signatureOf("read_file", map[string]any{"path": "a"})
		if d := g.after(sig, `{"content":"x"}`, false); d.Action != ActionAllow {
			t.Fatalf("first read = %+v, want allow", d)
		}
		d := g.after(sig, `{"content":"x"}`, false)
		if d.Action != ActionWarn || d.Code != "idempotent_no_progress_warning" || d.Count != 2 {
			t.Fatalf("second read = %+v, want warn count 2", d)
		}
		if d := g.after(sig, `{"content":"changed"}`, false); d.Action != ActionAllow {
			t.Errorf("changed result = %+v, want allow (streak reset)", d)
		}
	})
	t.Run("mutating and unknown tools never count as no progress", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true, NoProgressWarnAfter: 2, NoProgressBlockAfter: 2})
		for range 3 {
			for _, name := range []string{"write_file", "custom_tool", "terminal"} {
				sig := signatureOf(name, map[string]any{"x": 1})
				if d := g.before(sig); d.Action != ActionAllow {
					t.Fatalf("%s before = %+v, want allow", name, d)
				}
				if d := g.after(sig, "ok", false); d.Action != ActionAllow {
					t.Fatalf("%s after = %+v, want allow", name, d)
				}
			}
		}
	})
	t.Run("warnings off", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{WarningsOff: true})
		sig := signatureOf("web_search", nil)
		for range 4 {
			if d := g.after(sig, `{"error":"x"}`, true); d.Action != ActionAllow {
				t.Fatalf("after = %+v, want allow with warnings off", d)
			}
		}
	})
}

func TestGuardrailTexts(t *testing.T) {
	t.Parallel()
	sig := Signature{ToolName: "web_search", ArgsHash: "abc"}
	d := GuardrailDecision{Action: ActionWarn, Code: "repeated_exact_failure_warning", ToolName: "web_search", Count: 2,
		Message: decisionMessage("repeated_exact_failure_warning", "web_search", 2), Signature: &sig}
	got := appendGuidance(`{"error":"boom"}`, d)
	want := `{"error":"boom"}` + "\n\n[Tool loop warning: repeated_exact_failure_warning; count=2; " +
		"web_search has failed 2 times with identical arguments. This looks like a loop; " +
		"inspect the error and change strategy instead of retrying it unchanged.]"
	if got != want {
		t.Errorf("appendGuidance =\n%q\nwant\n%q", got, want)
	}
	d.Action = ActionHalt
	if got := appendGuidance("r", d); !strings.HasPrefix(got, "r\n\n[Tool loop hard stop: ") {
		t.Errorf("halt guidance = %q, want the hard-stop label", got)
	}
	d.Action = ActionAllow
	if got := appendGuidance("r", d); got != "r" {
		t.Errorf("allow guidance = %q, want unchanged", got)
	}

	block := GuardrailDecision{Action: ActionBlock, Code: "repeated_exact_failure_block", ToolName: "web_search", Count: 5,
		Message: decisionMessage("repeated_exact_failure_block", "web_search", 5), Signature: &sig}
	var parsed map[string]any
	if err := json.Unmarshal([]byte(blockedResult(block)), &parsed); err != nil {
		t.Fatalf("blockedResult is not JSON: %v", err)
	}
	wantParsed := map[string]any{
		"error": "Blocked web_search: the same tool call failed 5 times with identical arguments. Stop retrying it unchanged; change strategy or explain the blocker.",
		"guardrail": map[string]any{
			"action": "block", "code": "repeated_exact_failure_block", "count": 5.0, "tool_name": "web_search",
			"message":   "Blocked web_search: the same tool call failed 5 times with identical arguments. Stop retrying it unchanged; change strategy or explain the blocker.",
			"signature": map[string]any{"tool_name": "web_search", "args_hash": "abc"},
		},
	}
	if diff := cmp.Diff(wantParsed, parsed); diff != "" {
		t.Errorf("blockedResult (-want +got):\n%s", diff)
	}
}

// TestGuardrailsThroughPipeline checks what the model sees end to end.
func TestGuardrailsThroughPipeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	failing := func(name string, runs *int) Entry {
		return Entry{Name: name, Toolset: "t", Handler: func(context.Context, *Call) (string, error) {
			*runs++
			return `{"error":"boom"}`, nil
		}}
	}
	t.Run("default warns on the second identical failure and never blocks", func(t *testing.T) {
		t.Parallel()
		var runs int
		p := newTestPipeline(t, PipelineOptions{}, failing("web_search", &runs))
		turn := p.NewTurn()
		var outs []Outcome
		for range 7 {
			outs = append(outs, turn.Run(ctx, []*Call{{ID: "x", Name: "web_search", RawArgs: `{"query":"same"}`}}, RunOptions{})...)
		}
		if runs != 7 {
			t.Errorf("handler ran %d times, want 7 (warn-only)", runs)
		}
		if strings.Contains(outs[0].Content, "Tool loop warning") {
			t.Errorf("first failure carries a warning: %q", outs[0].Content)
		}
		if !strings.Contains(outs[1].Content, "\n\n[Tool loop warning: repeated_exact_failure_warning; count=2;") {
			t.Errorf("second failure = %q, want the loop warning", outs[1].Content)
		}
		if _, halted := turn.Halted(); halted {
			t.Errorf("turn halted without hard stop")
		}
	})
	t.Run("hard stop blocks the sixth identical failure before execution", func(t *testing.T) {
		t.Parallel()
		var runs int
		p := newTestPipeline(t, PipelineOptions{Guardrails: GuardrailConfig{HardStop: true}}, failing("web_search", &runs))
		turn := p.NewTurn()
		var last Outcome
		for range 6 {
			last = turn.Run(ctx, []*Call{{ID: "x", Name: "web_search", RawArgs: `{"query":"same"}`}}, RunOptions{})[0]
		}
		if runs != 5 {
			t.Errorf("handler ran %d times, want 5", runs)
		}
		if !last.Blocked || !strings.Contains(last.Content, `"guardrail":{"action":"block","code":"repeated_exact_failure_block"`) {
			t.Errorf("sixth outcome = %+v, want a guardrail block", last)
		}
		if d, halted := turn.Halted(); !halted || d.Code != "repeated_exact_failure_block" {
			t.Errorf("Halted = %+v %v, want the block", d, halted)
		}
		if _, halted := p.NewTurn().Halted(); halted {
			t.Errorf("a new turn starts halted")
		}
	})
	t.Run("lint errors on a landed write are not failures", func(t *testing.T) {
		t.Parallel()
		p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "write_file", Toolset: "file", Handler: func(context.Context, *Call) (string, error) {
			return `{"bytes_written": 4, "lint": {"status": "error", "output": "SyntaxError"}}`, nil
		}})
		turn := p.NewTurn()
		for i := range 4 {
			out := turn.Run(ctx, []*Call{{Name: "write_file", RawArgs: `{"path":"a.py","content":"x("}`}}, RunOptions{})[0]
			if out.Failed || strings.Contains(out.Content, "Tool loop") {
				t.Fatalf("write %d = %+v, want success without warnings", i+1, out)
			}
		}
	})
}
