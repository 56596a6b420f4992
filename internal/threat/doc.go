// Package threat is the one threat scan for text that reaches a later
// system prompt: project context files (AGENTS.md and friends), memory
// entries and skills. It ports hermes-agent's shared pattern library
// (tools/threat_patterns.py): prompt injection, deception, role hijack,
// C2-style promptware, exfiltration of secrets with curl/wget/cat, and —
// for writes the user mediates — persistence and hard-coded secrets; plus
// hidden Unicode (zero-width, bidirectional controls) found in the raw
// text, with the patterns matched against its NFKC form so full-width and
// compatibility spellings (ｉｇｎｏｒｅ) fold to the words they imitate.
//
// The package is pure (no I/O); its callers decide what a finding means:
// projctx leaves the file out of the prompt, memory refuses the write and
// blocks a stored entry at load, skills leaves the skill out of the index.
package threat
