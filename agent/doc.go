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
// An [Agent] serves one connection; it is safe for concurrent use. The
// composition root (cmd/hermes-acp) builds it with a model provider, a tool
// registry and pipeline, and options read from the configuration.
package agent
