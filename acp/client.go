package acp

import (
	"context"
	"sync/atomic"
)

// Client is the agent's typed proxy for the methods the editor serves. It
// refuses, with [ErrNotAdvertised] and without sending anything, to call a
// method the client did not advertise in initialize. It is safe for
// concurrent use.
type Client struct {
	c    *conn
	caps atomic.Pointer[ClientCapabilities]
}

func (cl *Client) setCaps(c ClientCapabilities) { cl.caps.Store(&c) }

// Capabilities returns what the client advertised (zero before initialize).
func (cl *Client) Capabilities() ClientCapabilities {
	if p := cl.caps.Load(); p != nil {
		return *p
	}
	return ClientCapabilities{}
}

// SessionUpdate sends a session/update notification; ctx bounds the write.
// The final updates of a cancelled turn must still be sent, so an agent
// passes a context that a turn's cancellation does not end (its session's
// sender does).
func (cl *Client) SessionUpdate(ctx context.Context, sessionID string, u SessionUpdate) error {
	return cl.c.notify(ctx, "session/update", &SessionNotification{SessionID: sessionID, Update: u})
}

// Notify sends an extension notification such as [MethodPublishDiagnostics].
// A _hermes/* notification goes only to a client that asked for our
// extension ([WantsHermesExtension]); to any other it returns
// [ErrNotAdvertised] and sends nothing.
func (cl *Client) Notify(method string, params any) error {
	if isHermesMethod(method) && !WantsHermesExtension(cl.Capabilities()) {
		return ErrNotAdvertised
	}
	return cl.c.notify(context.Background(), method, params)
}

// RequestPermission asks the user to approve a tool call. When ctx ends first
// it sends $/cancel_request and returns ctx's error.
func (cl *Client) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	var res RequestPermissionResponse
	if err := cl.c.call(ctx, "session/request_permission", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ReadTextFile reads a file as the editor sees it, unsaved changes included.
func (cl *Client) ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (*ReadTextFileResponse, error) {
	if !cl.Capabilities().FS.ReadTextFile {
		return nil, ErrNotAdvertised
	}
	var res ReadTextFileResponse
	if err := cl.c.call(ctx, "fs/read_text_file", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// WriteTextFile writes a file through the editor.
func (cl *Client) WriteTextFile(ctx context.Context, req *WriteTextFileRequest) error {
	if !cl.Capabilities().FS.WriteTextFile {
		return ErrNotAdvertised
	}
	var res any
	return cl.c.call(ctx, "fs/write_text_file", req, &res)
}

// CreateTerminal starts a command in an editor terminal.
func (cl *Client) CreateTerminal(ctx context.Context, req *CreateTerminalRequest) (*CreateTerminalResponse, error) {
	if !cl.Capabilities().Terminal {
		return nil, ErrNotAdvertised
	}
	var res CreateTerminalResponse
	if err := cl.c.call(ctx, "terminal/create", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// TerminalOutput returns a terminal's output so far.
func (cl *Client) TerminalOutput(ctx context.Context, req *TerminalRequest) (*TerminalOutputResponse, error) {
	if !cl.Capabilities().Terminal {
		return nil, ErrNotAdvertised
	}
	var res TerminalOutputResponse
	if err := cl.c.call(ctx, "terminal/output", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// WaitForTerminalExit waits for a terminal's command to end.
func (cl *Client) WaitForTerminalExit(ctx context.Context, req *TerminalRequest) (*TerminalExitStatus, error) {
	if !cl.Capabilities().Terminal {
		return nil, ErrNotAdvertised
	}
	var res TerminalExitStatus
	if err := cl.c.call(ctx, "terminal/wait_for_exit", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// KillTerminal kills a terminal's command; the terminal stays valid.
func (cl *Client) KillTerminal(ctx context.Context, req *TerminalRequest) error {
	if !cl.Capabilities().Terminal {
		return ErrNotAdvertised
	}
	var res any
	return cl.c.call(ctx, "terminal/kill", req, &res)
}

// ReleaseTerminal frees a terminal (killing its command if it still runs).
func (cl *Client) ReleaseTerminal(ctx context.Context, req *TerminalRequest) error {
	if !cl.Capabilities().Terminal {
		return ErrNotAdvertised
	}
	var res any
	return cl.c.call(ctx, "terminal/release", req, &res)
}
