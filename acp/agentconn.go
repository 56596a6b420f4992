package acp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Agent is what the protocol needs from an agent. Methods run on handler
// goroutines in arrival order; a long method (Prompt) calls [Release] once it
// has registered its turn. Errors may wrap *[Error] to pick a JSON-RPC code;
// context.Canceled becomes -32800.
type Agent interface {
	Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error)
	Authenticate(ctx context.Context, req *AuthenticateRequest) (*Empty, error)
	NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error)
	LoadSession(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error)
	ResumeSession(ctx context.Context, req *ResumeSessionRequest) (*LoadSessionResponse, error)
	ListSessions(ctx context.Context, req *ListSessionsRequest) (*ListSessionsResponse, error)
	CloseSession(ctx context.Context, req *SessionRequest) (*Empty, error)
	DeleteSession(ctx context.Context, req *SessionRequest) (*Empty, error)
	SetSessionMode(ctx context.Context, req *SetSessionModeRequest) (*Empty, error)
	SetSessionConfigOption(ctx context.Context, req *SetSessionConfigOptionRequest) (*SetSessionConfigOptionResponse, error)
	// Prompt runs a turn. Its ctx is cancelled by session/cancel (and by
	// $/cancel_request for this request), which the connection registers
	// before Prompt starts; Prompt then replies with stopReason "cancelled".
	Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error)
	// Cancel is called on the read goroutine when session/cancel arrives,
	// after the contexts of that session's prompts were cancelled. It must
	// not block.
	Cancel(sessionID string)
}

// Forker is an [Agent] that serves the unstable session/fork (advertised
// in sessionCapabilities.fork); the result has session/new's shape.
type Forker interface {
	ForkSession(ctx context.Context, req *ForkSessionRequest) (*NewSessionResponse, error)
}

// ConnOptions configures an [AgentConn] or a [ClientConn].
type ConnOptions struct {
	Stream StreamOptions
	Log    *slog.Logger
}

// AgentConn is the agent end of an ACP connection. It routes the client's
// requests to an [Agent] and offers the client's methods through [Client].
// It is safe for concurrent use; call Close (or wait for Done) and then the
// handlers have all returned.
type AgentConn struct {
	*conn
	agent  Agent
	client *Client

	initialized atomic.Bool

	pmu     sync.Mutex                                    // guards prompts
	prompts map[string]map[jsonrpc2.ID]context.CancelFunc // session id → running or queued prompts
}

// NewAgentConn starts serving agent on stream. Requests may be handled
// before it returns. ctx bounds the connection's lifetime.
func NewAgentConn(ctx context.Context, stream *Stream, agent Agent, opts ConnOptions) *AgentConn {
	a := &AgentConn{agent: agent, prompts: make(map[string]map[jsonrpc2.ID]context.CancelFunc)}
	a.conn = newConn(opts.Log, a, false)
	a.client = &Client{c: a.conn}
	a.conn.client = a.client
	a.conn.start(ctx, stream)
	return a
}

// Client returns the typed proxy for the client's methods.
func (a *AgentConn) Client() *Client { return a.client }

// Close closes the connection and waits for every handler to return.
func (a *AgentConn) Close() error { return a.conn.close() }

// Wait blocks until the client disconnects and every handler has returned.
func (a *AgentConn) Wait() { a.conn.wait() }

func (a *AgentConn) preempt(req *jsonrpc2.Request) bool {
	if req.Method != "session/cancel" {
		return false
	}
	if !a.initialized.Load() || req.Params == nil {
		return true
	}
	var p SessionRequest
	if json.Unmarshal(*req.Params, &p) != nil || p.SessionID == "" {
		return true
	}
	a.cancelPrompts(p.SessionID)
	a.agent.Cancel(p.SessionID)
	return true
}

func (a *AgentConn) cancelPrompts(sessionID string) {
	a.pmu.Lock()
	cancels := make([]context.CancelFunc, 0, len(a.prompts[sessionID]))
	for _, c := range a.prompts[sessionID] {
		cancels = append(cancels, c)
	}
	a.pmu.Unlock()
	for _, c := range cancels {
		c()
	}
}

func (a *AgentConn) arrive(req *jsonrpc2.Request, cancel context.CancelFunc) {
	if req.Method != "session/prompt" || req.Notif || req.Params == nil {
		return
	}
	sid := promptSessionID(*req.Params)
	if sid == "" {
		return
	}
	a.pmu.Lock()
	m := a.prompts[sid]
	if m == nil {
		m = make(map[jsonrpc2.ID]context.CancelFunc)
		a.prompts[sid] = m
	}
	m[req.ID] = cancel
	a.pmu.Unlock()
}

// promptSessionID finds the top-level sessionId of prompt params without
// decoding or copying the (possibly huge) prompt: one pass over the bytes
// that follows strings and nesting, stopping at the key.
func promptSessionID(params []byte) string {
	depth := 0
	keyPos := false // at depth 1, the next string is a key
	for i := 0; i < len(params); i++ {
		switch c := params[i]; c {
		case '"':
			end := stringEnd(params, i)
			if end < 0 {
				return ""
			}
			if depth == 1 && keyPos {
				keyPos = false
				if string(params[i:end+1]) == `"sessionId"` {
					return stringAfterColon(params[end+1:])
				}
			}
			i = end
		case '{', '[':
			depth++
			keyPos = depth == 1 && c == '{'
		case '}', ']':
			depth--
		case ',':
			keyPos = depth == 1
		}
	}
	return ""
}

// stringEnd returns the index of the quote closing the JSON string that
// starts at b[start], or -1.
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// stringAfterColon decodes the JSON string value after a key (": value").
func stringAfterColon(b []byte) string {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == ':') {
		i++
	}
	if i >= len(b) || b[i] != '"' {
		return ""
	}
	end := stringEnd(b, i)
	if end < 0 {
		return ""
	}
	var s string
	if json.Unmarshal(b[i:end+1], &s) != nil {
		return ""
	}
	return s
}

// cancelOnEOF: prompt turns end when the client goes away; everything else
// is answered.
func (a *AgentConn) cancelOnEOF(method string) bool { return method == "session/prompt" }

func (a *AgentConn) done(req *jsonrpc2.Request) {
	if req.Method != "session/prompt" || req.Notif {
		return
	}
	a.pmu.Lock()
	defer a.pmu.Unlock()
	for sid, m := range a.prompts {
		if _, ok := m[req.ID]; ok {
			delete(m, req.ID)
			if len(m) == 0 {
				delete(a.prompts, sid)
			}
			return
		}
	}
}

// agentMethod adapts a typed Agent method to the router.
func agentMethod[Req any, Res any](f func(context.Context, *Req) (*Res, error), optional bool) func(context.Context, *json.RawMessage) (any, error) {
	return func(ctx context.Context, raw *json.RawMessage) (any, error) {
		req := new(Req)
		if optional && (raw == nil || string(*raw) == "null") {
			raw = nil
		} else if err := decodeParams(raw, req); err != nil {
			return nil, err
		}
		if raw != nil {
			// Decoded: drop the raw bytes, which the jsonrpc2 read loop
			// would otherwise keep alive until the next message arrives.
			*raw = nil
		}
		res, err := f(ctx, req)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

func (a *AgentConn) route(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method != "initialize" && !a.initialized.Load() {
		if req.Notif {
			return nil, nil
		}
		return nil, &Error{Code: CodeInvalidRequest, Message: "Invalid request: the connection is not initialized; send initialize first"}
	}
	var h func(context.Context, *json.RawMessage) (any, error)
	switch req.Method {
	case "initialize":
		h = agentMethod(func(ctx context.Context, r *InitializeRequest) (*InitializeResponse, error) {
			res, err := a.agent.Initialize(ctx, r)
			if err == nil {
				a.client.setCaps(r.ClientCapabilities)
				a.initialized.Store(true)
			}
			return res, err
		}, false)
	case "authenticate":
		h = agentMethod(a.agent.Authenticate, false)
	case "session/new":
		h = agentMethod(a.agent.NewSession, false)
	case "session/load":
		h = agentMethod(a.agent.LoadSession, false)
	case "session/resume":
		h = agentMethod(a.agent.ResumeSession, false)
	case "session/list":
		h = agentMethod(a.agent.ListSessions, true)
	case "session/close":
		h = agentMethod(func(ctx context.Context, r *SessionRequest) (*Empty, error) {
			a.cancelPrompts(r.SessionID)
			return a.agent.CloseSession(ctx, r)
		}, false)
	case "session/delete":
		h = agentMethod(func(ctx context.Context, r *SessionRequest) (*Empty, error) {
			a.cancelPrompts(r.SessionID)
			return a.agent.DeleteSession(ctx, r)
		}, false)
	case "session/set_mode":
		h = agentMethod(a.agent.SetSessionMode, false)
	case "session/set_config_option":
		h = agentMethod(a.agent.SetSessionConfigOption, false)
	case "session/prompt":
		h = agentMethod(a.agent.Prompt, false)
	case "session/fork":
		if f, ok := a.agent.(Forker); ok {
			h = agentMethod(f.ForkSession, false)
		}
	case MethodRewindList, MethodRewindApply: // our extension (acp/rewind.go)
		if ra, ok := a.agent.(RewindAgent); ok {
			if req.Method == MethodRewindList {
				h = agentMethod(ra.RewindList, false)
			} else {
				h = agentMethod(ra.RewindApply, false)
			}
		}
	}
	if h == nil {
		if req.Notif {
			return nil, nil // unknown notifications are ignored
		}
		return nil, MethodNotFound(req.Method)
	}
	if req.Notif {
		// A request method sent as a notification cannot be answered.
		if !strings.HasPrefix(req.Method, "_") {
			a.log.Warn("ignoring request method sent as a notification", "method", req.Method)
		}
		return nil, nil
	}
	return h(ctx, req.Params)
}
