package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	s := fmt.Sprintf("agent error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " " + string(e.Data)
	}
	return s
}

// response is the agent's answer to one of our requests.
type response struct {
	at     time.Time // when its line was read
	result json.RawMessage
	err    *rpcError
}

// envelope is any JSON-RPC message.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// connStats counts what the agent sent besides responses.
type connStats struct {
	Updates       int            // session/update notifications
	UpdateBytes   int64          // their JSON text, in bytes, without the newlines
	MaxUpdate     int            // the largest one, in bytes (since resetMaxUpdate)
	ToolUpdates   int            // of which tool_call_update
	MessageChunks int            // of which agent_message_chunk
	Requests      map[string]int // agent requests by method
	BadLines      int            // stdout lines that are not JSON-RPC messages
	FirstBadLine  string
}

// conn is the benchmark's side of one ACP connection. One goroutine reads
// the agent's stdout, routes responses to waiting calls and answers the
// agent's own requests at once (permission: cancelled; anything else:
// method not found). It is safe for concurrent use. The read goroutine ends
// when the agent's stdout closes; the owner closes that reader and waits on
// [conn.Done].
type conn struct {
	wmu sync.Mutex // guards writes to w
	w   io.Writer

	mu       sync.Mutex // guards nextID, pending, stats, readErr, lastLine
	nextID   int64
	lastLine time.Time // when the last line was read
	pending  map[int64]chan response
	stats    connStats
	readErr  error

	// opts is fixed before the read goroutine starts.
	opts connOptions

	done chan struct{}
}

// connOptions changes how a conn treats the agent's messages.
type connOptions struct {
	// AllowPermissions answers session/request_permission with the first
	// allow_once option (else allow_always, else the first option) instead
	// of "cancelled".
	AllowPermissions bool
	// OnUpdate, when set, sees every session/update notification's params,
	// on the read goroutine; it must not keep the slice.
	OnUpdate func(params json.RawMessage)
}

// newConnOptions starts reading r (the agent's stdout) and writes to w
// (its stdin).
func newConnOptions(r io.Reader, w io.Writer, opts connOptions) *conn {
	c := &conn{w: w, pending: map[int64]chan response{}, stats: connStats{Requests: map[string]int{}}, opts: opts, done: make(chan struct{})}
	go c.readLoop(r)
	return c
}

// Done is closed when the read goroutine has ended.
func (c *conn) Done() <-chan struct{} { return c.done }

// Stats returns a copy of the counters.
func (c *conn) Stats() connStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Requests = make(map[string]int, len(c.stats.Requests))
	for k, v := range c.stats.Requests {
		s.Requests[k] = v
	}
	return s
}

// resetMaxUpdate starts a new measurement of the largest update.
func (c *conn) resetMaxUpdate() {
	c.mu.Lock()
	c.stats.MaxUpdate = 0
	c.mu.Unlock()
}

// call sends a request and waits for its response. It returns when the
// request was written. A JSON-RPC error answer is returned as an error
// wrapping *rpcError.
func (c *conn) call(ctx context.Context, method string, params any) (sent time.Time, resp response, err error) {
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	ch := make(chan response, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	p, err := json.Marshal(params)
	if err != nil {
		return time.Time{}, response{}, fmt.Errorf("%s: encode params: %w", method, err)
	}
	idJSON, _ := json.Marshal(id) // an int64 always encodes
	sent = time.Now()
	if err := c.write(envelope{JSONRPC: "2.0", ID: idJSON, Method: method, Params: p}); err != nil {
		return sent, response{}, fmt.Errorf("%s: write request: %w", method, err)
	}
	select {
	case resp = <-ch:
		if resp.err != nil {
			return sent, resp, fmt.Errorf("%s: %w", method, resp.err)
		}
		return sent, resp, nil
	case <-c.done:
		c.mu.Lock()
		rerr := c.readErr
		c.mu.Unlock()
		return sent, response{}, fmt.Errorf("%s: agent closed its output before replying (%v)", method, rerr)
	case <-ctx.Done():
		return sent, response{}, fmt.Errorf("%s: no reply: %w", method, context.Cause(ctx))
	}
}

func (c *conn) write(m envelope) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

func (c *conn) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		at := time.Now()
		if line = bytes.TrimSpace(line); len(line) > 0 {
			c.handle(line, at)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.mu.Lock()
			c.readErr = err
			c.mu.Unlock()
			return
		}
	}
}

// settle waits until the agent has sent nothing for quiet (work it does
// after a reply, such as the updates that follow session/new, is done), but
// at most 10×quiet.
func (c *conn) settle(quiet time.Duration) {
	if quiet <= 0 {
		return
	}
	deadline := time.Now().Add(10 * quiet)
	for {
		c.mu.Lock()
		since := time.Since(c.lastLine)
		c.mu.Unlock()
		if since >= quiet || time.Now().After(deadline) {
			return
		}
		time.Sleep(min(quiet-since, time.Until(deadline)))
	}
}

// handle routes one line read at time at.
func (c *conn) handle(line []byte, at time.Time) {
	c.mu.Lock()
	c.lastLine = at
	c.mu.Unlock()
	// The common message, a session/update notification, can be megabytes
	// long (a command's whole output): decode it in one pass that keeps no
	// copy of it.
	var peek struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &peek) == nil && peek.JSONRPC == "2.0" && peek.Method == "session/update" && !hasID(peek.ID) {
		c.countUpdate(line, peek.Params.Update.SessionUpdate)
		return
	}
	var m envelope
	if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
		c.mu.Lock()
		c.stats.BadLines++
		if c.stats.BadLines == 1 {
			c.stats.FirstBadLine = truncate(string(line), 200)
		}
		c.mu.Unlock()
		return
	}
	switch {
	case m.Method != "" && hasID(m.ID):
		c.mu.Lock()
		c.stats.Requests[m.Method]++
		c.mu.Unlock()
		c.answer(m)
	case m.Method != "":
		if m.Method == "session/update" {
			c.countUpdate(line, "") // params of an unexpected shape still count as an update
		}
	default:
		var id int64
		if err := json.Unmarshal(m.ID, &id); err != nil {
			return // not one of ours
		}
		c.mu.Lock()
		ch := c.pending[id]
		c.mu.Unlock()
		if ch != nil {
			ch <- response{at: at, result: m.Result, err: m.Error}
		}
	}
}

// hasID reports whether a message's id is present.
func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

// countUpdate counts one session/update notification (line) of the given
// kind and shows it to OnUpdate.
func (c *conn) countUpdate(line []byte, kind string) {
	c.mu.Lock()
	c.stats.Updates++
	c.stats.UpdateBytes += int64(len(line))
	c.stats.MaxUpdate = max(c.stats.MaxUpdate, len(line))
	switch kind {
	case "agent_message_chunk":
		c.stats.MessageChunks++
	case "tool_call_update":
		c.stats.ToolUpdates++
	}
	c.mu.Unlock()
	if c.opts.OnUpdate != nil {
		var m envelope
		if json.Unmarshal(line, &m) == nil {
			c.opts.OnUpdate(m.Params)
		}
	}
}

// answer replies to a request from the agent. The benchmark client
// advertises no capabilities, so only session/request_permission is
// answered with a result.
func (c *conn) answer(m envelope) {
	reply := envelope{JSONRPC: "2.0", ID: m.ID}
	if m.Method == "session/request_permission" {
		reply.Result = json.RawMessage(`{"outcome":{"outcome":"cancelled"}}`)
		if c.opts.AllowPermissions {
			if id := allowOption(m.Params); id != "" {
				reply.Result, _ = json.Marshal(map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": id}})
			}
		}
	} else {
		reply.Error = &rpcError{Code: -32601, Message: "method not found: " + m.Method + " (the benchmark client advertises no fs or terminal capability)"}
	}
	_ = c.write(reply) // a closed stdin shows up as the agent's next failure
}

// allowOption picks the option of a session/request_permission that allows
// once, else the one that allows always, else the first; "" when there is
// none.
func allowOption(params json.RawMessage) string {
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Options) == 0 {
		return ""
	}
	for _, kind := range []string{"allow_once", "allow_always"} {
		for _, o := range p.Options {
			if o.Kind == kind {
				return o.OptionID
			}
		}
	}
	return p.Options[0].OptionID
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
