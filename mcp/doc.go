// Package mcp connects a session's MCP servers and imports their tools into
// a tool registry: it starts stdio servers as child processes (they die
// with the agent) or dials streamable HTTP and SSE servers, registers each
// server's tools as mcp_<server>_<tool> in toolset mcp-<server>, follows the
// servers' tool list changes, reconnects a server that drops once, and
// renders tool results for the model as hermes does.
//
// A [Set] owns the connections of one session; the caller builds it from
// [Server] values (its own configuration type, not the ACP wire type) and
// hands it what it needs of the session: the registry to register into, a
// logger and a function that tells the user about servers that fail. The
// MCP Go SDK is confined to this package (and internal/mcptest).
package mcp
