package threat

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// Scope selects how many patterns apply. Scopes are cumulative: Strict
// includes every Context pattern, Context every All pattern.
type Scope int

const (
	// All holds the patterns that apply everywhere: classic prompt
	// injection, deception and exfiltration of secrets.
	All Scope = iota
	// Context adds role hijack, promptware and C2 vocabulary: for text the
	// user did not write (context files, skills found in a project).
	Context
	// Strict adds persistence (SSH keys, agent configuration), sending to
	// URLs, leaking the conversation and hard-coded secrets: for writes the
	// user mediates (memory), where a refusal can be acted on.
	Strict
)

// String names the scope as hermes does.
func (s Scope) String() string {
	switch s {
	case All:
		return "all"
	case Context:
		return "context"
	case Strict:
		return "strict"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// InvisiblePrefix starts the finding for a hidden character:
// "invisible_unicode_U+200B".
const InvisiblePrefix = "invisible_unicode_"

// filler is hermes's bounded run of words between the key words of an
// attack phrase.
const filler = `(?:\w+\s+){0,8}`

// secretVar is an environment variable whose name ends like a secret.
const secretVar = `\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b`

// modify is the verb before an agent-configuration file.
const modify = `(update|modify|edit|write|change|append|add\s+to)\s+[^\n]*`

// pattern is one threat: the expression, the id findings report, and the
// narrowest scope it belongs to.
type pattern struct {
	re    *regexp.Regexp
	id    string
	scope Scope
}

// patterns are hermes's, compiled at first use and matched
// case-insensitively against the NFKC form of the text. RE2 has no
// look-around, so the HTML-comment pattern spells "not a letter" as a
// character class; it caps repeats at 1000, so hermes's {0,2048} runs are
// unbounded (RE2 is linear in the text anyway).
var patterns = sync.OnceValue(func() []pattern {
	src := []struct {
		re    string
		id    string
		scope Scope
	}{
		// Classic prompt injection.
		{`ignore\s+` + filler + `(previous|all|above|prior)\s+` + filler + `instructions`, "prompt_injection", All},
		{`system\s+prompt\s+override`, "sys_prompt_override", All},
		{`disregard\s+` + filler + `(your|all|any)\s+` + filler + `(instructions|rules|guidelines)`, "disregard_rules", All},
		{`act\s+as\s+(if|though)\s+` + filler + `you\s+` + filler + `(have\s+no|don't\s+have)\s+` + filler + `(restrictions|limits|rules)`, "bypass_restrictions", All},
		{`<!--[^>]{0,512}(?:^|[^A-Za-z])(?:ignore|override|system|secret|hidden)(?:[^A-Za-z]|$)[^>]{0,512}-->`, "html_comment_injection", All},
		{`<\s*div\s+style\s*=\s*["'][^>]*display\s*:\s*none`, "hidden_div", All},
		{`translate\s+[^\n]{0,512}\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(execute|run|eval)\b`, "translate_execute", All},
		{`do\s+not\s+` + filler + `tell\s+` + filler + `the\s+user`, "deception_hide", All},

		// Role play and identity hijack.
		{`you\s+are\s+` + filler + `now\s+(?:a|an|the)\s+`, "role_hijack", Context},
		{`pretend\s+` + filler + `(you\s+are|to\s+be)\s+`, "role_pretend", Context},
		{`output\s+` + filler + `(system|initial)\s+prompt`, "leak_system_prompt", Context},
		{`(respond|answer|reply)\s+without\s+` + filler + `(restrictions|limitations|filters|safety)`, "remove_filters", Context},
		{`you\s+have\s+been\s+` + filler + `(updated|upgraded|patched)\s+to`, "fake_update", Context},
		{`\bname\s+yourself\s+\w+`, "identity_override", Context},

		// C2-style promptware.
		{`register\s+(as\s+)?a?\s*node`, "c2_node_registration", Context},
		{`(heartbeat|beacon|check[\s\-]?in)\s+(to|with)\s+`, "c2_heartbeat", Context},
		{`pull\s+(down\s+)?(?:new\s+)?task(?:ing|s)?\b`, "c2_task_pull", Context},
		{`connect\s+to\s+the\s+network\b`, "c2_network_connect", Context},
		{`you\s+must\s+(?:\w+\s+){0,3}(register|connect|report|beacon)\b`, "forced_action", Context},
		{`only\s+use\s+one[\s\-]?liners?\b`, "anti_forensic_oneliner", Context},
		{`never\s+` + filler + `(?:create|write)\s+` + filler + `(?:script|file)\s+` + filler + `disk`, "anti_forensic_disk", Context},
		{`unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*`, "env_var_unset_agent", Context},
		{`\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b`, "known_c2_framework", Context},
		{`\bc2\s+(?:server|channel|infrastructure|beacon)\b`, "c2_explicit", Context},
		{`\bcommand\s+and\s+control\b`, "c2_explicit_long", Context},

		// Exfiltration.
		{`curl\s+[^\n]*` + secretVar, "exfil_curl", All},
		{`wget\s+[^\n]*` + secretVar, "exfil_wget", All},
		{`cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)`, "read_secrets", All},
		{`(send|post|upload|transmit)\s+[^\n]*\s+(to|at)\s+https?://`, "send_to_url", Strict},
		{`(include|output|print|share)\s+` + filler + `(conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)`, "context_exfil", Strict},

		// Persistence.
		{`authorized_keys`, "ssh_backdoor", Strict},
		{`\$HOME/\.ssh|~/\.ssh`, "ssh_access", Strict},
		{`\$HOME/\.hermes/\.env|~/\.hermes/\.env`, "hermes_env", Strict},
		{modify + `(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)`, "agent_config_mod", Strict},
		{modify + `\.hermes/(config\.yaml|SOUL\.md)`, "hermes_config_mod", Strict},

		// Hard-coded secrets.
		{`(?:api[_-]?key|token|secret|password)\s*[=:]\s*["'][A-Za-z0-9+/=_-]{20,}`, "hardcoded_secret", Strict},
	}
	out := make([]pattern, len(src))
	for i, s := range src {
		out[i] = pattern{regexp.MustCompile(`(?i)` + s.re), s.id, s.scope}
	}
	return out
})

// IsInvisible reports the hidden characters hermes refuses: zero-width
// space, non-joiner and joiner, word joiner, invisible times, separator and
// plus, the byte-order mark, and the bidirectional embeddings, overrides
// and isolates.
func IsInvisible(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\u2062', '\u2063', '\u2064', '\ufeff',
		'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069':
		return true
	}
	return false
}

// Scan returns why text looks like an injection in scope, or nil: one
// "invisible_unicode_U+XXXX" per hidden character present (in order of
// code point; found in the raw text, since NFKC drops some of them), then
// the id of every pattern of the scope that matches the NFKC form. Unlike
// hermes, which scans the first 64 KiB, the whole text is scanned: RE2 runs
// in linear time, and a tail left unscanned would reach the prompt.
func Scan(text string, scope Scope) []string {
	var hidden []rune
	for _, r := range text {
		if IsInvisible(r) && !slices.Contains(hidden, r) {
			hidden = append(hidden, r)
		}
	}
	slices.Sort(hidden)
	var findings []string
	for _, r := range hidden {
		findings = append(findings, fmt.Sprintf("%sU+%04X", InvisiblePrefix, r))
	}
	folded := norm.NFKC.String(text)
	for _, p := range patterns() {
		if p.scope <= scope && p.re.MatchString(folded) {
			findings = append(findings, p.id)
		}
	}
	return findings
}

// Message is hermes's refusal for the first finding of a scan, or "" when
// there is none: it names the pattern (or the hidden character) so the
// model and the user can see what was refused.
func Message(findings []string) string {
	if len(findings) == 0 {
		return ""
	}
	if cp, ok := strings.CutPrefix(findings[0], InvisiblePrefix); ok {
		return fmt.Sprintf("Blocked: content contains invisible unicode character %s (possible injection).", cp)
	}
	return fmt.Sprintf("Blocked: content matches threat pattern '%s'. "+
		"Content is injected into the system prompt and must not contain injection or exfiltration payloads.", findings[0])
}

// Check scans text in scope and returns Message of the findings.
func Check(text string, scope Scope) string { return Message(Scan(text, scope)) }
