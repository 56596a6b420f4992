package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
)

// Guardrail defaults (hermes ToolCallGuardrailConfig).
const (
	DefaultExactFailureWarnAfter    = 2
	DefaultExactFailureBlockAfter   = 5
	DefaultSameToolFailureWarnAfter = 3
	DefaultSameToolFailureHaltAfter = 8
	DefaultNoProgressWarnAfter      = 2
	DefaultNoProgressBlockAfter     = 5
)

// GuardrailConfig configures the per-turn tool-loop guardrails (hermes
// tool_loop_guardrails). The zero value is hermes's default: warnings on,
// hard stop off, thresholds 2/5, 3/8 and 2/5.
type GuardrailConfig struct {
	// WarningsOff stops appending loop warnings to results.
	WarningsOff bool
	// HardStop blocks repeated identical failures and no-progress reads
	// before they run, and halts the turn when one tool keeps failing.
	HardStop bool

	// Thresholds; 0 means the hermes default.
	ExactFailureWarnAfter, ExactFailureBlockAfter      int
	SameToolFailureWarnAfter, SameToolFailureHaltAfter int
	NoProgressWarnAfter, NoProgressBlockAfter          int
}

func (c GuardrailConfig) withDefaults() GuardrailConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.ExactFailureWarnAfter, DefaultExactFailureWarnAfter)
	def(&c.ExactFailureBlockAfter, DefaultExactFailureBlockAfter)
	def(&c.SameToolFailureWarnAfter, DefaultSameToolFailureWarnAfter)
	def(&c.SameToolFailureHaltAfter, DefaultSameToolFailureHaltAfter)
	def(&c.NoProgressWarnAfter, DefaultNoProgressWarnAfter)
	def(&c.NoProgressBlockAfter, DefaultNoProgressBlockAfter)
	return c
}

// Guardrail actions.
const (
	ActionAllow = "allow"
	ActionWarn  = "warn"
	ActionBlock = "block"
	ActionHalt  = "halt"
)

// Signature identifies a call without exposing its arguments: the tool name
// and the SHA-256 of its canonical (sorted, compact) JSON arguments.
type Signature struct {
	ToolName string `json:"tool_name"`
	ArgsHash string `json:"args_hash"`
}

// GuardrailDecision is one guardrail verdict. Its JSON form is the
// "guardrail" object of a blocked call's result.
type GuardrailDecision struct {
	Action    string     `json:"action"`
	Code      string     `json:"code"`
	Message   string     `json:"message"`
	ToolName  string     `json:"tool_name"`
	Count     int        `json:"count"`
	Signature *Signature `json:"signature,omitempty"`
}

// callKey is the internal form of a [Signature].
type callKey struct {
	tool string
	hash [sha256.Size]byte
}

// public renders the key as the Signature shown to the model.
func (k callKey) public() *Signature {
	return &Signature{ToolName: k.tool, ArgsHash: hex.EncodeToString(k.hash[:])}
}

// signatureOf computes a call's key; nil args hash like {}.
func signatureOf(name string, args map[string]any) callKey {
	if args == nil {
		args = map[string]any{}
	}
	return callKey{tool: name, hash: canonicalHash(args)}
}

// resultHash hashes a result's canonical JSON when it is JSON, else its text
// (hermes _result_hash), so key order and spacing do not matter.
func resultHash(result string) [sha256.Size]byte {
	if v, err := decodeJSON(result); err == nil {
		return canonicalHash(v)
	}
	return sha256.Sum256([]byte(result))
}

// guardrails is the per-turn loop controller (hermes
// ToolCallGuardrailController). It is safe for concurrent use.
type guardrails struct {
	cfg GuardrailConfig

	mu           sync.Mutex // guards the fields below
	exactFails   map[callKey]int
	sameToolFail map[string]int
	noProgress   map[callKey]noProgressRecord
	halt         *GuardrailDecision
}

type noProgressRecord struct {
	hash  [sha256.Size]byte
	count int
}

func newGuardrails(cfg GuardrailConfig) *guardrails {
	return &guardrails{
		cfg:          cfg.withDefaults(),
		exactFails:   map[callKey]int{},
		sameToolFail: map[string]int{},
		noProgress:   map[callKey]noProgressRecord{},
	}
}

// decide builds a decision; block and halt become the turn's halt decision.
func (g *guardrails) decide(action, code string, sig callKey, count int, message string) GuardrailDecision {
	if message == "" {
		message = decisionMessage(code, sig.tool, count)
	}
	d := GuardrailDecision{Action: action, Code: code, Message: message, ToolName: sig.tool, Count: count, Signature: sig.public()}
	if action == ActionBlock || action == ActionHalt {
		h := d
		g.halt = &h
	}
	return d
}

// before decides whether a call may run; idempotent is its entry's fact.
// Only a hard stop ever blocks.
func (g *guardrails) before(sig callKey, idempotent bool) GuardrailDecision {
	allow := GuardrailDecision{Action: ActionAllow, Code: ActionAllow, ToolName: sig.tool}
	if !g.cfg.HardStop {
		return allow
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := g.exactFails[sig]; n >= g.cfg.ExactFailureBlockAfter {
		return g.decide(ActionBlock, "repeated_exact_failure_block", sig, n, "")
	}
	if idempotent {
		if rec, ok := g.noProgress[sig]; ok && rec.count >= g.cfg.NoProgressBlockAfter {
			return g.decide(ActionBlock, "idempotent_no_progress_block", sig, rec.count, "")
		}
	}
	return allow
}

// after records a finished call and decides whether to warn or halt:
// failed is the result's IsError, idempotent its entry's fact, and kind its
// entry's kind (the recovery hint of a failing command differs).
func (g *guardrails) after(sig callKey, result string, failed, idempotent bool, kind Kind) GuardrailDecision {
	var hash [sha256.Size]byte
	if !failed && idempotent {
		hash = resultHash(result) // outside the lock: it may parse a large result
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	warnings := !g.cfg.WarningsOff
	if failed {
		g.exactFails[sig]++
		g.sameToolFail[sig.tool]++
		exact, same := g.exactFails[sig], g.sameToolFail[sig.tool]
		delete(g.noProgress, sig)
		switch {
		case g.cfg.HardStop && same >= g.cfg.SameToolFailureHaltAfter:
			return g.decide(ActionHalt, "same_tool_failure_halt", sig, same, "")
		case warnings && exact >= g.cfg.ExactFailureWarnAfter:
			return g.decide(ActionWarn, "repeated_exact_failure_warning", sig, exact, "")
		case warnings && same >= g.cfg.SameToolFailureWarnAfter:
			return g.decide(ActionWarn, "same_tool_failure_warning", sig, same, toolFailureRecoveryHint(sig.tool, kind, same))
		}
		return GuardrailDecision{Action: ActionAllow, Code: ActionAllow, ToolName: sig.tool, Count: exact}
	}
	delete(g.exactFails, sig)
	delete(g.sameToolFail, sig.tool)
	if !idempotent {
		delete(g.noProgress, sig)
		return GuardrailDecision{Action: ActionAllow, Code: ActionAllow, ToolName: sig.tool}
	}
	rec := g.noProgress[sig]
	if rec.count > 0 && rec.hash == hash {
		rec.count++
	} else {
		rec = noProgressRecord{hash: hash, count: 1}
	}
	g.noProgress[sig] = rec
	if warnings && rec.count >= g.cfg.NoProgressWarnAfter {
		return g.decide(ActionWarn, "idempotent_no_progress_warning", sig, rec.count, "")
	}
	return GuardrailDecision{Action: ActionAllow, Code: ActionAllow, ToolName: sig.tool, Count: rec.count}
}

// haltDecision returns the block or halt that should end the turn, if any.
func (g *guardrails) haltDecision() (GuardrailDecision, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.halt == nil {
		return GuardrailDecision{}, false
	}
	return *g.halt, true
}

// decisionMessage renders hermes's verdict text for a decision code.
func decisionMessage(code, tool string, count int) string {
	switch code {
	case "repeated_exact_failure_block":
		return fmt.Sprintf("Blocked %s: the same tool call failed %d times with identical arguments. "+
			"Stop retrying it unchanged; change strategy or explain the blocker.", tool, count)
	case "idempotent_no_progress_block":
		return fmt.Sprintf("Blocked %s: this read-only call returned the same result %d times. "+
			"Stop repeating it unchanged; use the result already provided or try a different query.", tool, count)
	case "same_tool_failure_halt":
		return fmt.Sprintf("Stopped %s: it failed %d times this turn. "+
			"Stop retrying the same failing tool path and choose a different approach.", tool, count)
	case "repeated_exact_failure_warning":
		return fmt.Sprintf("%s has failed %d times with identical arguments. This looks like a loop; "+
			"inspect the error and change strategy instead of retrying it unchanged.", tool, count)
	case "idempotent_no_progress_warning":
		return fmt.Sprintf("%s returned the same result %d times. Use the result already provided "+
			"or change the query instead of repeating it unchanged.", tool, count)
	}
	return ""
}

// toolFailureRecoveryHint is hermes's same_tool_failure_warning text; a tool
// that runs commands (KindExecute) gets hermes's terminal advice, which
// names no other tool (the session may not offer them).
func toolFailureRecoveryHint(tool string, kind Kind, count int) string {
	common := fmt.Sprintf("%s has failed %d times this turn. This looks like a loop. "+
		"Do not switch to text-only replies; keep using tools, but diagnose before retrying. "+
		"First inspect the latest error/output and verify your assumptions. ", tool, count)
	if kind == KindExecute {
		return common + "For command failures, run a small diagnostic such as `pwd && ls -la` " +
			"in the same tool, then try an absolute path, a simpler command, a different " +
			"working directory, or a different tool."
	}
	return common + "Try different arguments, a narrower query/path, an absolute path when relevant, " +
		"or a different tool that can make progress. If the blocker is external, report " +
		"the blocker after one diagnostic attempt instead of repeating the same failing path."
}

// appendGuidance appends a warn or halt decision to a result (hermes
// append_toolguard_guidance).
func appendGuidance(result string, d GuardrailDecision) string {
	if (d.Action != ActionWarn && d.Action != ActionHalt) || d.Message == "" {
		return result
	}
	label := "Tool loop warning"
	if d.Action == ActionHalt {
		label = "Tool loop hard stop"
	}
	return fmt.Sprintf("%s\n\n[%s: %s; count=%d; %s]", result, label, d.Code, d.Count, d.Message)
}

// blockedResult is the synthetic result of a call a guardrail blocked
// (hermes toolguard_synthetic_result).
func blockedResult(d GuardrailDecision) Result {
	return Failed(struct {
		Error     string            `json:"error"`
		Guardrail GuardrailDecision `json:"guardrail"`
	}{d.Message, d})
}
