// Package projctx finds a project's own instructions for the model
// (AGENTS.md, HERMES.md, .hermes.md), caps their size and leaves out any
// that look like a prompt injection, as hermes does for its context files
// (agent/prompt_builder.py and agent/subdirectory_hints.py).
//
// The package does no I/O of its own: callers pass a [ReadFunc] that reads
// a file below one workspace root. [Root] loads the root's file for the
// system prompt; a [Tracker] loads the files of the folders the agent
// touches later, once per folder and once per content.
package projctx
