// Package tools implements the hermes-acp tool set: the tools the model calls
// (reading, writing and patching files, searching, running commands, …),
// re-implemented in Go from hermes-agent's hermes-acp toolset. Tools reach
// files only through the workspace package, report lint through the lint
// package and see the editor only through small interfaces the agent
// implements ([EditApprover], [LintSink]).
//
// # Adding a tool
//
// A tool is one file (plus its description, <name>.md, embedded beside it).
// At package initialisation the file declares the tool with register: its
// registry.Entry holds every fact about it — ACP kind, read-only,
// idempotent, parallel-safe, the argument that names the file it touches,
// its title, preview and render functions for the editor — and
// handle(run) makes its handler. run receives the call's arguments decoded
// once into the tool's own params struct, and the session it is bound to
// (its [Deps] and per-session state); it returns a registry.Result: the
// value the model reads and the tool's own IsError verdict. Nothing else
// changes: the registry, the planner, the guardrails and the agent read the
// entry. [Entries] lists the declared tools; [Bind] binds those a session
// enables to its dependencies. In descriptions,
// {{if enabled "tool"}}…{{end}} keeps a sentence only for sessions that
// offer that tool; hints in results do the same with Deps.Enabled.
//
// # Engines
//
// The engines behind the tools know nothing of tools and live in their own
// internal packages: tools/internal/v4a parses and applies V4A patches (the
// patch tool's "patch" mode; it reads files through an interface patch.go
// implements over the session's files, with the call's context), and
// tools/internal/search is the content search engine behind search_files
// (walker, literal prefilter, globs, top-k), and tools/internal/fuzzy is
// hermes-agent's nine-strategy fuzzy find-and-replace (with its
// escape-drift guard, re-indentation and unicode preservation) that patch's
// replace mode and V4A hunks use. Diffs and the difflib similarity come
// from internal/diff. Their failures are values whose text is returned to
// the model verbatim.
package tools
