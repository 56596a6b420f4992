package mcp

// Transports a [Server] can use.
const (
	TransportStdio = "stdio" // a child process spoken to over stdin and stdout; the default
	TransportHTTP  = "http"  // streamable HTTP
	TransportSSE   = "sse"   // HTTP with server-sent events (the 2024-11-05 transport)
)

// Server configures one MCP server. A stdio server (Transport "" or
// [TransportStdio]) uses Command, Args and Env; an HTTP or SSE server uses
// URL and Headers.
type Server struct {
	Name      string
	Transport string
	Command   string
	Args      []string
	// Env is added, in order, to the few safe variables of the agent's
	// environment it inherits (see stdioEnv) for the server's
	// process; entries without a name are ignored.
	Env []Var
	URL string
	// Headers are set on every request to the server; entries without a
	// name are ignored.
	Headers []Var
	// ParallelToolCalls lets the server's tools run concurrently with
	// other parallel-safe calls of a batch (hermes's per-server opt-in
	// supports_parallel_tool_calls).
	ParallelToolCalls bool
}

// Var is a name and its value: an environment variable or an HTTP header.
type Var struct {
	Name, Value string
}
