// Package agent implements the hermes-acp agent behind the ACP connection:
// sessions and their workspaces, the prompt turn loop that streams a model's
// answer and runs its tool calls through the registry pipeline, the mapping
// of tool calls to ACP updates, edit approvals and modes, slash commands, and
// session persistence.
//
// Concerns with state of their own live in internal packages, each a type
// given its dependencies: agent/internal/store (the SQLite session
// database), agent/internal/diagnostics (the _hermes/publishDiagnostics
// publisher and the file watcher that re-lints published files) and
// agent/internal/queue (the order of a session's prompts).
//
// A session's lock guards its history and its state (mode, title, plan,
// the running prompt, compression) and is never held across I/O or a wait:
// its updates and saves go, in order, through its one sender
// (agent/sender.go); its approvals, announcements, running calls' cards,
// checkpoints, MCP servers and type checks are components with locks of
// their own; a wait for something slow (the skill index, the editor) holds
// no lock and ends with the turn's context.
//
// An [Agent] serves one connection; it is safe for concurrent use. The
// composition root (cmd/hermes-acp) builds it with a model provider, a tool
// registry and pipeline, and options read from the configuration.
package agent
