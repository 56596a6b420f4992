package tools

import (
	"context"
	"errors"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Env is what a tool needs from the session it runs in. The agent's
// per-session environment implements it; tests use a fake. Implementations
// are safe for concurrent use.
type Env interface {
	// Workspace is the session's workspace: its roots and path rules.
	Workspace() *workspace.Workspace
	// Files reads and writes through the editor when it can, else the disk.
	Files() *workspace.Files
	// State records what the agent read and wrote, for staleness checks.
	State() *workspace.State
	// Value returns the session's value for key, creating it with init on
	// first use: per-session tool state (read dedup, loop counters).
	Value(key any, init func() any) any
	// ApproveEdit shows the proposed changes of tool call callID to the user
	// (as a diff on the tool call) and decides, by the session's mode or by
	// asking, whether they may be made. lints holds the lint of each
	// change's new content, in the same order (a zero Result when not
	// linted). It returns nil when approved, or an error whose message tells
	// the model why nothing was written.
	ApproveEdit(ctx context.Context, callID string, changes []workspace.Change, lints []lint.Result) error
	// ReportLint records the lint of a file the call wrote: it goes on the
	// completing tool_call_update and, as the file's full diagnostics, to
	// the editor. content is the file's new text.
	ReportLint(callID string, path workspace.Path, content []byte, res lint.Result)
	// Linter lints edits. It is shared (the agent's sessions share one) and
	// remembers the Go declarations it has parsed clean.
	Linter() *lint.Linter
	// LearnLint lets the Linter learn content, the text of path that the
	// model just read, off the call: the lint of a later edit of it then
	// parses only what the edit changed. content is not modified after.
	LearnLint(path workspace.Path, content []byte)
	// RefuseNewLintErrors reports lint.on_new_errors: refuse — a JSON, YAML
	// or TOML write that introduces syntax errors is refused before writing.
	RefuseNewLintErrors() bool
}

// errNoEnv is returned when a tool runs without a session environment.
var errNoEnv = errors.New("tools: the call has no session environment")

// envOf returns the call's session environment.
func envOf(c *registry.Call) (Env, error) {
	if env, ok := c.Env.(Env); ok {
		return env, nil
	}
	return nil, errNoEnv
}
