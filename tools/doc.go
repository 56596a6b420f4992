// Package tools implements the hermes-acp tool set: the tools the model calls
// (reading, writing and patching files, searching, running commands, …),
// re-implemented in Go from hermes-agent's hermes-acp toolset. Each tool lives
// in its own file and adds itself to the built-in table at initialisation;
// the runtime registry is built from that table. Tools reach files only
// through the workspace package, report lint through the lint package and see
// the editor only through small interfaces the agent implements.
//
// # Engines
//
// The engines behind the tools know nothing of tools and live in their own
// internal packages: tools/internal/v4a parses and applies V4A patches (the
// patch tool's "patch" mode; it reads files through an interface patch.go
// implements over the session's files, with the call's context), and
// tools/internal/search is the content search engine behind search_files
// (walker, literal prefilter, globs, top-k). fuzzy.go holds
// [FuzzyReplace], hermes-agent's nine-strategy fuzzy find-and-replace (with
// its escape-drift guard, re-indentation and unicode preservation) and the
// difflib similarity it relies on; v4a.go holds [UnifiedDiff]. Their
// failures are values whose text is returned to the model verbatim.
package tools
