// Package registry holds hermes-acp's tools and runs the model's tool calls.
//
// A [Registry] maps tool names to [Entry] values. It is safe for concurrent
// use: writes ([Registry.Register], [Registry.Deregister],
// [Registry.RegisterAlias]) are serialised and publish a new immutable
// [Snapshot]; readers ([Registry.Snapshot], [Registry.Definitions],
// [Registry.Dispatch], [Registry.Status]) never block on writers. MCP tools
// are added and removed at run time through the same methods.
//
// A [Pipeline] runs one model reply's batch of tool calls the way
// hermes-agent does:
//
//	parse → coerce → plan → guardrails → pre-hooks → dispatch → post-hooks → encode → result budget
//
// Every fact about a tool lives on its [Entry]: its ACP kind, whether it is
// read-only, idempotent or parallel-safe, which argument is the file it
// touches, and how the editor titles, previews and renders its calls. The
// planner splits a batch into sequential and parallel segments from those
// facts and the paths the session resolves, coercion repairs argument
// types against the tool's JSON Schema, the guardrails of
// a [Turn] warn about (and, when configured, stop) tool-call loops, and the
// result budget persists oversized results to files under
// PipelineOptions.ResultsDir and replaces them with a preview — only ever
// with a shorter one, in a file of its own per session and call.
//
// A [Handler] returns a typed [Result]: the value the model reads, the
// tool's own IsError verdict (which the guardrails, the editor's status and
// the budget read; no result text is ever searched to guess it) and
// structured extras. It is encoded once, by [Result.Encode]; errors are
// {"error": "..."} objects made by [Error]. A Go error returned by a
// handler is turned into such a result, so one broken tool never ends the
// turn. An entry without a handler is declared: each session binds it to
// its own dependencies by registering it again, with a handler, in its
// clone of the registry.
package registry
