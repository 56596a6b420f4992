// Package acptest provides a fake editor for protocol tests: an ACP client on
// an in-memory pipe with scripted answers to
// permission and fs requests, a record of everything the agent sent, and
// helpers that wait for an expected update instead of sleeping.
package acptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// Options configures an [Editor]. The zero value is a client without fs or
// terminal support that allows every permission request once.
type Options struct {
	Capabilities acp.ClientCapabilities
	// Permission answers session/request_permission. Nil selects the first
	// allow_once option.
	Permission func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome
	// Elicitation answers elicitation/create (the client must advertise
	// Capabilities.Elicitation). Nil declines every form.
	Elicitation func(ctx context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error)
	// Tap sees every line, in each direction, as it crosses the pipe.
	Tap func(fromAgent bool, line []byte)
	// Log receives connection diagnostics; nil discards them.
	Log *slog.Logger
	// Stall, when it reports true for a method, leaves those requests
	// unanswered until the agent cancels them (an editor that hangs).
	Stall func(method string) bool
	// Refuse, when it returns an error for a method, answers those
	// requests with it (an editor that refuses: a policy, a closed buffer,
	// a handler that threw).
	Refuse func(method string) *acp.Error
}

// Notification is an extension notification the agent sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Editor is a fake ACP client. It is safe for concurrent use.
type Editor struct {
	*acp.ClientConn
	opts Options

	mu          sync.Mutex // guards the fields below
	updates     []acp.SessionNotification
	ext         []Notification
	permissions []acp.RequestPermissionRequest
	elicits     []acp.CreateElicitationRequest
	reads       []acp.ReadTextFileRequest
	writes      []acp.WriteTextFileRequest
	buffers     map[string]string // editor buffers by absolute path (unsaved text)
	changed     chan struct{}     // closed and replaced whenever a record is added
	terms       map[string]*fakeTerminal
	termCalls   []TerminalCall
	refused     []string // methods of the requests Options.Refuse answered
}

// New connects a fake editor to agent over an in-memory pipe. The connection
// is closed when the test ends.
func New(t testing.TB, agent acp.Agent, opts Options) *Editor {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	as := acp.NewStream(agentIn, &acp.LineTap{W: agentOut, FromAgent: true, Tap: opts.Tap}, agentIn, acp.StreamOptions{Log: opts.Log})
	ac := acp.NewAgentConn(ctx, as, agent, acp.ConnOptions{Log: opts.Log})
	e := start(ctx, clientIn, &acp.LineTap{W: clientOut, Tap: opts.Tap}, clientIn, opts)
	t.Cleanup(func() {
		cancel()
		e.closeTerminals()
		_ = e.Close()
		_ = clientOut.Close()
		_ = agentOut.Close()
		_ = ac.Close()
	})
	return e
}

func start(ctx context.Context, r io.Reader, w io.Writer, c io.Closer, opts Options) *Editor {
	e := &Editor{opts: opts, buffers: map[string]string{}, changed: make(chan struct{})}
	s := acp.NewStream(r, w, c, acp.StreamOptions{Log: opts.Log})
	e.ClientConn = acp.NewClientConn(ctx, s, e, acp.ConnOptions{Log: opts.Log})
	return e
}

// Initialize sends initialize with the editor's capabilities.
func (e *Editor) Init(ctx context.Context) (*acp.InitializeResponse, error) {
	return e.Initialize(ctx, &acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: e.opts.Capabilities,
		ClientInfo:         &acp.Implementation{Name: "acptest", Version: "0.0.0"},
	})
}

// NewSessionAt opens a session on cwd.
func (e *Editor) NewSessionAt(ctx context.Context, cwd string) (*acp.NewSessionResponse, error) {
	return e.NewSession(ctx, &acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
}

// PromptText sends a text prompt and waits for the turn to end.
func (e *Editor) PromptText(ctx context.Context, sessionID, text string) (acp.StopReason, error) {
	res, err := e.Prompt(ctx, &acp.PromptRequest{SessionID: sessionID, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		return "", err
	}
	return res.StopReason, nil
}

// SetBuffer puts text in an editor buffer: fs/read_text_file returns it
// instead of the file on disk (an unsaved change).
func (e *Editor) SetBuffer(path, text string) {
	e.mu.Lock()
	e.buffers[path] = text
	e.mu.Unlock()
}

// Buffer returns the editor's buffer for path and whether it has one.
func (e *Editor) Buffer(path string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.buffers[path]
	return s, ok
}

// HandleRequest serves the agent's requests.
func (e *Editor) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if e.opts.Stall != nil && e.opts.Stall(method) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if e.opts.Refuse != nil {
		if rerr := e.opts.Refuse(method); rerr != nil {
			e.record(func() { e.refused = append(e.refused, method) })
			return nil, rerr
		}
	}
	if res, err, ok := e.handleTerminal(ctx, method, params); ok {
		return res, err
	}
	switch method {
	case "session/request_permission":
		var req acp.RequestPermissionRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		e.record(func() { e.permissions = append(e.permissions, req) })
		var out acp.PermissionOutcome
		if e.opts.Permission != nil {
			out = e.opts.Permission(ctx, &req)
		} else {
			out = acp.PermissionOutcome{Cancelled: true}
			for _, o := range req.Options {
				if o.Kind == acp.AllowOnce {
					out = acp.PermissionOutcome{OptionID: o.OptionID}
					break
				}
			}
		}
		return &acp.RequestPermissionResponse{Outcome: out}, nil
	case "elicitation/create":
		if !e.opts.Capabilities.FormElicitation() {
			return nil, acp.MethodNotFound(method)
		}
		var req acp.CreateElicitationRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		e.record(func() { e.elicits = append(e.elicits, req) })
		if e.opts.Elicitation == nil {
			return &acp.CreateElicitationResponse{Action: acp.ElicitationDecline}, nil
		}
		return e.opts.Elicitation(ctx, &req)
	case "fs/read_text_file":
		if !e.opts.Capabilities.FS.ReadTextFile {
			return nil, acp.MethodNotFound(method)
		}
		var req acp.ReadTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		e.record(func() { e.reads = append(e.reads, req) })
		text, ok := e.Buffer(req.Path)
		if !ok {
			b, err := os.ReadFile(req.Path)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return nil, &acp.Error{Code: acp.CodeResourceNotFound, Message: "Resource not found: " + req.Path, Data: map[string]any{"uri": "file://" + req.Path}}
				}
				return nil, &acp.Error{Code: acp.CodeInternalError, Message: err.Error()}
			}
			text = string(b)
		}
		return &acp.ReadTextFileResponse{Content: acp.SelectLines(text, req.Line, req.Limit)}, nil
	case "fs/write_text_file":
		if !e.opts.Capabilities.FS.WriteTextFile {
			return nil, acp.MethodNotFound(method)
		}
		var req acp.WriteTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		e.record(func() {
			e.writes = append(e.writes, req)
			e.buffers[req.Path] = req.Content
		})
		return &acp.Empty{}, nil
	}
	return nil, acp.MethodNotFound(method)
}

// HandleNotification records the agent's notifications.
func (e *Editor) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method == "session/update" {
		var n acp.SessionNotification
		if err := json.Unmarshal(params, &n); err != nil {
			e.record(func() {
				e.ext = append(e.ext, Notification{Method: "!invalid session/update: " + err.Error(), Params: params})
			})
			return
		}
		e.record(func() { e.updates = append(e.updates, n) })
		return
	}
	e.record(func() {
		e.ext = append(e.ext, Notification{Method: method, Params: append(json.RawMessage(nil), params...)})
	})
}

func (e *Editor) record(f func()) {
	e.mu.Lock()
	f()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// Updates returns the session/update notifications received for sessionID
// ("" for all), in order.
func (e *Editor) Updates(sessionID string) []acp.SessionNotification {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []acp.SessionNotification
	for _, u := range e.updates {
		if sessionID == "" || u.SessionID == sessionID {
			out = append(out, u)
		}
	}
	return out
}

// Extensions returns the extension notifications received, in order.
func (e *Editor) Extensions() []Notification {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Notification(nil), e.ext...)
}

// Permissions returns the permission requests received, in order.
func (e *Editor) Permissions() []acp.RequestPermissionRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.RequestPermissionRequest(nil), e.permissions...)
}

// Elicitations returns the elicitation/create requests the agent sent, in
// order.
func (e *Editor) Elicitations() []acp.CreateElicitationRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.CreateElicitationRequest(nil), e.elicits...)
}

// Writes returns the fs/write_text_file requests received, in order.
func (e *Editor) Writes() []acp.WriteTextFileRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.WriteTextFileRequest(nil), e.writes...)
}

// Refused returns the methods of the requests answered with
// Options.Refuse's error, in order.
func (e *Editor) Refused() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.refused...)
}

// Reads returns the fs/read_text_file requests received, in order.
func (e *Editor) Reads() []acp.ReadTextFileRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.ReadTextFileRequest(nil), e.reads...)
}

// Text returns the concatenated agent_message_chunk text of sessionID.
func (e *Editor) Text(sessionID string) string {
	return chunkText(e.Updates(sessionID), func(u acp.SessionUpdate) *acp.ContentChunk { return u.AgentMessageChunk })
}

// Thoughts returns the concatenated agent_thought_chunk text of sessionID.
func (e *Editor) Thoughts(sessionID string) string {
	return chunkText(e.Updates(sessionID), func(u acp.SessionUpdate) *acp.ContentChunk { return u.AgentThoughtChunk })
}

func chunkText(us []acp.SessionNotification, pick func(acp.SessionUpdate) *acp.ContentChunk) string {
	var b strings.Builder
	for _, u := range us {
		if c := pick(u.Update); c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// WaitFor waits until cond, called with the editor locked-free snapshot
// functions, reports true, or ctx ends.
func (e *Editor) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("acptest: condition not met: %w", ctx.Err())
		}
	}
}

// WaitUpdate waits for an update of sessionID satisfying match and returns it.
func (e *Editor) WaitUpdate(ctx context.Context, sessionID string, match func(acp.SessionUpdate) bool) (acp.SessionUpdate, error) {
	var found acp.SessionUpdate
	err := e.WaitFor(ctx, func() bool {
		for _, u := range e.Updates(sessionID) {
			if match(u.Update) {
				found = u.Update
				return true
			}
		}
		return false
	})
	return found, err
}
