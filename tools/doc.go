// Package tools implements the hermes-acp tool set: the tools the model calls
// (reading, writing and patching files, searching, running commands, …),
// re-implemented in Go from hermes-agent's hermes-acp toolset. Tools reach
// files only through the workspace package, report lint through the lint
// package and see the editor only through small interfaces the agent
// implements ([EditApprover], [LintSink]).
//
// # Adding a tool
//
// A tool is one file (plus its description, <name>.md, embedded beside it)
// that declares, at package initialisation, its spec and its constructor:
//
//	var _ = declare(registry.Tool[greetDeps]{
//		Spec: registry.Spec{Entry: registry.Entry{
//			Name: greetName, Toolset: "greet", Description: greetDescription,
//			Kind: registry.KindRead, ReadOnly: true, Title: greetTitle,
//		}, Params: greetParams{}},
//		New:       newGreet,
//		Available: func(d greetDeps) error { … },
//	})
//
// The registry.Entry holds every fact about it — ACP kind, read-only,
// idempotent, parallel-safe, the argument that names the file it touches,
// its title, preview and render functions for the editor. Its schema is
// derived from its params struct (registry.SchemaOf: json names, desc,
// enum and schema tags), the struct its handler decodes the arguments into
// once (registry.Typed). Its dependencies are an interface the file
// declares (greetDeps) listing exactly the session services it uses; the
// constructor New receives them and returns the handler, and Available,
// when a session may lack what the tool needs, is its one availability
// rule. A declared tool's file never sees the session that binds it (a
// test of this package checks). Nothing else changes: the registry, the
// planner, the guardrails and the agent read the entry. [Entries] lists
// the declared tools; [Bind] binds those a session enables to its
// services. In descriptions, {{if enabled "tool"}}…{{end}} keeps a sentence
// only for sessions that offer that tool; hints in results do the same
// with the dependencies' Enabled.
//
// Every built-in tool is declared this way. A tool that shares its
// availability with others (the browser tools: a browser can be found)
// declares SharedCheck, a method of its dependencies returning the
// session's one check, instead of Available: a pass over the registry
// then runs it once for all of them.
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
