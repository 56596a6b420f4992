package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/registry"
)

// Timing.
const (
	// startTimeout bounds starting one MCP server: spawning or dialling
	// it, the initialize handshake and the first tools/list. It also bounds
	// each later tools/list.
	startTimeout = 30 * time.Second
	// settleTimeout bounds how long [Set.Settle] waits, counted from
	// [New], for the servers to start.
	settleTimeout = 30 * time.Second
	// stopGrace is how long a stdio server has to exit after its stdin
	// closes before it gets SIGTERM (and as long again before SIGKILL); it
	// also bounds the session DELETE an HTTP server gets on close.
	stopGrace = 300 * time.Millisecond
)

// errNotConnected reports a server whose connection is gone.
var errNotConnected = errors.New("not connected")

// Options configures a [Set].
type Options struct {
	// Servers to connect. A later server replaces an earlier one of the
	// same name in place (so configured servers followed by a request's
	// servers let the request win).
	Servers []Server
	// Registry receives the servers' tools, in toolset mcp-<server>, and
	// an alias <server> for that toolset; it must not be nil.
	Registry *registry.Registry
	// IsStaticToolset reports the toolset names a server's alias must not
	// take (built-in and legacy toolsets); nil means none.
	IsStaticToolset func(name string) bool
	// Dir is the working directory of stdio servers.
	Dir string
	// Version is the client version reported to the servers.
	Version string
	// Notify tells the user about a server that failed to start, stopped or
	// was reconnected; it may be called from any goroutine of the set. Nil
	// drops these messages (they are logged too).
	Notify func(text string)
	// Log receives the set's log lines and the servers' stderr; nil
	// discards them.
	Log *slog.Logger
}

// Set owns the MCP server connections of one session: it starts them in
// the background, registers their tools in the registry, follows the
// servers' tool list changes, and on close ends every connection (stdio
// servers exit) and removes the tools. The owner calls Close when the
// session ends. Its methods are safe for concurrent use; a nil *Set has no
// servers.
type Set struct {
	opts    Options
	log     *slog.Logger
	ctx     context.Context // the set's lifetime, cancelled by Close
	cancel  context.CancelFunc
	started time.Time
	settled chan struct{}  // closed when every server's first start has ended
	wg      sync.WaitGroup // the set's goroutines; Add only under mu while !closed

	regMu    sync.Mutex       // guards reserved and every conn's names
	reserved map[string]*conn // registry names taken by the set's tools

	mu     sync.Mutex // guards the fields below and every conn's cs, stopConn, refreshing, again, restarted
	conns  []*conn
	closed bool
	spawn  *spawner // starts stdio servers; nil until the first one
}

// conn is one server of a [Set].
type conn struct {
	set     *Set
	server  Server
	toolset string
	stderr  *lineLog // the stdio server's stderr; nil for HTTP servers

	names map[string]string // MCP tool name → registry name; guarded by set.regMu

	// Guarded by set.mu.
	cs         *mcpsdk.ClientSession // nil until connected and after it ends
	stopConn   context.CancelFunc    // ends the connection's context (the SSE stream)
	refreshing bool                  // a tools/list is running
	again      bool                  // the list changed again while it ran
	restarted  bool                  // the one reconnect after a drop was used
}

// New prepares the servers of opts. It returns nil when there are none.
// Nothing runs until [Set.Start]; the owner calls [Set.Close].
func New(opts Options) *Set {
	servers := dedupe(opts.Servers)
	if len(servers) == 0 {
		return nil
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Set{
		opts: opts, log: log, ctx: ctx, cancel: cancel,
		started: time.Now(), settled: make(chan struct{}), reserved: map[string]*conn{},
	}
	for _, srv := range servers {
		m.conns = append(m.conns, &conn{set: m, server: srv, toolset: "mcp-" + srv.Name})
	}
	return m
}

// dedupe lists servers with a later server replacing an earlier one of the
// same name in place.
func dedupe(servers []Server) []Server {
	var out []Server
	at := map[string]int{}
	for _, srv := range servers {
		if i, ok := at[srv.Name]; ok {
			out[i] = srv
			continue
		}
		at[srv.Name] = len(out)
		out = append(out, srv)
	}
	return out
}

// spawner returns the set's process starter, or nil once the set closed.
func (m *Set) spawner() *spawner {
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

// Start connects every server in the background.
func (m *Set) Start() {
	if m == nil {
		return
	}
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

// Settle waits until the servers' first start has ended, ctx is done, or
// 30 seconds have passed since [New], so that a session's first prompt sees
// their tools.
func (m *Set) Settle(ctx context.Context) {
	if m == nil {
		return
	}
	select {
	case <-m.settled:
		return
	default:
	}
	wait := time.Until(m.started.Add(settleTimeout))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-m.settled:
	case <-ctx.Done():
	case <-t.C:
		m.log.Warn("MCP servers still starting; the prompt goes on without them", "waited", settleTimeout)
	}
}

// tell passes a message for the user to Options.Notify.
func (m *Set) tell(text string) {
	if m.opts.Notify != nil {
		m.opts.Notify(text)
	}
}

// Close ends every connection (a stdio server is waited for: it exits or
// is killed), waits for the set's goroutines and removes the tools.
func (m *Set) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	var sessions []*mcpsdk.ClientSession
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
func (c *conn) start() {
	m := c.set
	err := c.connect()
	if err == nil || m.ctx.Err() != nil {
		return // started, or the set closed meanwhile
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
func (c *conn) connect() error {
	m := c.set
	if c.server.Name == "" {
		return errors.New("the server has no name")
	}
	transport, err := c.transport()
	if err != nil {
		return err
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "hermes-acp", Version: m.opts.Version}, &mcpsdk.ClientOptions{
		Logger:                 m.log.With("server", c.server.Name),
		Capabilities:           &mcpsdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { c.refreshSoon() },
	})
	deadline := time.Now().Add(startTimeout)
	// The connection's context lives as long as the connection (the SSE
	// transport ties its event stream to it); a timer bounds the handshake.
	connCtx, stopConn := context.WithCancel(m.ctx)
	timer := time.AfterFunc(startTimeout, stopConn)
	cs, err := client.Connect(connCtx, transport, nil)
	timedOut := !timer.Stop()
	if err == nil && timedOut {
		_ = cs.Close()
	}
	if err != nil || timedOut {
		stopConn()
		if timedOut {
			return fmt.Errorf("no answer within %s", startTimeout)
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
			return fmt.Errorf("no answer within %s", startTimeout)
		}
		return fmt.Errorf("listing its tools: %w", err)
	}
	c.refreshed(true)
	return nil
}

// watch starts following the connection so that a server that goes away
// is reported and its tools removed.
func (c *conn) watch(cs *mcpsdk.ClientSession) error {
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

// restart reconnects a server that dropped, once per set, and tells the
// user how it went.
func (c *conn) restart() {
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

// session returns the live connection, or nil.
func (c *conn) session() *mcpsdk.ClientSession {
	c.set.mu.Lock()
	defer c.set.mu.Unlock()
	return c.cs
}

// transport builds the SDK transport for the server.
func (c *conn) transport() (mcpsdk.Transport, error) {
	srv := c.server
	switch srv.Transport {
	case "", TransportStdio:
		if srv.Command == "" {
			return nil, errors.New("no command given")
		}
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Dir = c.set.opts.Dir
		cmd.Env = stdioEnv(os.Environ(), srv.Env)
		log := c.set.log.With("server", srv.Name)
		c.stderr = &lineLog{log: log}
		cmd.Stderr = c.stderr
		cmd.WaitDelay = stopGrace // a grandchild holding stderr open cannot stall the exit
		spawn := c.set.spawner()
		if spawn == nil {
			return nil, errNotConnected
		}
		return &stdioTransport{cmd: cmd, spawn: spawn, grace: stopGrace, max: maxMessage, log: log}, nil
	case TransportHTTP, TransportSSE:
		u, err := url.Parse(srv.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("url %q is not an http(s) URL", srv.URL)
		}
		client := &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: srv.Headers}}
		if srv.Transport == TransportSSE {
			return &mcpsdk.SSEClientTransport{Endpoint: srv.URL, HTTPClient: client}, nil
		}
		return &mcpsdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client}, nil
	}
	return nil, fmt.Errorf("unknown MCP transport %q", srv.Transport)
}

// refreshSoon re-lists the tools in the background after the server
// announced a change; changes during a listing cause one more.
func (c *conn) refreshSoon() {
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
func (c *conn) refreshLoop() {
	m := c.set
	for {
		ctx, cancel := context.WithTimeout(m.ctx, startTimeout)
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
func (c *conn) refreshed(background bool) (again bool) {
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
func (c *conn) refresh(ctx context.Context) error {
	cs := c.session()
	if cs == nil {
		return errNotConnected
	}
	var tools []*mcpsdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		tools = append(tools, t)
	}
	c.apply(tools)
	return nil
}
