package acp

import (
	"context"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"
)

// ClientHandler serves what an agent sends to a client. HandleRequest returns
// the result of session/request_permission, fs/* and terminal/* (and any
// extension request); an error may wrap *[Error]. HandleNotification receives
// session/update and extension notifications, one at a time in arrival order.
type ClientHandler interface {
	HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error)
	HandleNotification(ctx context.Context, method string, params json.RawMessage)
}

// ClientConn is the client end of an ACP connection, used by the headless
// client and by tests. Every notification that arrived before the response to
// a call has been handled when the call returns, so a prompt's updates are all
// seen before its result. It is safe for concurrent use.
type ClientConn struct {
	*conn
	h ClientHandler
}

// NewClientConn starts a client connection on stream.
func NewClientConn(ctx context.Context, stream *Stream, h ClientHandler, opts ConnOptions) *ClientConn {
	c := &ClientConn{h: h}
	c.conn = newConn(opts.Log, c, true)
	c.conn.start(ctx, stream)
	return c
}

func (c *ClientConn) preempt(*jsonrpc2.Request) bool               { return false }
func (c *ClientConn) arrive(*jsonrpc2.Request, context.CancelFunc) {}
func (c *ClientConn) done(*jsonrpc2.Request)                       {}
func (c *ClientConn) cancelOnEOF(string) bool                      { return true }

func (c *ClientConn) route(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		c.h.HandleNotification(ctx, req.Method, params)
		return nil, nil
	}
	// Requests to the client may block on the user (permission); let later
	// messages, such as the updates of the same turn, proceed meanwhile.
	Release(ctx)
	return c.h.HandleRequest(ctx, req.Method, params)
}

// Call sends a request to the agent and decodes its result into result.
func (c *ClientConn) Call(ctx context.Context, method string, params, result any) error {
	return c.conn.call(ctx, method, params, result)
}

// Notify sends a notification to the agent.
func (c *ClientConn) Notify(method string, params any) error {
	return c.conn.notify(context.Background(), method, params)
}

// Close closes the connection and waits for every handler to return.
func (c *ClientConn) Close() error { return c.conn.close() }

// Initialize sends initialize.
func (c *ClientConn) Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
	var res InitializeResponse
	return &res, c.Call(ctx, "initialize", req, &res)
}

// NewSession sends session/new.
func (c *ClientConn) NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error) {
	var res NewSessionResponse
	return &res, c.Call(ctx, "session/new", req, &res)
}

// Prompt sends session/prompt and waits for the turn to end.
func (c *ClientConn) Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	var res PromptResponse
	return &res, c.Call(ctx, "session/prompt", req, &res)
}

// Cancel sends session/cancel.
func (c *ClientConn) Cancel(sessionID string) error {
	return c.Notify("session/cancel", &SessionRequest{SessionID: sessionID})
}
