package registry

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
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

func TestGuardrailsDefaultsWarnOnly(t *testing.T) {
	t.Parallel()
	g := newGuardrails(GuardrailConfig{})
	sig := signatureOf("web_search", map[string]any{"query": "same"})
	var actions []string
	for range 5 {
		if d := g.before(sig, true); d.Action != ActionAllow {
			t.Fatalf("before = %s, want allow without hard stop", d.Action)
		}
		d := g.after(sig, `{"error":"boom"}`, true, true, KindSearch)
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
			if d := g.before(sig, false); d.Action != ActionAllow {
				t.Fatalf("call %d: before = %s, want allow", i+1, d.Action)
			}
			g.after(sig, `{"error":"boom"}`, true, false, KindSearch)
		}
		d := g.before(sig, false)
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
		if d := g.after(sig, `{"error":"boom"}`, true, false, ""); d.Action != ActionAllow {
			t.Fatalf("first failure = %s, want allow", d.Action)
		}
		if d := g.after(sig, `{"error":"boom"}`, true, false, ""); d.Action != ActionWarn {
			t.Fatalf("second failure = %s, want warn", d.Action)
		}
		if d := g.before(sig, false); d.Action != ActionBlock || d.Count != 2 {
			t.Fatalf("third before = %+v, want block count 2", d)
		}
	})
	t.Run("same tool failing eight ways halts", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true})
		var last GuardrailDecision
		for i := range 8 {
			last = g.after(signatureOf("send_message", map[string]any{"to": i}), `{"error":"no route"}`, true, false, "")
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
		g.after(sig, `{"content":"same"}`, false, true, KindRead)
		if d := g.after(sig, `{ "content" : "same" }`, false, true, KindRead); d.Code != "idempotent_no_progress_warning" {
			t.Fatalf("second identical read = %+v, want no-progress warning (JSON compared canonically)", d)
		}
		if d := g.before(sig, true); d.Action != ActionBlock || d.Code != "idempotent_no_progress_block" {
			t.Fatalf("third before = %+v, want idempotent_no_progress_block", d)
		}
		if d := g.before(sig, false); d.Action != ActionAllow {
			t.Errorf("before for a tool that is not idempotent = %+v, want allow", d)
		}
	})
}

func TestGuardrailsCounting(t *testing.T) {
	t.Parallel()
	t.Run("success resets", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{})
		sig := signatureOf("web_search", map[string]any{"query": "q"})
		g.after(sig, `{"error":"x"}`, true, true, KindSearch)
		g.after(sig, `{"results":[1]}`, false, true, KindSearch)
		if d := g.after(sig, `{"error":"x"}`, true, true, KindSearch); d.Action != ActionAllow {
			t.Errorf("failure after a success = %+v, want allow (counter reset)", d)
		}
	})
	t.Run("same tool different args warns on the third", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{})
		var d GuardrailDecision
		for i := range 3 {
			d = g.after(signatureOf("search_files", map[string]any{"pattern": i}), `{"error":"x"}`, true, true, KindSearch)
		}
		if d.Code != "same_tool_failure_warning" || !strings.HasPrefix(d.Message, "search_files has failed 3 times this turn.") {
			t.Errorf("third failure = %+v, want same_tool_failure_warning", d)
		}
		if strings.Contains(d.Message, "`pwd && ls -la`") {
			t.Errorf("search hint = %q, want the generic advice, not the command diagnostic", d.Message)
		}
		// The command advice follows the entry's kind, not the name
		// "terminal": any tool that runs commands gets it.
		g2 := newGuardrails(GuardrailConfig{})
		for i := range 3 {
			d = g2.after(signatureOf("run_job", map[string]any{"command": i}), `{"exit_code":1}`, true, false, KindExecute)
		}
		if !strings.HasPrefix(d.Message, "run_job has failed 3 times this turn.") || !strings.Contains(d.Message, "`pwd && ls -la`") {
			t.Errorf("execute-kind hint = %q, want the command diagnostic", d.Message)
		}
		for _, other := range []string{"read_file", "write_file", "patch", "terminal"} {
			if strings.Contains(d.Message, other) {
				t.Errorf("execute-kind hint %q names %s, which the session may not offer", d.Message, other)
			}
		}
	})
	t.Run("idempotent identical result warns on the second", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{})
		sig := signatureOf("read_file", map[string]any{"path": "a"})
		if d := g.after(sig, `{"content":"x"}`, false, true, KindRead); d.Action != ActionAllow {
			t.Fatalf("first read = %+v, want allow", d)
		}
		d := g.after(sig, `{"content":"x"}`, false, true, KindRead)
		if d.Action != ActionWarn || d.Code != "idempotent_no_progress_warning" || d.Count != 2 {
			t.Fatalf("second read = %+v, want warn count 2", d)
		}
		if d := g.after(sig, `{"content":"changed"}`, false, true, KindRead); d.Action != ActionAllow {
			t.Errorf("changed result = %+v, want allow (streak reset)", d)
		}
	})
	t.Run("tools that are not idempotent never count as no progress", func(t *testing.T) {
		t.Parallel()
		g := newGuardrails(GuardrailConfig{HardStop: true, NoProgressWarnAfter: 2, NoProgressBlockAfter: 2})
		for range 3 {
			for _, name := range []string{"write_file", "custom_tool", "terminal"} {
				sig := signatureOf(name, map[string]any{"x": 1})
				if d := g.before(sig, false); d.Action != ActionAllow {
					t.Fatalf("%s before = %+v, want allow", name, d)
				}
				if d := g.after(sig, "ok", false, false, KindEdit); d.Action != ActionAllow {
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
			if d := g.after(sig, `{"error":"x"}`, true, false, ""); d.Action != ActionAllow {
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
	blocked := blockedResult(block)
	if !blocked.IsError {
		t.Errorf("blockedResult is not an error result")
	}
	if err := json.Unmarshal([]byte(blocked.Encode()), &parsed); err != nil {
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
		return Entry{Name: name, Toolset: "t", Handler: func(context.Context, *Call) (Result, error) {
			*runs++
			return Error("boom"), nil
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
		type lint struct {
			Status string `json:"status"`
			Output string `json:"output"`
		}
		p := newTestPipeline(t, PipelineOptions{}, Entry{Name: "write_file", Toolset: "file", Kind: KindEdit, PathArg: "path",
			Handler: func(context.Context, *Call) (Result, error) {
				l := lint{"error", "SyntaxError"}
				return Result{Value: map[string]any{"bytes_written": 4, "lint": l}, Data: l}, nil
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

// TestFailureIsIsError checks that a result's IsError alone decides whether
// it failed, for the outcome and for the guardrails: a successful result
// that mentions "error" (a search that found a file named error, a command
// whose output says error and exits 0, a write that landed with lint
// errors) is never a failure, and an error result is one whatever its text.
func TestFailureIsIsError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		kind   Kind
		result Result
		failed bool
	}{
		{"search found a file named error", KindSearch,
			OK(map[string]any{"total_count": 2, "files": []string{"src/error", "error"}}), false},
		{"search found \"error\" in its text", KindSearch,
			OK(map[string]any{"matches": []map[string]any{{"path": "a.go", "line": 3, "content": `return "error"`}}}), false},
		{"text starting with Error", KindSearch, Text(`Error handling is described in errors.md`, false), false},
		{"command printed error and exited 0", KindExecute,
			OK(map[string]any{"output": "error: everything failed", "exit_code": 0}), false},
		{"patch landed with a failed lint", KindEdit,
			OK(map[string]any{"success": true, "lint": map[string]any{"status": "error"}, "error": "lint failed"}), false},
		{"command exited 1 without the word", KindExecute,
			Failed(map[string]any{"output": "1 test did not pass", "exit_code": 1}), true},
		{"plain text refusal", KindOther, Text("permission denied", true), true},
		{"status without an error key", KindSearch, Failed(map[string]any{"status": "denied"}), true},
		{"an error result", KindRead, Error("File not found: a.go"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runs := 0
			p := newTestPipeline(t, PipelineOptions{Guardrails: GuardrailConfig{HardStop: true}},
				Entry{Name: "tool", Toolset: "t", Kind: tc.kind, Handler: func(context.Context, *Call) (Result, error) {
					runs++
					return tc.result, nil
				}})
			turn := p.NewTurn()
			var outs []Outcome
			for range 6 {
				outs = append(outs, turn.Run(ctx, []*Call{{ID: "x", Name: "tool", RawArgs: `{"q":"same"}`}}, RunOptions{})...)
			}
			for i, out := range outs[:5] {
				if out.Failed != tc.failed || out.Result.IsError != tc.failed {
					t.Fatalf("call %d: Failed = %v (Result.IsError %v), want %v", i+1, out.Failed, out.Result.IsError, tc.failed)
				}
			}
			if want := tc.result.Encode(); outs[0].Content != want {
				t.Errorf("content = %q, want the encoded result %q", outs[0].Content, want)
			}
			if !tc.failed {
				// Not a failure: no loop warning, no block, every call ran.
				for i, out := range outs {
					if out.Failed || out.Blocked || strings.Contains(out.Content, "Tool loop") {
						t.Errorf("call %d = %+v, want a plain success", i+1, out)
					}
				}
				if runs != 6 {
					t.Errorf("handler ran %d times, want 6", runs)
				}
				if d, halted := turn.Halted(); halted {
					t.Errorf("turn halted: %+v", d)
				}
				return
			}
			// A failure: warned from the second identical one, blocked at the sixth.
			if !strings.Contains(outs[1].Content, "[Tool loop warning: repeated_exact_failure_warning; count=2;") {
				t.Errorf("second failure = %q, want the loop warning", outs[1].Content)
			}
			if !outs[5].Blocked || runs != 5 {
				t.Errorf("sixth call blocked=%v after %d runs, want blocked after 5", outs[5].Blocked, runs)
			}
		})
	}
}

// TestIdempotenceFromEntry checks the no-progress guardrail follows the
// entry's Idempotent fact: identical results of an idempotent tool warn and
// then block; the same results of a tool that is not idempotent never do.
func TestIdempotenceFromEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	runs := map[string]int{}
	var mu sync.Mutex
	same := func(_ context.Context, c *Call) (Result, error) {
		mu.Lock()
		runs[c.Name]++
		mu.Unlock()
		return OK(map[string]any{"content": "1|same"}), nil
	}
	p := newTestPipeline(t, PipelineOptions{Guardrails: GuardrailConfig{HardStop: true}},
		Entry{Name: "view", Toolset: "t", Kind: KindRead, ReadOnly: true, Idempotent: true, Handler: same},
		Entry{Name: "append_line", Toolset: "t", Kind: KindEdit, Handler: same})
	turn := p.NewTurn()
	var view, appendOuts []Outcome
	for range 6 {
		view = append(view, turn.Run(ctx, []*Call{{Name: "view", RawArgs: `{"path":"a"}`}}, RunOptions{})...)
		appendOuts = append(appendOuts, turn.Run(ctx, []*Call{{Name: "append_line", RawArgs: `{"path":"a"}`}}, RunOptions{})...)
	}
	if strings.Contains(view[0].Content, "Tool loop") ||
		!strings.Contains(view[1].Content, "[Tool loop warning: idempotent_no_progress_warning; count=2;") {
		t.Errorf("idempotent reads = %q, %q; want the no-progress warning from the second", view[0].Content, view[1].Content)
	}
	if !view[5].Blocked || runs["view"] != 5 || !strings.Contains(view[5].Content, `"code":"idempotent_no_progress_block"`) {
		t.Errorf("sixth idempotent read = %+v after %d runs, want blocked after 5", view[5], runs["view"])
	}
	for i, out := range appendOuts {
		if out.Blocked || out.Failed || strings.Contains(out.Content, "Tool loop") {
			t.Errorf("append_line call %d = %+v, want a plain success", i+1, out)
		}
	}
	if runs["append_line"] != 6 {
		t.Errorf("append_line ran %d times, want 6", runs["append_line"])
	}
}
