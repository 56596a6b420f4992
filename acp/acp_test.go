package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/internal/schematest"
)

// stubAgent is a minimal acp.Agent for protocol tests.
type stubAgent struct {
	mu        sync.Mutex
	order     []string
	cancelled []string
	// promptHook, when set, runs inside Prompt after Release.
	promptHook func(ctx context.Context, req *acp.PromptRequest) (acp.StopReason, error)
	started    chan string
}

func (s *stubAgent) log(m string) {
	s.mu.Lock()
	s.order = append(s.order, m)
	s.mu.Unlock()
}

func (s *stubAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: 1, AuthMethods: []acp.AuthMethod{}, AgentInfo: &acp.Implementation{Name: "stub", Version: "1"}}, nil
}
func (s *stubAgent) Authenticate(context.Context, *acp.AuthenticateRequest) (*acp.Empty, error) {
	return &acp.Empty{}, nil
}
func (s *stubAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	s.log("new")
	acp.AfterReply(ctx, func() {
		s.log("after-new")
		_ = acp.ClientFrom(ctx).SessionUpdate(ctx, "s1", acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{{Name: "help", Description: "Show help"}}}})
	})
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}
func (s *stubAgent) LoadSession(context.Context, *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	return &acp.LoadSessionResponse{}, nil
}
func (s *stubAgent) ResumeSession(context.Context, *acp.ResumeSessionRequest) (*acp.LoadSessionResponse, error) {
	return &acp.LoadSessionResponse{}, nil
}
func (s *stubAgent) ListSessions(context.Context, *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	return &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}
func (s *stubAgent) CloseSession(context.Context, *acp.SessionRequest) (*acp.Empty, error) {
	return &acp.Empty{}, nil
}
func (s *stubAgent) DeleteSession(context.Context, *acp.SessionRequest) (*acp.Empty, error) {
	return &acp.Empty{}, nil
}
func (s *stubAgent) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) (*acp.Empty, error) {
	s.log("mode:" + req.ModeID)
	if req.SessionID != "s1" {
		return nil, acp.SessionNotFound(req.SessionID)
	}
	return &acp.Empty{}, nil
}
func (s *stubAgent) SetSessionConfigOption(context.Context, *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: []acp.SessionConfigOption{}}, nil
}
func (s *stubAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	text := ""
	if len(req.Prompt) > 0 && req.Prompt[0].Text != nil {
		text = req.Prompt[0].Text.Text
	}
	s.log("prompt:" + fmt.Sprint(len(text)))
	acp.Release(ctx)
	if s.started != nil {
		s.started <- req.SessionID
	}
	if s.promptHook != nil {
		r, err := s.promptHook(ctx, req)
		if err != nil {
			return nil, err
		}
		return &acp.PromptResponse{StopReason: r}, nil
	}
	_ = acp.ClientFrom(ctx).SessionUpdate(ctx, req.SessionID, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("echo")}})
	return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
}
func (s *stubAgent) Cancel(id string) {
	s.mu.Lock()
	s.cancelled = append(s.cancelled, id)
	s.mu.Unlock()
}

// rawConn drives an AgentConn with raw lines.
type rawConn struct {
	w   io.WriteCloser
	r   *bufio.Reader
	out chan string
}

func newRaw(t *testing.T, agent acp.Agent, opts acp.StreamOptions) *rawConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ac := acp.NewAgentConn(ctx, acp.NewStream(inR, outW, inR, opts), agent, acp.ConnOptions{})
	rc := &rawConn{w: inW, r: bufio.NewReader(outR), out: make(chan string, 100)}
	go func() {
		for {
			line, err := rc.r.ReadString('\n')
			if err != nil {
				close(rc.out)
				return
			}
			rc.out <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outW.Close()
		ac.Close()
	})
	return rc
}

func (r *rawConn) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.w, line+"\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func (r *rawConn) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case line, ok := <-r.out:
		if !ok {
			t.Fatal("connection closed")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("agent wrote invalid JSON %q: %v", line, err)
		}
		return m
	case <-time.After(60 * time.Second): // generous: the 10 MiB prompt under -race on a busy machine
		t.Fatal("no message from agent")
	}
	return nil
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`

func TestMalformedInputKeepsConnection(t *testing.T) {
	t.Parallel()
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{MaxLineBytes: 1 << 10})
	rc.send(t, initLine)
	if m := rc.next(t); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	for _, tc := range []struct {
		name, line string
		wantCode   int
		wantID     any
	}{
		{"garbage", `this is not json`, acp.CodeParseError, nil},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":`, acp.CodeParseError, nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"session/list"}]`, acp.CodeInvalidRequest, nil},
		{"scalar", `42`, acp.CodeInvalidRequest, nil},
		{"empty object", `{}`, acp.CodeInvalidRequest, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"session/list"}`, acp.CodeInvalidRequest, nil},
		{"method not a string", `{"jsonrpc":"2.0","id":8,"method":5}`, acp.CodeInvalidRequest, float64(8)},
		{"unknown method", `{"jsonrpc":"2.0","id":9,"method":"session/fly","params":{}}`, acp.CodeMethodNotFound, float64(9)},
		{"unknown extension request", `{"jsonrpc":"2.0","id":10,"method":"_zed.dev/thing","params":{}}`, acp.CodeMethodNotFound, float64(10)},
		{"wrong param type", `{"jsonrpc":"2.0","id":11,"method":"session/set_mode","params":{"sessionId":5,"modeId":"x"}}`, acp.CodeInvalidParams, float64(11)},
		{"missing param", `{"jsonrpc":"2.0","id":12,"method":"session/set_mode","params":{"sessionId":"s1"}}`, acp.CodeInvalidParams, float64(12)},
		{"params not object", `{"jsonrpc":"2.0","id":13,"method":"session/new","params":[1]}`, acp.CodeInvalidParams, float64(13)},
		{"relative cwd", `{"jsonrpc":"2.0","id":14,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}`, acp.CodeInvalidParams, float64(14)},
		{"bad content block", `{"jsonrpc":"2.0","id":15,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"a"},{"type":"hologram"}]}}`, acp.CodeInvalidParams, float64(15)},
		{"unknown session", `{"jsonrpc":"2.0","id":16,"method":"session/set_mode","params":{"sessionId":"nope","modeId":"x"}}`, acp.CodeResourceNotFound, float64(16)},
		{"oversized line", `{"jsonrpc":"2.0","id":17,"method":"session/list","params":{"cwd":"` + strings.Repeat("x", 2000) + `"}}`, acp.CodeInvalidRequest, nil},
	} {
		rc.send(t, tc.line)
		m := rc.next(t)
		if got := errCode(m); got != tc.wantCode {
			t.Errorf("%s: error code = %d, want %d (reply %v)", tc.name, got, tc.wantCode, m)
		}
		if id, ok := m["id"]; !ok || id != tc.wantID {
			t.Errorf("%s: id = %v (present %v), want %v", tc.name, id, ok, tc.wantID)
		}
	}
	// Blank lines and unknown notifications produce nothing; the connection
	// still answers.
	rc.send(t, ``)
	rc.send(t, `   `)
	rc.send(t, `{"jsonrpc":"2.0","method":"_zed.dev/ping","params":{}}`)
	rc.send(t, `{"jsonrpc":"2.0","method":"something/else"}`)
	rc.send(t, `{"jsonrpc":"2.0","id":99,"method":"session/list","params":{}}`)
	m := rc.next(t)
	if m["id"] != float64(99) || m["result"] == nil {
		t.Fatalf("after bad input, session/list = %v", m)
	}
}

func TestInvalidParamsNamesField(t *testing.T) {
	t.Parallel()
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	for _, tc := range []struct{ line, field string }{
		{`{"jsonrpc":"2.0","id":1,"method":"session/set_mode","params":{"sessionId":"s1"}}`, "modeId"},
		{`{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":true,"modeId":"a"}}`, "sessionId"},
		{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"image"}]}}`, "prompt[0].data"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"mcpServers":[]}}`, "cwd"},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}`, "protocolVersion"},
	} {
		rc.send(t, tc.line)
		m := rc.next(t)
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if errCode(m) != acp.CodeInvalidParams || !strings.Contains(msg, tc.field) {
			t.Errorf("%s → %v, want -32602 naming %q", tc.line, m, tc.field)
		}
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	t.Parallel()
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	rc.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	rc.send(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	if m := rc.next(t); errCode(m) != acp.CodeInvalidRequest || m["id"] != float64(1) {
		t.Fatalf("session/new before initialize = %v, want -32600", m)
	}
	rc.send(t, initLine)
	if m := rc.next(t); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	rc.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	if m := rc.next(t); m["result"] == nil {
		t.Fatalf("session/new after initialize = %v", m)
	}
}

// TestOrderAndAfterReply: messages are handled in arrival order, a response's
// AfterReply updates follow it, and the next message waits for them.
func TestOrderAndAfterReply(t *testing.T) {
	t.Parallel()
	ag := &stubAgent{}
	rc := newRaw(t, ag, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	rc.send(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	for i := range 20 {
		rc.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"m%d"}}`, 100+i, i))
	}
	if m := rc.next(t); m["id"] != float64(1) {
		t.Fatalf("first reply = %v, want session/new result", m)
	}
	if m := rc.next(t); m["method"] != "session/update" {
		t.Fatalf("second message = %v, want available_commands_update after the session/new reply", m)
	}
	for i := range 20 {
		if m := rc.next(t); m["id"] != float64(100+i) {
			t.Fatalf("reply %d = %v", i, m)
		}
	}
	ag.mu.Lock()
	defer ag.mu.Unlock()
	want := []string{"new", "after-new"}
	for i := range 20 {
		want = append(want, fmt.Sprintf("mode:m%d", i))
	}
	if strings.Join(ag.order, ",") != strings.Join(want, ",") {
		t.Errorf("handling order = %v, want %v", ag.order, want)
	}
}

// TestCancelBeforePromptStarts: a session/cancel that arrives while the
// prompt is still queued behind another message is not lost.
func TestCancelBeforePromptStarts(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	ag := &stubAgent{}
	ag.promptHook = func(ctx context.Context, req *acp.PromptRequest) (acp.StopReason, error) {
		select {
		case <-ctx.Done():
			return acp.StopCancelled, nil
		case <-block:
			return acp.StopEndTurn, nil
		}
	}
	rc := newRaw(t, ag, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	// The prompt and the cancel are written together; whatever the
	// scheduling, the turn must end cancelled.
	rc.send(t, `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`+"\n"+
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	m := rc.next(t)
	res, _ := m["result"].(map[string]any)
	if res["stopReason"] != "cancelled" {
		close(block)
		t.Fatalf("prompt = %v, want stopReason cancelled", m)
	}
	close(block)
	ag.mu.Lock()
	defer ag.mu.Unlock()
	if len(ag.cancelled) != 1 || ag.cancelled[0] != "s1" {
		t.Errorf("Agent.Cancel calls = %v, want [s1]", ag.cancelled)
	}
}

func TestCancelRequest(t *testing.T) {
	t.Parallel()
	ag := &stubAgent{started: make(chan string, 1)}
	ag.promptHook = func(ctx context.Context, req *acp.PromptRequest) (acp.StopReason, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	rc := newRaw(t, ag, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	rc.send(t, `{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	<-ag.started
	rc.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}}`)
	m := rc.next(t)
	if m["id"] != "p1" || errCode(m) != acp.CodeRequestCancelled {
		t.Fatalf("cancelled request = %v, want -32800", m)
	}
}

func TestLargePrompt(t *testing.T) {
	t.Parallel()
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	big := strings.Repeat("a", 10<<20)
	rc.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"`+big+`"}]}}`)
	if m := rc.next(t); m["method"] != "session/update" {
		t.Fatalf("first message = %v, want an update", m)
	}
	m := rc.next(t)
	if res, _ := m["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Fatalf("10 MiB prompt = %v", m)
	}
	rc.send(t, `{"jsonrpc":"2.0","id":4,"method":"session/list","params":{}}`)
	if m := rc.next(t); m["id"] != float64(4) || m["result"] == nil {
		t.Fatalf("after large prompt = %v", m)
	}
}

// TestHermesNotificationsOnlyWhenAsked: a _hermes/* notification reaches a
// client that advertised clientCapabilities._meta.hermes.diagnostics; to
// any other Notify returns ErrNotAdvertised and nothing is sent, so an
// official SDK client has no unknown method to log.
func TestHermesNotificationsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		caps acp.ClientCapabilities
		want bool
	}{
		{"not asked", acp.ClientCapabilities{}, false},
		{"other _meta", acp.ClientCapabilities{Meta: acp.Meta{"hermes": map[string]any{"diagnostics": false}, "zed": true}}, false},
		{"asked", acp.ClientCapabilities{Meta: acp.Meta{"hermes": map[string]any{"diagnostics": true}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ag := &stubAgent{}
			var sent error
			ag.promptHook = func(ctx context.Context, req *acp.PromptRequest) (acp.StopReason, error) {
				sent = acp.ClientFrom(ctx).Notify(acp.MethodPublishDiagnostics, &acp.PublishDiagnosticsParams{SessionID: req.SessionID, URI: "file:///x.json"})
				return acp.StopEndTurn, nil
			}
			e := acptest.New(t, ag, acptest.Options{Capabilities: tc.caps})
			ctx := t.Context()
			if _, err := e.Init(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := e.PromptText(ctx, "s1", "go"); err != nil {
				t.Fatal(err)
			}
			got := len(e.Extensions())
			switch {
			case tc.want && (sent != nil || got != 1):
				t.Errorf("asked: Notify = %v, client got %d notifications; want nil and 1", sent, got)
			case !tc.want && (!errors.Is(sent, acp.ErrNotAdvertised) || got != 0):
				t.Errorf("not asked: Notify = %v, client got %d notifications; want ErrNotAdvertised and 0", sent, got)
			}
		})
	}
}

// TestClientProxy: methods the client did not advertise are refused without
// sending anything; advertised ones reach the client; a permission request is
// answered; the client's updates arrive before the prompt result.
func TestClientProxy(t *testing.T) {
	t.Parallel()
	check := schematest.Attach(t)
	ag := &stubAgent{}
	var gotRead, gotTerm error
	ag.promptHook = func(ctx context.Context, req *acp.PromptRequest) (acp.StopReason, error) {
		cl := acp.ClientFrom(ctx)
		_, gotTerm = cl.CreateTerminal(ctx, &acp.CreateTerminalRequest{SessionID: req.SessionID, Command: "ls"})
		_, gotRead = cl.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: req.SessionID, Path: "/x"})
		if err := cl.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: req.SessionID, Path: "/tmp/x.txt", Content: "new"}); err != nil {
			return "", err
		}
		res, err := cl.RequestPermission(ctx, &acp.RequestPermissionRequest{SessionID: req.SessionID,
			ToolCall: acp.ToolCallUpdate{ToolCallID: "c1"},
			Options:  []acp.PermissionOption{{OptionID: "no", Name: "Reject", Kind: acp.RejectOnce}, {OptionID: "yes", Name: "Allow", Kind: acp.AllowOnce}}})
		if err != nil {
			return "", err
		}
		for i := range 50 {
			_ = cl.SessionUpdate(ctx, req.SessionID, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(fmt.Sprint(i, res.Outcome.OptionID, " "))}})
		}
		return acp.StopEndTurn, nil
	}
	e := acptest.New(t, ag, acptest.Options{Capabilities: acp.ClientCapabilities{FS: acp.FileSystemCapabilities{WriteTextFile: true}}, Tap: check.Line})
	ctx := t.Context()
	if _, err := e.Init(ctx); err != nil {
		t.Fatal(err)
	}
	stop, err := e.PromptText(ctx, "s1", "go")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %v, %v", stop, err)
	}
	if !errors.Is(gotTerm, acp.ErrNotAdvertised) || !errors.Is(gotRead, acp.ErrNotAdvertised) {
		t.Errorf("unadvertised calls = %v, %v; want ErrNotAdvertised", gotTerm, gotRead)
	}
	if len(e.Reads()) != 0 {
		t.Errorf("client received %d fs/read_text_file calls, want 0", len(e.Reads()))
	}
	if w := e.Writes(); len(w) != 1 || w[0].Content != "new" {
		t.Errorf("writes = %v", w)
	}
	// All 50 updates were handled before Prompt returned.
	text := e.Text("s1")
	if !strings.HasPrefix(text, "0yes ") || !strings.HasSuffix(text, "49yes ") {
		t.Errorf("text = %q, want all 50 chunks selecting allow_once", text)
	}
	if check.Seen() == 0 {
		t.Error("schema checker saw no agent messages")
	}
}

func TestSelectLines(t *testing.T) {
	t.Parallel()
	n := func(i int) *int { return &i }
	text := "a\nb\nc\nd"
	for _, tc := range []struct {
		line, limit *int
		want        string
	}{
		{nil, nil, text},
		{n(2), nil, "b\nc\nd"},
		{n(2), n(2), "b\nc\n"},
		{nil, n(1), "a\n"},
		{n(9), nil, ""},
		{n(0), n(0), ""},
	} {
		if got := acp.SelectLines(text, tc.line, tc.limit); got != tc.want {
			t.Errorf("SelectLines(line %v, limit %v) = %q, want %q", tc.line, tc.limit, got, tc.want)
		}
	}
}
