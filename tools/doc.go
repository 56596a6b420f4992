// Package tools implements the hermes-acp tool set: the tools the model calls
// (reading, writing and patching files, searching, running commands, …),
// re-implemented in Go from hermes-agent's hermes-acp toolset. Each tool lives
// in its own file and adds itself to the built-in table at initialisation;
// the runtime registry is built from that table. Tools reach files only
// through the workspace package, report lint through the lint package and see
// the editor only through small interfaces the agent implements.
//
// # Patch engines
//
// The text-editing engines behind the patch tool are pure functions with no
// I/O of their own and are safe for concurrent use. The fuzzy
// find-and-replace (hermes-agent's nine strategies, with its escape-drift
// guard, re-indentation and unicode preservation) lives in package
// tools/internal/fuzzy and is called through [FuzzyReplace]; diffs and the
// difflib similarity come from package internal/diff. v4a.go holds the V4A
// patch format ([ParseV4A], [ApplyV4A], [V4APaths]) and [UnifiedDiff]. Their
// failures are *[PatchError] values whose text is returned to the model
// verbatim.
package tools
