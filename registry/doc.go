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
//	parse → coerce → agent-loop tools → guardrails → pre-hooks → dispatch → post-hooks → result budget
//
// [Plan] splits a batch into sequential and parallel segments, [Coerce]
// repairs argument types against the tool's JSON Schema, the guardrails of
// a [Turn] warn about (and, when configured, stop) tool-call loops, and the
// result budget persists oversized results to files under
// PipelineOptions.ResultsDir and replaces them with a preview — only ever
// with a shorter one, in a file of its own per session and call.
//
// Every tool result is a JSON string the model reads; errors are
// {"error": "..."} objects. A Go error returned by a [Handler] is turned into
// such a result, so one broken tool never ends the turn.
package registry
