// Package mcptest provides a small MCP server, built with the official Go
// SDK, for tests of the MCP client (package mcp) and of the agent's use of
// it. [NewServer] returns the server for in-process use (an HTTP handler or
// an in-memory transport); [Build] compiles the same server as a stdio
// program (internal/mcptest/server) once per test binary and returns its
// path.
//
// The server's tools are add {a, b} (the sum as text), echo {text}, fail (an
// isError result), slow {ms} (sleeps, honouring cancellation), grow (adds
// the tool extra at run time, which makes the SDK send
// notifications/tools/list_changed), image (a text and an image block) and
// structured (structured content only). Notable events are written, one
// line each, to [Options.Events]; the stdio program writes them to the file
// named by the environment variable [EventsEnv].
package mcptest
