package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// side is what differs between the agent and the client end of a connection.
type side interface {
	// preempt handles a notification at once on the read goroutine and
	// reports whether it did. It must not block.
	preempt(req *jsonrpc2.Request) bool
	// arrive runs on the read goroutine for every queued message, before its
	// handler goroutine exists, so cancel functions are registered in time.
	arrive(req *jsonrpc2.Request, cancel context.CancelFunc)
	// route serves one message; it runs on a handler goroutine in arrival
	// order (see Release).
	route(ctx context.Context, req *jsonrpc2.Request) (any, error)
	// done runs on the handler goroutine after route returned.
	done(req *jsonrpc2.Request)
	// cancelOnEOF reports whether a request of method still being served
	// when the input ends is cancelled (long work: a prompt turn) rather
	// than left to finish (a quick request, whose reply a scripted client
	// still reads).
	cancelOnEOF(method string) bool
}

// conn is the machinery shared by [AgentConn] and [ClientConn]: ordered
// dispatch, cancellation of incoming requests, outgoing calls with
// $/cancel_request, and the response barrier.
type conn struct {
	rpc      *jsonrpc2.Conn
	log      *slog.Logger
	side     side
	ready    chan struct{} // closed once rpc is set
	barriers bool          // wait for earlier notifications before a call returns
	client   *Client       // agent side: the proxy put in handler contexts
	stream   *Stream       // for large params the stream kept out of jsonrpc2

	// tail is the "finished or released" channel of the last queued message.
	// Only the read goroutine (Handle, onRecv) touches it.
	tail chan struct{}

	mu       sync.Mutex                    // guards inflight, barrier, closing and wg.Add
	inflight map[jsonrpc2.ID]inflightReq   // incoming requests being served
	barrier  map[jsonrpc2.ID]chan struct{} // queue tail when our call's response arrived
	closing  bool                          // close started: no new handlers

	nextID atomic.Uint64
	wg     sync.WaitGroup // handler goroutines
}

// inflightReq is an incoming request being served.
type inflightReq struct {
	method string
	cancel context.CancelFunc
}

// reqState is the per-message state handlers reach through their context.
type reqState struct {
	release func()
	mu      sync.Mutex // guards after
	after   []func()
}

type stateKey struct{}

type clientKey struct{}

// ClientFrom returns the [Client] of the connection whose handler received
// ctx, or nil. Agents keep it with the sessions the request creates.
func ClientFrom(ctx context.Context) *Client {
	cl, _ := ctx.Value(clientKey{}).(*Client)
	return cl
}

// Release lets the next queued message start while the handler of ctx keeps
// running. Long handlers (a prompt turn) call it once they have registered
// what later messages depend on. It is safe to call more than once and a
// no-op outside a handler.
func Release(ctx context.Context) {
	if st, ok := ctx.Value(stateKey{}).(*reqState); ok {
		st.release()
	}
}

// AfterReply arranges for f to run after the reply to the request of ctx has
// been written and before the next queued message is handled (unless the
// handler released the queue). Agents use it for updates that must follow a
// response, such as available_commands_update after session/new.
func AfterReply(ctx context.Context, f func()) {
	if st, ok := ctx.Value(stateKey{}).(*reqState); ok {
		st.mu.Lock()
		st.after = append(st.after, f)
		st.mu.Unlock()
	}
}

func newConn(log *slog.Logger, s side, barriers bool) *conn {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tail := make(chan struct{})
	close(tail)
	return &conn{
		log:      log,
		side:     s,
		ready:    make(chan struct{}),
		barriers: barriers,
		tail:     tail,
		inflight: make(map[jsonrpc2.ID]inflightReq),
		barrier:  make(map[jsonrpc2.ID]chan struct{}),
	}
}

// start connects the stream; handlers may run before it returns but wait for
// ready before using c.rpc.
func (c *conn) start(ctx context.Context, stream *Stream) {
	stream.onEOF = c.drain
	c.stream = stream
	c.rpc = jsonrpc2.NewConn(ctx, stream, connHandler{c},
		jsonrpc2.SetLogger(slogPrintf{c.log}), jsonrpc2.OnRecv(c.onRecv))
	close(c.ready)
}

// The jsonrpc2 handler is set through this adapter so that the connection
// value passed to Handle is used (it exists before NewConn returns).
type connHandler struct{ c *conn }

func (h connHandler) Handle(ctx context.Context, rpc *jsonrpc2.Conn, req *jsonrpc2.Request) {
	h.c.handle(ctx, rpc, req)
}

// handle runs on the jsonrpc2 read goroutine: it never blocks.
func (c *conn) handle(ctx context.Context, rpc *jsonrpc2.Conn, req *jsonrpc2.Request) {
	huge := false
	if req.Params != nil {
		if p, ok := c.stream.unstash(*req.Params); ok {
			raw := json.RawMessage(p)
			req.Params = &raw
			huge = len(p) >= hugeParams
		}
	}
	if req.Method == "$/cancel_request" {
		c.cancelRequest(req)
		if !req.Notif {
			c.reply(ctx, req, nil, nil) // sent as a request: free its id
		}
		return
	}
	if req.Notif && c.side.preempt(req) {
		return
	}
	hctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		cancel()
		return
	}
	c.wg.Add(1) // under mu, so Close's Wait never races an Add
	if !req.Notif {
		c.inflight[req.ID] = inflightReq{method: req.Method, cancel: cancel}
	}
	c.mu.Unlock()
	c.side.arrive(req, cancel)

	prev := c.tail
	done := make(chan struct{})
	c.tail = done
	st := &reqState{release: sync.OnceFunc(func() { close(done) })}
	hctx = context.WithValue(hctx, stateKey{}, st)
	if c.client != nil {
		hctx = context.WithValue(hctx, clientKey{}, c.client)
	}

	go func() {
		defer c.wg.Done()
		if huge {
			defer freeOSMemory()
		}
		defer st.release()
		defer cancel()
		<-prev
		res, err := c.side.route(hctx, req)
		c.side.done(req)
		if req.Notif {
			if err != nil {
				c.log.Warn("notification failed", "method", req.Method, "error", err)
			}
			return
		}
		c.mu.Lock()
		delete(c.inflight, req.ID)
		c.mu.Unlock()
		out := context.WithoutCancel(hctx)
		if err != nil {
			if hctx.Err() != nil && errors.Is(err, context.Canceled) {
				err = &Error{Code: CodeRequestCancelled, Message: "Request cancelled"}
			}
			rerr := toRPCError(err)
			if rerr.Code == CodeInternalError {
				c.log.Error("request failed", "method", req.Method, "error", err)
			}
			c.reply(out, req, nil, rerr)
		} else {
			c.reply(out, req, res, nil)
		}
		st.mu.Lock()
		after := st.after
		st.after = nil
		st.mu.Unlock()
		for _, f := range after {
			f()
		}
	}()
}

// reply answers an incoming request through the stream, which writes the id
// exactly as the peer sent it.
func (c *conn) reply(_ context.Context, req *jsonrpc2.Request, res any, rerr *jsonrpc2.Error) {
	<-c.ready // a request answered at once may be handled before start set c.rpc
	select {
	case <-c.rpc.DisconnectNotify():
		c.stream.release(req.ID.Num)
		return
	default:
	}
	if err := c.stream.respond(req.ID, res, rerr); err != nil {
		c.log.Warn("write reply", "method", req.Method, "error", err)
	}
}

// hugeParams is the params size from which the memory a request used is
// handed back to the operating system once it has been answered: the Go
// runtime would otherwise keep the heap a 50 MB prompt grew (several times
// its size, in decoding and copies) for minutes.
const hugeParams = 16 << 20

// freeOSMemory returns freed heap to the operating system.
func freeOSMemory() { debug.FreeOSMemory() }

// drainTimeout bounds how long the end of input waits for handlers.
const drainTimeout = 500 * time.Millisecond

// drain runs on the read goroutine when the input ends: the peer is going
// away, so long work (prompt turns) is cancelled — a prompt then replies
// "cancelled" — while quick requests finish; the handlers get a short time
// to write their replies before the connection closes.
func (c *conn) drain() {
	c.mu.Lock()
	cancels := make([]context.CancelFunc, 0, len(c.inflight))
	for _, r := range c.inflight {
		if c.side.cancelOnEOF(r.method) {
			cancels = append(cancels, r.cancel)
		}
	}
	c.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		c.log.Warn("handlers still running when the input ended")
	}
}

// cancelRequest serves $/cancel_request: the request keeps its reply (the
// handler decides: a prompt answers "cancelled", others -32800).
func (c *conn) cancelRequest(req *jsonrpc2.Request) {
	if req.Params == nil {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(*req.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	id, ok := c.stream.inFlight(p.RequestID)
	if !ok {
		return
	}
	c.mu.Lock()
	r, ok := c.inflight[id]
	c.mu.Unlock()
	if ok {
		r.cancel()
	}
}

// onRecv runs on the read goroutine before a call's waiter is woken: it
// records how far the queue had got, for the response barrier.
func (c *conn) onRecv(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if resp == nil || req == nil || !c.barriers {
		return
	}
	c.mu.Lock()
	c.barrier[resp.ID] = c.tail
	c.mu.Unlock()
}

// call sends a request and waits for its result. When ctx ends first it sends
// $/cancel_request for it and returns ctx's error.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	<-c.ready
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	w, err := c.rpc.DispatchCall(context.WithoutCancel(ctx), method, params, jsonrpc2.PickID(id))
	if err != nil {
		if errors.Is(err, jsonrpc2.ErrClosed) {
			return ErrClosed
		}
		return fmt.Errorf("send %s: %w", method, err)
	}
	err = w.Wait(ctx, result)
	if ctxErr := ctx.Err(); ctxErr != nil && err != nil {
		c.mu.Lock()
		delete(c.barrier, id)
		c.mu.Unlock()
		_ = c.rpc.Notify(context.Background(), "$/cancel_request", map[string]any{"requestId": id})
		return ctxErr
	}
	c.waitBarrier(ctx, id)
	var rerr *jsonrpc2.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rerr):
		e := &Error{Code: int(rerr.Code), Message: rerr.Message}
		if rerr.Data != nil {
			var d any
			if json.Unmarshal(*rerr.Data, &d) == nil {
				e.Data = d
			}
		}
		return e
	case errors.Is(err, jsonrpc2.ErrClosed):
		return ErrClosed
	}
	return fmt.Errorf("%s: %w", method, err)
}

// waitBarrier waits until every message that arrived before the response to
// id has been handled (client side only).
func (c *conn) waitBarrier(ctx context.Context, id jsonrpc2.ID) {
	if !c.barriers {
		return
	}
	c.mu.Lock()
	ch := c.barrier[id]
	delete(c.barrier, id)
	c.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// notify sends a notification.
func (c *conn) notify(ctx context.Context, method string, params any) error {
	<-c.ready
	if err := c.rpc.Notify(ctx, method, params); err != nil {
		if errors.Is(err, jsonrpc2.ErrClosed) {
			return ErrClosed
		}
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return nil
}

// Done is closed when the peer disconnects or the connection is closed.
func (c *conn) Done() <-chan struct{} {
	<-c.ready
	return c.rpc.DisconnectNotify()
}

// close closes the connection and waits for every handler goroutine.
func (c *conn) close() error {
	<-c.ready
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	err := c.rpc.Close()
	c.wg.Wait()
	if errors.Is(err, jsonrpc2.ErrClosed) {
		return nil
	}
	return err
}

// wait waits for the connection to end and every handler to return.
func (c *conn) wait() {
	<-c.Done()
	c.wg.Wait()
}

// slogPrintf adapts a *slog.Logger to jsonrpc2's Logger.
type slogPrintf struct{ l *slog.Logger }

func (s slogPrintf) Printf(format string, v ...any) {
	s.l.Debug(fmt.Sprintf(format, v...), "component", "jsonrpc2")
}
