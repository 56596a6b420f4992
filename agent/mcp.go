package agent

import (
	"context"
	"slices"
	"sync"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/mcp"
	"github.com/hermes-acp/hermes-acp/toolsets"
)

// mcpSet is a session's MCP servers ([mcp.Set]) with the messages about
// them that it holds until the reply to the request that opened the
// session is out. A nil *mcpSet has no servers.
type mcpSet struct {
	set  *mcp.Set
	send func(text string) // to the session's chat

	mu      sync.Mutex // guards replied, held and pending
	replied bool
	held    bool // a restored session: hold messages until its next prompt
	pending []string
}

// newMCP prepares the MCP servers of session s: the configured ones plus
// requested (the request's server wins on a name clash). It returns nil
// when there are none. Nothing runs until [mcpSet.start].
func (a *Agent) newMCP(s *Session, requested []acp.McpServer) *mcpSet {
	servers := slices.Clone(a.opts.MCPServers)
	for _, srv := range requested {
		servers = append(servers, mcpServer(srv))
	}
	m := &mcpSet{send: s.sendText}
	m.set = mcp.New(mcp.Options{
		Servers:         servers,
		Registry:        s.reg,
		IsStaticToolset: isStaticToolset,
		Dir:             s.cwd,
		Version:         a.opts.Version,
		Notify:          m.tell,
		Log:             a.log.With("session", s.id),
	})
	if m.set == nil {
		return nil
	}
	return m
}

// mcpServer converts a server of an ACP request. The hermes per-server
// opt-in supports_parallel_tool_calls comes as
// _meta.hermes.supports_parallel_tool_calls of the server entry.
func mcpServer(srv acp.McpServer) mcp.Server {
	out := mcp.Server{Name: srv.Name, Transport: srv.Type, Command: srv.Command, Args: srv.Args, URL: srv.URL}
	for _, e := range srv.Env {
		out.Env = append(out.Env, mcp.Var{Name: e.Name, Value: e.Value})
	}
	for _, h := range srv.Headers {
		out.Headers = append(out.Headers, mcp.Var{Name: h.Name, Value: h.Value})
	}
	h, _ := srv.Meta["hermes"].(map[string]any)
	out.ParallelToolCalls, _ = h["supports_parallel_tool_calls"].(bool)
	return out
}

// isStaticToolset reports whether name is a built-in or legacy toolset, which
// a server's alias must not shadow.
func isStaticToolset(name string) bool {
	if _, ok := toolsets.Lookup(name); ok {
		return true
	}
	_, ok := toolsets.Legacy(name)
	return ok
}

// start connects every server in the background. Messages about servers
// that fail are held until the reply to ctx's request has been written.
func (m *mcpSet) start(ctx context.Context) {
	if m == nil {
		return
	}
	acp.AfterReply(ctx, m.replyWritten)
	m.set.Start()
}

// settle waits, for the session's first prompt, until the servers have
// started (see [mcp.Set.Settle]).
func (m *mcpSet) settle(ctx context.Context) {
	if m == nil {
		return
	}
	m.set.Settle(ctx)
}

// close ends the servers and removes their tools.
func (m *mcpSet) close() {
	if m == nil {
		return
	}
	m.set.Close()
}

// holdUntilPrompt holds the messages until [mcpSet.promptStarted]: a
// restored session's replay ends with the reply, and a message after it
// could pass for part of it.
func (m *mcpSet) holdUntilPrompt() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.held = true
	m.mu.Unlock()
}

// promptStarted sends the messages held by holdUntilPrompt.
func (m *mcpSet) promptStarted() {
	if m == nil {
		return
	}
	m.mu.Lock()
	held := m.held
	m.held = false
	m.mu.Unlock()
	if held {
		m.replyWritten()
	}
}

// replyWritten sends the messages held until the session's reply was out.
func (m *mcpSet) replyWritten() {
	m.mu.Lock()
	if m.held {
		m.mu.Unlock()
		return
	}
	m.replied = true
	pending := m.pending
	m.pending = nil
	m.mu.Unlock()
	for _, text := range pending {
		m.send(text)
	}
}

// tell sends the user an agent message, or holds it until the session's
// reply is out.
func (m *mcpSet) tell(text string) {
	m.mu.Lock()
	if !m.replied {
		m.pending = append(m.pending, text)
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	m.send(text)
}
