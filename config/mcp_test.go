package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/mcp"
)

// TestMCPServersFromConfig: config.yaml's mcp_servers become the agent's
// servers sorted by name, without disabled ones; a url makes an HTTP (or
// SSE) server with its headers, otherwise the command runs with its env,
// and supports_parallel_tool_calls carries over.
func TestMCPServersFromConfig(t *testing.T) {
	t.Parallel()
	off, on := false, true
	got := Config{MCPServers: map[string]MCPServer{
		"zeta":  {Command: "z-server", Args: []string{"--stdio"}, Env: map[string]string{"B": "2", "A": "1"}, ParallelToolCalls: true},
		"alpha": {URL: "https://mcp.example/alpha", Headers: map[string]string{"X-Key": "k", "Authorization": "Bearer t"}},
		"beta":  {URL: "https://mcp.example/beta", Transport: "SSE", Enabled: &on},
		"gone":  {Command: "never", Enabled: &off},
	}}.MCP()
	want := []mcp.Server{
		{Name: "alpha", Transport: mcp.TransportHTTP, URL: "https://mcp.example/alpha",
			Headers: []mcp.Var{{Name: "Authorization", Value: "Bearer t"}, {Name: "X-Key", Value: "k"}}},
		{Name: "beta", Transport: mcp.TransportSSE, URL: "https://mcp.example/beta"},
		{Name: "zeta", Command: "z-server", Args: []string{"--stdio"},
			Env: []mcp.Var{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}, ParallelToolCalls: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MCP (-want +got):\n%s", diff)
	}
}
