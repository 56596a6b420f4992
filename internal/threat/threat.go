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
	// need are the words the pattern cannot match without, lower case:
	// one of each group must be in the lower-cased text before the
	// expression is tried (RE2 is linear but slow per byte; most text
	// holds none of an attack's words).
	need [][]string
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
		need  [][]string
	}{
		// Classic prompt injection.
		{`ignore\s+` + filler + `(previous|all|above|prior)\s+` + filler + `instructions`, "prompt_injection", All, [][]string{{"ignore"}, {"instructions"}}},
		{`system\s+prompt\s+override`, "sys_prompt_override", All, [][]string{{"system"}, {"override"}}},
		{`disregard\s+` + filler + `(your|all|any)\s+` + filler + `(instructions|rules|guidelines)`, "disregard_rules", All, [][]string{{"disregard"}}},
		{`act\s+as\s+(if|though)\s+` + filler + `you\s+` + filler + `(have\s+no|don't\s+have)\s+` + filler + `(restrictions|limits|rules)`, "bypass_restrictions", All, [][]string{{"act"}, {"restrictions", "limits", "rules"}}},
		{`<!--[^>]{0,512}(?:^|[^A-Za-z])(?:ignore|override|system|secret|hidden)(?:[^A-Za-z]|$)[^>]{0,512}-->`, "html_comment_injection", All, [][]string{{"<!--"}}},
		{`<\s*div\s+style\s*=\s*["'][^>]*display\s*:\s*none`, "hidden_div", All, [][]string{{"div"}, {"none"}}},
		{`translate\s+[^\n]{0,512}\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(execute|run|eval)\b`, "translate_execute", All, [][]string{{"translate"}}},
		{`do\s+not\s+` + filler + `tell\s+` + filler + `the\s+user`, "deception_hide", All, [][]string{{"not"}, {"tell"}}},

		// Role play and identity hijack.
		{`you\s+are\s+` + filler + `now\s+(?:a|an|the)\s+`, "role_hijack", Context, [][]string{{"you"}, {"now"}}},
		{`pretend\s+` + filler + `(you\s+are|to\s+be)\s+`, "role_pretend", Context, [][]string{{"pretend"}}},
		{`output\s+` + filler + `(system|initial)\s+prompt`, "leak_system_prompt", Context, [][]string{{"output"}, {"prompt"}}},
		{`(respond|answer|reply)\s+without\s+` + filler + `(restrictions|limitations|filters|safety)`, "remove_filters", Context, [][]string{{"without"}}},
		{`you\s+have\s+been\s+` + filler + `(updated|upgraded|patched)\s+to`, "fake_update", Context, [][]string{{"been"}}},
		{`\bname\s+yourself\s+\w+`, "identity_override", Context, [][]string{{"yourself"}}},

		// C2-style promptware.
		{`register\s+(as\s+)?a?\s*node`, "c2_node_registration", Context, [][]string{{"register"}, {"node"}}},
		{`(heartbeat|beacon|check[\s\-]?in)\s+(to|with)\s+`, "c2_heartbeat", Context, [][]string{{"heartbeat", "beacon", "check"}}},
		{`pull\s+(down\s+)?(?:new\s+)?task(?:ing|s)?\b`, "c2_task_pull", Context, [][]string{{"pull"}}},
		{`connect\s+to\s+the\s+network\b`, "c2_network_connect", Context, [][]string{{"network"}}},
		{`you\s+must\s+(?:\w+\s+){0,3}(register|connect|report|beacon)\b`, "forced_action", Context, [][]string{{"must"}}},
		{`only\s+use\s+one[\s\-]?liners?\b`, "anti_forensic_oneliner", Context, [][]string{{"liner"}}},
		{`never\s+` + filler + `(?:create|write)\s+` + filler + `(?:script|file)\s+` + filler + `disk`, "anti_forensic_disk", Context, [][]string{{"never"}, {"disk"}}},
		{`unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*`, "env_var_unset_agent", Context, [][]string{{"unset"}}},
		{`\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b`, "known_c2_framework", Context, [][]string{{"cobalt", "sliver", "havoc", "mythic", "metasploit", "brainworm"}}},
		{`\bc2\s+(?:server|channel|infrastructure|beacon)\b`, "c2_explicit", Context, [][]string{{"c2"}}},
		{`\bcommand\s+and\s+control\b`, "c2_explicit_long", Context, [][]string{{"control"}}},

		// Exfiltration.
		{`curl\s+[^\n]*` + secretVar, "exfil_curl", All, [][]string{{"curl"}, {"$"}}},
		{`wget\s+[^\n]*` + secretVar, "exfil_wget", All, [][]string{{"wget"}, {"$"}}},
		{`cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)`, "read_secrets", All, [][]string{{"cat"}}},
		{`(send|post|upload|transmit)\s+[^\n]*\s+(to|at)\s+https?://`, "send_to_url", Strict, [][]string{{"http"}}},
		{`(include|output|print|share)\s+` + filler + `(conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)`, "context_exfil", Strict, [][]string{{"conversation", "history", "messages", "context"}}},

		// Persistence.
		{`authorized_keys`, "ssh_backdoor", Strict, [][]string{{"authorized_keys"}}},
		{`\$HOME/\.ssh|~/\.ssh`, "ssh_access", Strict, [][]string{{"/.ssh"}}},
		{`\$HOME/\.hermes/\.env|~/\.hermes/\.env`, "hermes_env", Strict, [][]string{{".hermes/.env"}}},
		{modify + `(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)`, "agent_config_mod", Strict, [][]string{{"agents.md", "claude.md", ".cursorrules", ".clinerules"}}},
		{modify + `\.hermes/(config\.yaml|SOUL\.md)`, "hermes_config_mod", Strict, [][]string{{".hermes/"}}},

		// Hard-coded secrets.
		{`(?:api[_-]?key|token|secret|password)\s*[=:]\s*["'][A-Za-z0-9+/=_-]{20,}`, "hardcoded_secret", Strict, [][]string{{"key", "token", "secret", "password"}}},
	}
	out := make([]pattern, len(src))
	for i, s := range src {
		out[i] = pattern{regexp.MustCompile(`(?i)` + s.re), s.id, s.scope, s.need}
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
func Scan(text string, scope Scope) []string { return scan(text, scope, true) }

// scan is Scan, with the word filter before each expression or (for the
// tests that prove the filter changes nothing) without it.
func scan(text string, scope Scope, filter bool) []string {
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
	// NFKC has folded the two non-ASCII letters (?i) matches to ASCII ones
	// (the Kelvin sign, the long s), so lower-casing is enough for the
	// word filter.
	lower := strings.ToLower(folded)
	for _, p := range patterns() {
		if p.scope <= scope && (!filter || p.mayMatch(lower)) && p.re.MatchString(folded) {
			findings = append(findings, p.id)
		}
	}
	return findings
}

// mayMatch reports whether lower (lower-cased text) holds a word of each
// of p's groups.
func (p pattern) mayMatch(lower string) bool {
	for _, g := range p.need {
		if !slices.ContainsFunc(g, func(w string) bool { return strings.Contains(lower, w) }) {
			return false
		}
	}
	return true
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
