package projctx

import (
	"fmt"
	"regexp"
	"slices"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// filler is hermes's bounded run of words between the key words of an
// attack phrase.
const filler = `(?:\w+\s+){0,8}`

// secretVar is an environment variable whose name ends like a secret.
const secretVar = `\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b`

// threat is one prompt-injection pattern and the id the log reports.
type threat struct {
	re *regexp.Regexp
	id string
}

// threats are, compiled at first use, hermes's "context" scope patterns (tools/threat_patterns.py:
// those of scope "all" and "context"), matched case-insensitively against
// the NFKC form of the text. RE2 has no look-behind, so the HTML-comment
// pattern spells "not a letter" as a character class, and it caps repeats
// at 1000, so hermes's {0,2048} runs are unbounded (RE2 is linear anyway).
var threats = sync.OnceValue(func() []threat {
	src := []struct{ re, id string }{
		{`ignore\s+` + filler + `(previous|all|above|prior)\s+` + filler + `instructions`, "prompt_injection"},
		{`system\s+prompt\s+override`, "sys_prompt_override"},
		{`disregard\s+` + filler + `(your|all|any)\s+` + filler + `(instructions|rules|guidelines)`, "disregard_rules"},
		{`act\s+as\s+(if|though)\s+` + filler + `you\s+` + filler + `(have\s+no|don't\s+have)\s+` + filler + `(restrictions|limits|rules)`, "bypass_restrictions"},
		{`<!--[^>]{0,512}(?:^|[^A-Za-z])(?:ignore|override|system|secret|hidden)(?:[^A-Za-z]|$)[^>]{0,512}-->`, "html_comment_injection"},
		{`<\s*div\s+style\s*=\s*["'][^>]*display\s*:\s*none`, "hidden_div"},
		{`translate\s+[^\n]{0,512}\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(execute|run|eval)\b`, "translate_execute"},
		{`do\s+not\s+` + filler + `tell\s+` + filler + `the\s+user`, "deception_hide"},
		{`you\s+are\s+` + filler + `now\s+(?:a|an|the)\s+`, "role_hijack"},
		{`pretend\s+` + filler + `(you\s+are|to\s+be)\s+`, "role_pretend"},
		{`output\s+` + filler + `(system|initial)\s+prompt`, "leak_system_prompt"},
		{`(respond|answer|reply)\s+without\s+` + filler + `(restrictions|limitations|filters|safety)`, "remove_filters"},
		{`you\s+have\s+been\s+` + filler + `(updated|upgraded|patched)\s+to`, "fake_update"},
		{`\bname\s+yourself\s+\w+`, "identity_override"},
		{`register\s+(as\s+)?a?\s*node`, "c2_node_registration"},
		{`(heartbeat|beacon|check[\s\-]?in)\s+(to|with)\s+`, "c2_heartbeat"},
		{`pull\s+(down\s+)?(?:new\s+)?task(?:ing|s)?\b`, "c2_task_pull"},
		{`connect\s+to\s+the\s+network\b`, "c2_network_connect"},
		{`you\s+must\s+(?:\w+\s+){0,3}(register|connect|report|beacon)\b`, "forced_action"},
		{`only\s+use\s+one[\s\-]?liners?\b`, "anti_forensic_oneliner"},
		{`never\s+` + filler + `(?:create|write)\s+` + filler + `(?:script|file)\s+` + filler + `disk`, "anti_forensic_disk"},
		{`unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*`, "env_var_unset_agent"},
		{`\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b`, "known_c2_framework"},
		{`\bc2\s+(?:server|channel|infrastructure|beacon)\b`, "c2_explicit"},
		{`\bcommand\s+and\s+control\b`, "c2_explicit_long"},
		{`curl\s+[^\n]*` + secretVar, "exfil_curl"},
		{`wget\s+[^\n]*` + secretVar, "exfil_wget"},
		{`cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)`, "read_secrets"},
	}
	out := make([]threat, len(src))
	for i, s := range src {
		out[i] = threat{regexp.MustCompile(`(?i)` + s.re), s.id}
	}
	return out
})

// isInvisible reports the hidden characters hermes refuses in a context
// file: zero-width space, non-joiner and joiner, word joiner, invisible
// times, separator and plus, the byte-order mark, and the bidirectional
// embeddings, overrides and isolates.
func isInvisible(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\u2062', '\u2063', '\u2064', '\ufeff',
		'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069':
		return true
	}
	return false
}

// Scan returns why text looks like a prompt injection, or nil: one
// "invisible_unicode_U+XXXX" per hidden character present (in order of
// code point), then the id of every pattern that matches. A byte-order
// mark at the very start is an editor's artifact, not an injection, and is
// ignored. Unlike hermes, which scans the first 64 KiB, the whole text is
// scanned: RE2 runs in linear time.
func Scan(text string) []string {
	if len(text) >= 3 && text[:3] == "\ufeff" {
		text = text[3:]
	}
	var hidden []rune
	for _, r := range text {
		if isInvisible(r) && !slices.Contains(hidden, r) {
			hidden = append(hidden, r)
		}
	}
	slices.Sort(hidden)
	var findings []string
	for _, r := range hidden {
		findings = append(findings, fmt.Sprintf("invisible_unicode_U+%04X", r))
	}
	folded := norm.NFKC.String(text)
	for _, t := range threats() {
		if t.re.MatchString(folded) {
			findings = append(findings, t.id)
		}
	}
	return findings
}
