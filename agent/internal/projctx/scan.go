package projctx

import "github.com/hermes-acp/hermes-acp/internal/threat"

// Scan returns why a context file's text looks like a prompt injection, or
// nil: the findings of the shared threat scan in hermes's "context" scope
// (the one scan memory and skills pass too). A byte-order mark at the very
// start is an editor's artifact, not an injection, and is ignored.
func Scan(text string) []string {
	if len(text) >= 3 && text[:3] == "\ufeff" {
		text = text[3:]
	}
	return threat.Scan(text, threat.Context)
}
