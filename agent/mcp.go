package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/toolsets"
)

// MCP timing.
const (
	// mcpStartTimeout bounds starting one MCP server: spawning or dialling
	// it, the initialize handshake and the first tools/list. It also bounds
	// each later tools/list.
	mcpStartTimeout = 30 * time.Second
	// mcpSettleTimeout bounds how long a session's first prompt waits,
	// counted from the session's opening, for its servers to start.
	mcpSettleTimeout = 30 * time.Second
	// mcpStopGrace is how long a stdio server has to exit after its stdin
	// closes before it gets SIGTERM (and as long again before SIGKILL); it
	// also bounds the session DELETE an HTTP server gets on close.
	mcpStopGrace = 300 * time.Millisecond
)

// maxStderrLine caps one logged line of a server's stderr.
const maxStderrLine = 4096

// maxToolNameLen is the longest tool name the model APIs accept.
const maxToolNameLen = 64

// errNotConnected reports a server whose connection is gone.
var errNotConnected = errors.New("not connected")

// mcpSet owns the MCP server connections of one session: it starts them in
// the background, registers their tools in the session's registry (toolset
// "mcp-<server>"), follows the servers' tool list changes, and on close ends
// every connection (stdio servers exit) and removes the tools. Its methods
// are safe for concurrent use; a nil *mcpSet has no servers.
type mcpSet struct {
	s       *Session
	log     *slog.Logger
	cwd     string          // stdio servers run here
	ctx     context.Context // the set's lifetime, cancelled by close
	cancel  context.CancelFunc
	started time.Time
	settled chan struct{}  // closed when every server's first start has ended
	wg      sync.WaitGroup // the set's goroutines; Add only under mu while !closed

	regMu    sync.Mutex          // guards reserved and every conn's names
	reserved map[string]*mcpConn // registry names taken by the set's tools

	mu      sync.Mutex // guards the fields below and every conn's cs, stopConn, refreshing, again, restarted
	conns   []*mcpConn
	replied bool     // the reply to the request that opened the session is out
	pending []string // messages for the user held until then
	closed  bool
	spawn   *spawner // starts stdio servers; nil until the first one
}

// spawner returns the set's process starter, or nil once the set closed.
func (m *mcpSet) spawner() *spawner {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	if m.spawn == nil {
		m.spawn = newSpawner()
	}
	return m.spawn
}

// mcpConn is one server of an [mcpSet].
type mcpConn struct {
	set     *mcpSet
	server  acp.McpServer
	toolset string
	stderr  *lineLog // the stdio server's stderr; nil for HTTP servers

	names map[string]string // MCP tool name → registry name; guarded by set.regMu

	// Guarded by set.mu.
	cs         *mcp.ClientSession // nil until connected and after it ends
	stopConn   context.CancelFunc // ends the connection's context (the SSE stream)
	refreshing bool               // a tools/list is running
	again      bool               // the list changed again while it ran
	restarted  bool               // the one reconnect after a drop was used
}

// newMCP prepares the MCP servers of session s: the configured ones plus
// requested (the request's server wins on a name clash). It returns nil
// when there are none. Nothing runs until [mcpSet.start].
func (a *Agent) newMCP(s *Session, requested []acp.McpServer) *mcpSet {
	servers := mergeMCPServers(a.opts.MCPServers, requested)
	if len(servers) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &mcpSet{
		s: s, log: a.log.With("session", s.id), cwd: s.cwd, ctx: ctx, cancel: cancel,
		started: time.Now(), settled: make(chan struct{}), reserved: map[string]*mcpConn{},
	}
	for _, srv := range servers {
		m.conns = append(m.conns, &mcpConn{set: m, server: srv, toolset: "mcp-" + srv.Name})
	}
	return m
}

// mergeMCPServers lists config's servers then requested's, a later server
// replacing an earlier one of the same name in place.
func mergeMCPServers(config, requested []acp.McpServer) []acp.McpServer {
	var out []acp.McpServer
	at := map[string]int{}
	for _, list := range [][]acp.McpServer{config, requested} {
		for _, srv := range list {
			if i, ok := at[srv.Name]; ok {
				out[i] = srv
				continue
			}
			at[srv.Name] = len(out)
			out = append(out, srv)
		}
	}
	return out
}

// start connects every server in the background. Messages about servers
// that fail are held until the reply to ctx's request has been written.
func (m *mcpSet) start(ctx context.Context) {
	if m == nil {
		return
	}
	acp.AfterReply(ctx, m.replyWritten)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	var initial sync.WaitGroup
	for _, c := range m.conns {
		initial.Add(1)
		m.wg.Go(func() {
			defer initial.Done()
			c.start()
		})
	}
	m.wg.Go(func() {
		initial.Wait()
		close(m.settled)
	})
}

// settle waits until the servers' first start has ended, ctx is done, or
// mcpSettleTimeout has passed since the session opened, so that the first
// prompt sees their tools.
func (m *mcpSet) settle(ctx context.Context) {
	if m == nil {
		return
	}
	select {
	case <-m.settled:
		return
	default:
	}
	wait := time.Until(m.started.Add(mcpSettleTimeout))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-m.settled:
	case <-ctx.Done():
	case <-t.C:
		m.log.Warn("MCP servers still starting; the prompt goes on without them", "waited", mcpSettleTimeout)
	}
}

// replyWritten sends the messages held until the session's reply was out.
func (m *mcpSet) replyWritten() {
	m.mu.Lock()
	m.replied = true
	pending := m.pending
	m.pending = nil
	m.mu.Unlock()
	for _, text := range pending {
		m.s.sendText(text)
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
	m.s.sendText(text)
}

// close ends every connection (a stdio server is waited for: it exits or
// is killed), waits for the set's goroutines and removes the tools.
func (m *mcpSet) close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	var sessions []*mcp.ClientSession
	var stops []context.CancelFunc
	for _, c := range m.conns {
		if c.cs != nil {
			sessions = append(sessions, c.cs)
			stops = append(stops, c.stopConn)
			c.cs, c.stopConn = nil, nil
		}
	}
	m.mu.Unlock()
	m.cancel() // aborts starts and refreshes in flight
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() {
			if err := cs.Close(); err != nil {
				m.log.Debug("MCP server closed with an error", "error", err)
			}
			stops[i]()
		})
	}
	wg.Wait()
	m.wg.Wait()
	if m.spawn != nil {
		m.spawn.stop() // every start has returned and every server was stopped
	}
	for _, c := range m.conns {
		c.stderr.flush()
		c.forget()
	}
}

// start connects the server and registers its tools; a failure is logged
// and told to the user, and the session goes on without the server.
func (c *mcpConn) start() {
	m := c.set
	err := c.connect()
	if err == nil || m.ctx.Err() != nil {
		return // started, or the session closed meanwhile
	}
	c.stderr.flush()
	m.log.Warn("MCP server failed to start", "server", c.server.Name, "error", err)
	note := ""
	if last := c.stderr.lastLine(); last != "" {
		note = fmt.Sprintf(" (its last line on stderr: %q)", last)
	}
	m.tell(fmt.Sprintf("⚠️ MCP server %q failed to start: %v%s\n\n", c.server.Name, err, note))
}

// connect starts the server, lists its tools and registers them.
func (c *mcpConn) connect() error {
	m := c.set
	if c.server.Name == "" {
		return errors.New("the server has no name")
	}
	transport, err := c.transport()
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hermes-acp", Version: m.s.a.opts.Version}, &mcp.ClientOptions{
		Logger:                 m.log.With("server", c.server.Name),
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.refreshSoon() },
	})
	deadline := time.Now().Add(mcpStartTimeout)
	// The connection's context lives as long as the connection (the SSE
	// transport ties its event stream to it); a timer bounds the handshake.
	connCtx, stopConn := context.WithCancel(m.ctx)
	timer := time.AfterFunc(mcpStartTimeout, stopConn)
	cs, err := client.Connect(connCtx, transport, nil)
	timedOut := !timer.Stop()
	if err == nil && timedOut {
		_ = cs.Close()
	}
	if err != nil || timedOut {
		stopConn()
		if timedOut {
			return fmt.Errorf("no answer within %s", mcpStartTimeout)
		}
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = cs.Close()
		stopConn()
		return errNotConnected
	}
	c.cs, c.stopConn, c.refreshing = cs, stopConn, true
	m.mu.Unlock()
	if caps := cs.InitializeResult().Capabilities; caps != nil && caps.Tools != nil {
		lctx, cancel := context.WithDeadline(m.ctx, deadline)
		err = c.refresh(lctx)
		cancel()
	}
	if err == nil {
		err = c.watch(cs)
	}
	if err != nil {
		m.mu.Lock()
		if c.cs == cs {
			c.cs, c.stopConn, c.refreshing, c.again = nil, nil, false, false
		}
		m.mu.Unlock()
		_ = cs.Close()
		stopConn()
		c.forget()
		if errors.Is(err, context.DeadlineExceeded) && m.ctx.Err() == nil {
			return fmt.Errorf("no answer within %s", mcpStartTimeout)
		}
		return fmt.Errorf("listing its tools: %w", err)
	}
	c.refreshed(true)
	return nil
}

// watch starts following the connection so that a server that goes away
// is reported and its tools removed.
func (c *mcpConn) watch(cs *mcp.ClientSession) error {
	m := c.set
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || c.cs != cs {
		return errNotConnected
	}
	m.wg.Go(func() {
		err := cs.Wait()
		m.mu.Lock()
		if m.closed || c.cs != cs {
			m.mu.Unlock()
			return
		}
		stop := c.stopConn
		c.cs, c.stopConn = nil, nil
		restart := !c.restarted
		c.restarted = true
		if restart {
			m.wg.Add(1) // under mu while !closed
		}
		m.mu.Unlock()
		stop()
		c.stderr.flush()
		c.forget()
		m.log.Warn("MCP server stopped", "server", c.server.Name, "error", err, "reconnecting", restart)
		if !restart {
			m.tell(fmt.Sprintf("⚠️ MCP server %q stopped again; its tools are no longer available in this session.\n\n", c.server.Name))
			return
		}
		go func() {
			defer m.wg.Done()
			c.restart()
		}()
	})
	return nil
}

// restart reconnects a server that dropped, once per session, and tells
// the user how it went.
func (c *mcpConn) restart() {
	m := c.set
	m.tell(fmt.Sprintf("⚠️ MCP server %q stopped; reconnecting it once.\n\n", c.server.Name))
	err := c.connect()
	switch {
	case m.ctx.Err() != nil:
	case err == nil:
		m.log.Info("MCP server reconnected", "server", c.server.Name)
		m.tell(fmt.Sprintf("MCP server %q reconnected; its tools are available again.\n\n", c.server.Name))
	default:
		c.stderr.flush()
		m.log.Warn("MCP server failed to reconnect", "server", c.server.Name, "error", err)
		m.tell(fmt.Sprintf("⚠️ MCP server %q could not be reconnected: %v; its tools are no longer available in this session.\n\n", c.server.Name, err))
	}
}

// parallel reports whether the server's tools may run concurrently with
// other parallel-safe calls of a batch: hermes's per-server opt-in
// supports_parallel_tool_calls, given as _meta.hermes.supports_parallel_tool_calls
// of the server entry.
func (c *mcpConn) parallel() bool {
	h, _ := c.server.Meta["hermes"].(map[string]any)
	on, _ := h["supports_parallel_tool_calls"].(bool)
	return on
}

// session returns the live connection, or nil.
func (c *mcpConn) session() *mcp.ClientSession {
	c.set.mu.Lock()
	defer c.set.mu.Unlock()
	return c.cs
}

// transport builds the SDK transport for the server.
func (c *mcpConn) transport() (mcp.Transport, error) {
	srv := c.server
	switch srv.Type {
	case "", "stdio":
		if srv.Command == "" {
			return nil, errors.New("no command given")
		}
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Dir = c.set.cwd
		cmd.Env = os.Environ()
		for _, e := range srv.Env {
			if e.Name != "" {
				cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
			}
		}
		c.stderr = &lineLog{log: c.set.log.With("server", srv.Name)}
		cmd.Stderr = c.stderr
		cmd.WaitDelay = mcpStopGrace // a grandchild holding stderr open cannot stall the exit
		spawn := c.set.spawner()
		if spawn == nil {
			return nil, errNotConnected
		}
		return &stdioTransport{cmd: cmd, spawn: spawn, grace: mcpStopGrace, max: mcpMaxMessage, log: c.set.log.With("server", srv.Name)}, nil
	case "http", "sse":
		u, err := url.Parse(srv.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("url %q is not an http(s) URL", srv.URL)
		}
		client := &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: srv.Headers}}
		if srv.Type == "sse" {
			return &mcp.SSEClientTransport{Endpoint: srv.URL, HTTPClient: client}, nil
		}
		return &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client}, nil
	}
	return nil, fmt.Errorf("unknown MCP transport %q", srv.Type)
}

// refreshSoon re-lists the tools in the background after the server
// announced a change; changes during a listing cause one more.
func (c *mcpConn) refreshSoon() {
	m := c.set
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || c.cs == nil {
		return
	}
	if c.refreshing {
		c.again = true
		return
	}
	c.refreshing = true
	m.wg.Go(c.refreshLoop)
}

// refreshLoop lists the tools until no change arrived meanwhile.
func (c *mcpConn) refreshLoop() {
	m := c.set
	for {
		ctx, cancel := context.WithTimeout(m.ctx, mcpStartTimeout)
		err := c.refresh(ctx)
		cancel()
		if err != nil && m.ctx.Err() == nil {
			m.log.Warn("MCP tool list refresh failed", "server", c.server.Name, "error", err)
		}
		if !c.refreshed(false) {
			return
		}
	}
}

// refreshed ends a listing and reports whether another is due because the
// list changed meanwhile: the caller then runs it, or, with background, it
// starts on a goroutine of the set.
func (c *mcpConn) refreshed(background bool) (again bool) {
	m := c.set
	m.mu.Lock()
	defer m.mu.Unlock()
	if !c.again || m.closed || c.cs == nil {
		c.refreshing, c.again = false, false
		return false
	}
	c.again = false
	if background {
		m.wg.Go(c.refreshLoop)
		return false
	}
	return true
}

// refresh lists the server's tools and brings the registry in step.
func (c *mcpConn) refresh(ctx context.Context) error {
	cs := c.session()
	if cs == nil {
		return errNotConnected
	}
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		tools = append(tools, t)
	}
	c.apply(tools)
	return nil
}

// apply registers tools and removes the server's tools that are gone. A
// tool keeps its registry name while it exists; names are reserved under
// regMu, so registry calls happen outside it.
func (c *mcpConn) apply(tools []*mcp.Tool) {
	m := c.set
	reg := m.s.reg
	snap := reg.Snapshot()
	m.regMu.Lock()
	old := c.names
	next := make(map[string]string, len(tools))
	for _, t := range tools {
		if n, ok := old[t.Name]; ok {
			next[t.Name] = n
		}
	}
	for _, t := range tools {
		if _, ok := next[t.Name]; ok {
			continue
		}
		n := uniqueToolName(mcpToolName(c.server.Name, t.Name), func(n string) bool {
			_, taken := m.reserved[n]
			return taken || snap.Has(n)
		})
		m.reserved[n] = c
		next[t.Name] = n
	}
	var gone []string
	for tool, n := range old {
		if _, ok := next[tool]; !ok {
			gone = append(gone, n)
		}
	}
	c.names = next
	m.regMu.Unlock()

	registered := 0
	for _, t := range tools {
		err := reg.Register(registry.Entry{
			Name:           next[t.Name],
			Toolset:        c.toolset,
			Description:    mcpDescription(c.server.Name, t),
			Schema:         toolSchema(t.InputSchema),
			Handler:        c.handler(t.Name),
			MaxResultChars: registry.DefaultMCPResultChars,
			ParallelSafe:   c.parallel(),
			ReadOnly:       t.Annotations != nil && t.Annotations.ReadOnlyHint,
			Idempotent:     t.Annotations != nil && t.Annotations.ReadOnlyHint && t.Annotations.IdempotentHint,
		})
		if err != nil {
			m.log.Warn("MCP tool not registered", "server", c.server.Name, "tool", t.Name, "error", err)
			continue
		}
		registered++
	}
	c.release(gone)
	if registered > 0 && !isStaticToolset(c.server.Name) {
		if err := reg.RegisterAlias(c.server.Name, c.toolset); err != nil {
			m.log.Warn("MCP toolset alias not registered", "server", c.server.Name, "error", err)
		}
	}
	m.log.Info("MCP tools updated", "server", c.server.Name, "tools", registered, "removed", len(gone))
}

// release deregisters names (tools of c that are gone) and frees them.
func (c *mcpConn) release(names []string) {
	if len(names) == 0 {
		return
	}
	m := c.set
	for _, n := range names {
		m.s.reg.Deregister(n)
	}
	m.regMu.Lock()
	for _, n := range names {
		if m.reserved[n] == c {
			delete(m.reserved, n)
		}
	}
	m.regMu.Unlock()
}

// forget removes all of the server's tools.
func (c *mcpConn) forget() {
	m := c.set
	m.regMu.Lock()
	names := make([]string, 0, len(c.names))
	for _, n := range c.names {
		names = append(names, n)
	}
	c.names = nil
	m.regMu.Unlock()
	c.release(names)
}

// handler calls the MCP tool with the turn's context (a cancelled turn
// cancels the call on the server) and renders its result for the model.
func (c *mcpConn) handler(tool string) registry.Handler {
	return func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		cs := c.session()
		if cs == nil {
			return registry.Errorf("MCP server %q is not connected", c.server.Name), nil
		}
		args := call.Args
		if args == nil {
			args = map[string]any{}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			if ctx.Err() != nil {
				return registry.Result{}, fmt.Errorf("call %s on MCP server %s: %w", tool, c.server.Name, ctx.Err())
			}
			return registry.Errorf("MCP server %q failed to run tool %q: %v", c.server.Name, tool, err), nil
		}
		return renderMCPResult(res), nil
	}
}

// renderMCPResult turns a tool result into the result the model reads, as
// hermes does: {"error": text} for an error result (IsError: the server's
// own verdict); {"result": text} with the text blocks joined by newlines
// (other blocks as a short note); the structured content as "result" only
// when the blocks render nothing.
func renderMCPResult(res *mcp.CallToolResult) registry.Result {
	var parts []string
	for _, b := range res.Content {
		switch b := b.(type) {
		case *mcp.TextContent:
			parts = append(parts, b.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes, not shown]", b.MIMEType, len(b.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes, not shown]", b.MIMEType, len(b.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s <%s>]", b.Name, b.URI))
		case *mcp.EmbeddedResource:
			switch r := b.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource: %s, %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob)))
			}
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		if text == "" {
			text = "MCP tool returned an error"
		}
		return registry.Error(text)
	}
	if text == "" && res.StructuredContent != nil {
		if _, err := marshalResult(res.StructuredContent); err == nil {
			return registry.OK(mcpResult{res.StructuredContent})
		}
	}
	return registry.OK(mcpResult{text})
}

// mcpResult is a successful MCP result as the model reads it.
type mcpResult struct {
	Result any `json:"result"`
}

// marshalResult encodes v without HTML escaping (the model reads it).
func marshalResult(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// mcpToolName is the registry name of an MCP tool: mcp_<server>_<tool>
// with every character outside [A-Za-z0-9_-] replaced by '_', cut to 64
// characters with a hash of the full names at the end when longer.
func mcpToolName(server, tool string) string {
	n := "mcp_" + sanitizeName(server) + "_" + sanitizeName(tool)
	if len(n) <= maxToolNameLen {
		return n
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return n[:maxToolNameLen-len(suffix)] + suffix
}

func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// uniqueToolName returns base, or base with the first free suffix _2, _3, …
// (still at most 64 characters) when taken reports it in use.
func uniqueToolName(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		n := base
		if len(n)+len(suffix) > maxToolNameLen {
			n = n[:maxToolNameLen-len(suffix)]
		}
		if n += suffix; !taken(n) {
			return n
		}
	}
}

// mcpDescription is the tool's description for the model, naming its server.
func mcpDescription(server string, t *mcp.Tool) string {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = "Tool " + t.Name + "."
	}
	return fmt.Sprintf("[MCP server %s] %s", server, desc)
}

// toolSchema returns the tool's input schema as a JSON object (nil when
// it has none or it is not an object).
func toolSchema(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
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

// headerTransport adds the server's configured headers to every request,
// and bounds the session DELETE sent on close.
type headerTransport struct {
	base    http.RoundTripper
	headers []acp.HTTPHeader
}

// RoundTrip implements [http.RoundTripper].
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, h := range t.headers {
		if h.Name != "" {
			r.Header.Set(h.Name, h.Value)
		}
	}
	if r.Method != http.MethodDelete {
		return t.base.RoundTrip(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), mcpStopGrace)
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody releases a request's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// lineLog is the stderr of a stdio server: every line is logged. It is
// safe for concurrent use; a nil *lineLog ignores flush.
type lineLog struct {
	log *slog.Logger

	mu   sync.Mutex // guards buf and last
	buf  []byte
	last string // the last non-empty line
}

// Write logs the complete lines of p and keeps the rest for later.
func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf = append(l.buf, p...)
	var lines []string
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > maxStderrLine {
		lines = append(lines, string(l.buf))
		l.buf = nil
	}
	l.buf = append([]byte(nil), l.buf...)
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], "\r")
		if strings.TrimSpace(lines[i]) != "" {
			l.last = lines[i]
		}
	}
	l.mu.Unlock()
	for _, line := range lines {
		l.log.Info("MCP server stderr", "line", line)
	}
	return len(p), nil
}

// lastLine returns the last non-empty line written; "" for a nil lineLog.
func (l *lineLog) lastLine() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// flush logs a last line that had no newline.
func (l *lineLog) flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	rest := strings.TrimRight(string(l.buf), "\r")
	l.buf = nil
	if strings.TrimSpace(rest) != "" {
		l.last = rest
	}
	l.mu.Unlock()
	if rest != "" {
		l.log.Info("MCP server stderr", "line", rest)
	}
}
