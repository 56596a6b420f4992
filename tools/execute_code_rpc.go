package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// The tool calls of an execute_code script: one JSON line per call
// ({"tool", "args", "token"}, hermes's wire format), answered with one JSON
// line (the tool's result as a JSON string). On this machine they arrive
// on the script's Unix socket (rpcServer); on a terminal backend through
// its relay (execute_code_remote.go). Both answer with rpcCalls.

// rpcRequest is one call of the script (hermes's wire format).
type rpcRequest struct {
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args"`
	Token string          `json:"token"`
}

// rpcCalls answers one script's tool calls: the token, the tools the
// script may call and their number are checked, then the call runs
// through the session's pipeline (callTool) under the execute_code call
// parent. It is safe for concurrent use.
type rpcCalls struct {
	ctx      context.Context // the script's: ends its running calls
	token    string
	parent   string
	allowed  []string
	max      int
	callTool CallToolFunc
	count    atomic.Int64
}

// answer runs one request and returns the JSON text the stub decodes.
func (c *rpcCalls) answer(line []byte) string {
	var req rpcRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return errJSON("Invalid RPC request: " + err.Error())
	}
	if req.Token != c.token {
		return errJSON("Invalid RPC token")
	}
	if !slices.Contains(c.allowed, req.Tool) {
		return errJSON(fmt.Sprintf("Tool '%s' is not available in execute_code. Available: %s", req.Tool, strings.Join(c.allowed, ", ")))
	}
	if n := c.count.Add(1); n > int64(c.max) {
		c.count.Add(-1)
		return errJSON(fmt.Sprintf("Tool call limit reached (%d). No more tool calls allowed in this execution.", c.max))
	}
	if c.callTool == nil {
		return errJSON("Tool calls from scripts are not available in this session.")
	}
	args, err := scriptArgs(req.Tool, req.Args)
	if err != nil {
		return errJSON("Invalid arguments: " + err.Error())
	}
	out, err := c.callTool(c.ctx, c.parent, req.Tool, args)
	if err != nil {
		return errJSON(fmt.Sprintf("Tool execution failed: %v", err))
	}
	return out
}

// answerLine is answer as the line the stub reads: the answer as a JSON
// string, then a newline.
func (c *rpcCalls) answerLine(line []byte) []byte {
	b, _ := json.Marshal(c.answer(line))
	return append(b, '\n')
}

// made returns the number of tool calls served.
func (c *rpcCalls) made() int { return int(c.count.Load()) }

// scriptArgs drops the arguments a stub sends as None (the tool's default
// then applies) and, for terminal, anything that would leave the
// foreground (hermes's blocked terminal parameters).
func scriptArgs(tool string, raw json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
	}
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	if tool == terminalName {
		for _, k := range []string{"background", "pty", "notify_on_complete"} {
			delete(m, k)
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	return json.Marshal(m)
}

func errJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// refuseMsg is the answer to a connection from outside the script.
const refuseMsg = "Refused: this socket serves only the execute_code script that it was made for (and the processes it started)."

// scriptStart learns the script's process when it starts (its PID, 0 when
// the environment has none): the connections to the tools are checked
// against it.
type scriptStart struct {
	root    atomic.Int64
	started chan struct{} // closed when root is set (or the start failed)
	once    sync.Once
}

func newScriptStart() *scriptStart { return &scriptStart{started: make(chan struct{})} }

// set records the script's process (after its start, or its failure).
func (st *scriptStart) set(pid int) {
	st.once.Do(func() {
		st.root.Store(int64(pid))
		close(st.started)
	})
}

// wait returns the script's process once known; false when ctx ends first.
func (st *scriptStart) wait(ctx context.Context) (int, bool) {
	select {
	case <-st.started:
		return int(st.root.Load()), true
	case <-ctx.Done():
		return 0, false
	}
}

// scriptEnv starts the script in env and tells started its process (0
// when the start failed or the environment has no PID).
type scriptEnv struct {
	terminal.Environment
	started func(pid int)
}

func (e scriptEnv) Start(ctx context.Context, s terminal.Spec) (terminal.Process, error) {
	p, err := e.Environment.Start(ctx, s)
	pid := 0
	if err == nil {
		pid = p.PID()
	}
	e.started(pid)
	return p, err
}

// rpcServer serves one script's tool calls on its socket, on this machine.
// Where the system says who connected (Linux), it serves only the script's
// own processes: the script and what it started, not another session's
// processes nor anything else of the same user, whatever token they send.
type rpcServer struct {
	*rpcCalls
	*scriptStart
	path    string
	ln      net.Listener
	cancel  context.CancelFunc
	refused atomic.Int64 // connections from other processes

	wg     sync.WaitGroup
	mu     sync.Mutex // guards conns and closed
	conns  []net.Conn
	closed bool
	once   sync.Once
}

// startRPC listens on path and serves each connection in its own
// goroutine until close.
func startRPC(ctx context.Context, path, token, parent string, allowed []string, max int, callTool CallToolFunc) (*rpcServer, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &rpcServer{
		rpcCalls:    &rpcCalls{ctx: ctx, token: token, parent: parent, allowed: allowed, max: max, callTool: callTool},
		scriptStart: newScriptStart(),
		path:        path, ln: ln, cancel: cancel,
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				_ = c.Close()
				return
			}
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c)
			}()
		}
	}()
	return s, nil
}

// allowed reports whether connection c comes from the script's processes
// (always, where the system cannot say).
func (s *rpcServer) allowedPeer(c net.Conn) bool {
	if !peerCheck {
		return true
	}
	pid, err := peerPID(c)
	if err != nil {
		return false
	}
	root, ok := s.wait(s.ctx)
	if !ok {
		return false
	}
	yes, err := descendantOf(pid, root)
	return err == nil && yes
}

// serve answers the requests of one connection, one line each; a
// connection from outside the script gets one refusal and is closed.
func (s *rpcServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	if !s.allowedPeer(c) {
		// Answer its first request (read within bounds) with the
		// refusal, so that it learns why, then hang up.
		s.refused.Add(1)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.Copy(io.Discard, io.LimitReader(&lineReader{r: r}, 1<<20))
		b, _ := json.Marshal(errJSON(refuseMsg))
		_, _ = c.Write(append(b, '\n'))
		return
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		if _, err := c.Write(s.answerLine(line)); err != nil {
			return
		}
	}
}

// lineReader reads r up to and including its first newline.
type lineReader struct {
	r    *bufio.Reader
	done bool
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		b, err := l.r.ReadByte()
		if err != nil {
			return n, err
		}
		p[n] = b
		n++
		if b == '\n' {
			l.done = true
			break
		}
	}
	return n, nil
}

// close stops listening, ends the running calls and the connections, and
// waits for the goroutines.
func (s *rpcServer) close() {
	s.once.Do(func() {
		s.cancel()
		_ = s.ln.Close()
		s.mu.Lock()
		s.closed = true
		for _, c := range s.conns {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
}
