package config

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-acp/hermes-acp/mcp"
	"github.com/hermes-acp/hermes-acp/skills"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// The configuration as the options of the packages it configures (those
// below the agent; the agent's and the tools' own options are the
// composition root's, cmd/hermes-acp).

// MCP returns config.yaml's mcp_servers as the agent's list, sorted by
// name, without the servers marked enabled: false. A server with a url is a
// streamable HTTP server (SSE with transport: sse); otherwise it is started
// with its command.
func (c Config) MCP() []mcp.Server {
	var out []mcp.Server
	for _, name := range slices.Sorted(maps.Keys(c.MCPServers)) {
		s := c.MCPServers[name]
		if s.Enabled != nil && !*s.Enabled {
			continue
		}
		srv := mcp.Server{Name: name, ParallelToolCalls: s.ParallelToolCalls}
		if s.URL != "" {
			srv.Transport, srv.URL = mcp.TransportHTTP, s.URL
			if strings.EqualFold(s.Transport, "sse") {
				srv.Transport = mcp.TransportSSE
			}
			for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
				srv.Headers = append(srv.Headers, mcp.Var{Name: k, Value: s.Headers[k]})
			}
		} else {
			srv.Command, srv.Args = s.Command, s.Args
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				srv.Env = append(srv.Env, mcp.Var{Name: k, Value: s.Env[k]})
			}
		}
		out = append(out, srv)
	}
	return out
}

// Skills returns the skills roots of a session on the workspace roots
// (issue #14): the project's .hermes/skills in each root (unless
// skills.project_discovery is false), $HERMES_HOME/skills, and
// skills.external_dirs; skills.disabled hides skills.
func (c Config) Skills(roots []string) skills.Options {
	var project []string
	if !c.SkillsProjectOff {
		for _, root := range roots {
			project = append(project, filepath.Join(root, filepath.FromSlash(skills.ProjectDir)))
		}
	}
	return skills.Options{
		UserDir:      filepath.Join(c.Home, "skills"),
		ProjectDirs:  project,
		ExternalDirs: c.SkillsExternal,
		Disabled:     c.SkillsDisabled,
		Workspace:    workspace.Options{HermesHome: c.Home},
	}
}
