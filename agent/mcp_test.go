package agent_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	hermesmcp "github.com/hermes-acp/hermes-acp/mcp"
	"github.com/hermes-acp/hermes-acp/model"
)

func TestMain(m *testing.M) { os.Exit(mcptest.Main(m)) }

// mcpStdioServer returns the mcptest stdio server as an ACP MCP server called
// name, and the file its events go to.
func mcpStdioServer(t *testing.T, name string) (acp.McpServer, string) {
	t.Helper()
	events := filepath.Join(t.TempDir(), "events")
	return acp.McpServer{
		Name: name, Command: mcptest.Build(t), Args: []string{},
		Env: []acp.EnvVariable{{Name: mcptest.EventsEnv, Value: events}},
	}, events
}

// newMCPSession opens a session whose request names servers.
func (h *harness) newMCPSession(servers ...acp.McpServer) string {
	h.t.Helper()
	res, err := h.editor.NewSession(h.ctx(), &acp.NewSessionRequest{Cwd: h.t.TempDir(), McpServers: servers})
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return res.SessionID
}

// mcpOffered returns the tool definition called name offered in req.
func mcpOffered(req model.Request, name string) (model.ToolDef, bool) {
	for _, d := range req.Tools {
		if d.Name == name {
			return d, true
		}
	}
	return model.ToolDef{}, false
}

func mcpOfferedNames(req model.Request) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

// mcpResults maps tool call ids to the results the model read in req.
func mcpResults(req model.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.Messages {
		if m.Role == model.RoleTool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// mcpFinalStatus returns the last status the editor saw for a tool call.
func mcpFinalStatus(h *harness, sid, id string) acp.ToolCallStatus {
	var status acp.ToolCallStatus
	for _, u := range h.editor.Updates(sid) {
		switch {
		case u.Update.ToolCall != nil && u.Update.ToolCall.ToolCallID == id:
			status = u.Update.ToolCall.Status
		case u.Update.ToolCallUpdate != nil && u.Update.ToolCallUpdate.ToolCallID == id && u.Update.ToolCallUpdate.Status != "":
			status = u.Update.ToolCallUpdate.Status
		}
	}
	return status
}

// mcpWaitEvent waits until the events file of a stdio server holds a line
// starting with prefix and returns that line. It polls: the server is
// another process.
func mcpWaitEvent(t *testing.T, path, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		for line := range strings.SplitSeq(string(data), "\n") {
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("event %q never appeared in %s; events:\n%s", prefix, path, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var mcpTestTools = []string{"add", "big", "crash", "echo", "env", "fail", "grow", "image", "slow", "structured"}

func mcpPrefixed(server string, tools ...string) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = "mcp_" + server + "_" + t
	}
	return out
}

// TestMCPToolCalledEndToEnd is the acceptance case: a stdio MCP server
// passed in session/new has its tool called by the model and the result
// returned.
func TestMCPToolCalledEndToEnd(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(model.ToolCall{ID: "call_add", Name: "mcp_test_add", Arguments: `{"a":2,"b":3}`}), nil
		}
		return textReply("2 + 3 = 5", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	srv, _ := mcpStdioServer(t, "test")
	sid := h.newMCPSession(srv)
	if stop := h.prompt(sid, "add 2 and 3"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	if diff := cmp.Diff(mcpPrefixed("test", mcpTestTools...), mcpOfferedNames(reqs[0])); diff != "" {
		t.Errorf("tools offered on the first prompt (-want +got):\n%s", diff)
	}
	add, _ := mcpOffered(reqs[0], "mcp_test_add")
	if want := "[MCP server test] Add two numbers."; add.Description != want {
		t.Errorf("mcp_test_add description = %q, want %q", add.Description, want)
	}
	props, _ := add.Parameters["properties"].(map[string]any)
	if _, ok := props["a"]; !ok || props["b"] == nil {
		t.Errorf("mcp_test_add parameters = %v, want properties a and b", add.Parameters)
	}
	if got, want := mcpResults(reqs[1])["call_add"], `{"result":"5"}`; got != want {
		t.Errorf("result the model read = %q, want %q", got, want)
	}
	if got := mcpFinalStatus(h, sid, "call_add"); got != acp.StatusCompleted {
		t.Errorf("editor's tool call status = %q, want completed", got)
	}
	if got := h.editor.Text(sid); got != "2 + 3 = 5" {
		t.Errorf("agent text = %q", got)
	}
}

func TestMCPCapabilitiesAdvertised(t *testing.T) {
	t.Parallel()
	e := acptest.New(t, agent.New(agent.Options{Version: "test"}), acptest.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := e.Init(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.AgentCapabilities.McpCapabilities, (acp.McpCapabilities{HTTP: true, SSE: true}); got != want {
		t.Errorf("mcpCapabilities = %+v, want %+v", got, want)
	}
}

func TestMCPToolErrorResult(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(model.ToolCall{ID: "call_fail", Name: "mcp_test_fail", Arguments: `{}`}), nil
		}
		return textReply("It failed.", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	srv, _ := mcpStdioServer(t, "test")
	sid := h.newMCPSession(srv)
	h.prompt(sid, "try the failing tool")
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	if got, want := mcpResults(reqs[1])["call_fail"], `{"error":"`+mcptest.FailMessage+`"}`; got != want {
		t.Errorf("result the model read = %q, want %q", got, want)
	}
	if got := mcpFinalStatus(h, sid, "call_fail"); got != acp.StatusFailed {
		t.Errorf("editor's tool call status = %q, want failed", got)
	}
}

// mcpLogWatch is a slog handler that records every log line as
// "message key=value …" and lets a test wait for one.
type mcpLogWatch struct {
	attrs string
	sink  *mcpLogSink
}

type mcpLogSink struct {
	mu      sync.Mutex // guards lines and changed
	lines   []string
	changed chan struct{}
}

func newMCPLogWatch() *mcpLogWatch {
	return &mcpLogWatch{sink: &mcpLogSink{changed: make(chan struct{})}}
}

func (w *mcpLogWatch) Enabled(context.Context, slog.Level) bool { return true }

func (w *mcpLogWatch) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(w.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	w.sink.mu.Lock()
	defer w.sink.mu.Unlock()
	w.sink.lines = append(w.sink.lines, b.String())
	close(w.sink.changed)
	w.sink.changed = make(chan struct{})
	return nil
}

func (w *mcpLogWatch) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(w.attrs)
	for _, a := range attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	return &mcpLogWatch{attrs: b.String(), sink: w.sink}
}

func (w *mcpLogWatch) WithGroup(string) slog.Handler { return w }

// waitLine waits for a log line containing every part.
func (w *mcpLogWatch) waitLine(t *testing.T, parts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		w.sink.mu.Lock()
		lines, ch := w.sink.lines, w.sink.changed
		w.sink.mu.Unlock()
		for _, l := range lines {
			if mcpContainsAll(l, parts) {
				return
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no log line with %q", parts)
		}
	}
}

func mcpContainsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestMCPToolListChange: the server's grow tool adds a tool at run time; the
// agent follows the tools/list_changed notification, and the next model
// request offers the new tool, which works.
func TestMCPToolListChange(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0:
			return toolReply(model.ToolCall{ID: "call_grow", Name: "mcp_test_grow", Arguments: `{}`}), nil
		case 2:
			if _, ok := mcpOffered(req, "mcp_test_extra"); ok {
				return toolReply(model.ToolCall{ID: "call_extra", Name: "mcp_test_extra", Arguments: `{}`}), nil
			}
		}
		return textReply("done", emit), nil
	}}
	logs := newMCPLogWatch()
	h := newHarness(t, fm, harnessOptions{opts: agent.Options{Log: slog.New(logs)}})
	srv, _ := mcpStdioServer(t, "test")
	sid := h.newMCPSession(srv)
	h.prompt(sid, "grow the server")
	logs.waitLine(t, "MCP tools updated", "server=test", "tools="+strconv.Itoa(len(mcpTestTools)+1))
	h.prompt(sid, "use the new tool")
	reqs := fm.requests()
	if len(reqs) != 4 {
		t.Fatalf("model calls = %d, want 4", len(reqs))
	}
	if _, ok := mcpOffered(reqs[0], "mcp_test_extra"); ok {
		t.Errorf("mcp_test_extra offered before grow ran")
	}
	want := mcpPrefixed("test", append([]string{"extra"}, mcpTestTools...)...)
	slices.Sort(want)
	if diff := cmp.Diff(want, mcpOfferedNames(reqs[2])); diff != "" {
		t.Errorf("tools offered after grow (-want +got):\n%s", diff)
	}
	if got, want := mcpResults(reqs[3])["call_extra"], `{"result":"extra works"}`; got != want {
		t.Errorf("extra's result the model read = %q, want %q", got, want)
	}
}

// TestMCPServersThatFailToStart: each broken server gets a warning message
// after the session/new reply; the session works with the healthy one.
func TestMCPServersThatFailToStart(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("fine", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	good, _ := mcpStdioServer(t, "test")
	missing := filepath.Join(t.TempDir(), "no-such-mcp-server")
	broken := []struct {
		server     acp.McpServer
		want, tail string // the message's start and end
	}{
		{acp.McpServer{Name: "missing", Command: missing}, `⚠️ MCP server "missing" failed to start: fork/exec ` + missing + `: no such file or directory`, ""},
		{acp.McpServer{Name: "exits", Command: "sh", Args: []string{"-c", "echo starting >&2; echo 'boom: no config' >&2; exit 3"}}, `⚠️ MCP server "exits" failed to start: `, ` (its last line on stderr: "boom: no config")` + "\n\n"},
		{acp.McpServer{Name: "nocommand"}, `⚠️ MCP server "nocommand" failed to start: no command given`, ""},
		{acp.McpServer{Type: "http", Name: "badurl", URL: "ftp://example.com/mcp"}, `⚠️ MCP server "badurl" failed to start: url "ftp://example.com/mcp" is not an http(s) URL`, ""},
	}
	servers := []acp.McpServer{good}
	for _, b := range broken {
		servers = append(servers, b.server)
	}
	sid := h.newMCPSession(servers...)
	for _, b := range broken {
		t.Run(b.server.Name, func(t *testing.T) {
			_, err := h.editor.WaitUpdate(h.ctx(), sid, func(u acp.SessionUpdate) bool {
				if u.AgentMessageChunk == nil || u.AgentMessageChunk.Content.Text == nil {
					return false
				}
				text := u.AgentMessageChunk.Content.Text.Text
				return strings.HasPrefix(text, b.want) && strings.HasSuffix(text, b.tail)
			})
			if err != nil {
				t.Errorf("no agent message starting %q and ending %q; agent text:\n%s", b.want, b.tail, h.editor.Text(sid))
			}
		})
	}
	if stop := h.prompt(sid, "hello"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s, want end_turn", stop)
	}
	if diff := cmp.Diff(mcpPrefixed("test", mcpTestTools...), mcpOfferedNames(fm.requests()[0])); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
}

// TestMCPCancelDuringSlowTool: session/cancel during an MCP call ends the
// prompt as cancelled and the cancellation reaches the server.
func TestMCPCancelDuringSlowTool(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(model.ToolCall{ID: "call_slow", Name: "mcp_test_slow", Arguments: `{"ms":600000}`}), nil
		}
		return textReply("unexpected", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	srv, events := mcpStdioServer(t, "test")
	sid := h.newMCPSession(srv)
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "sleep for ten minutes") }()
	mcpWaitEvent(t, events, mcptest.EventSlowStarted)
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Errorf("stop = %s, want cancelled", stop)
	}
	mcpWaitEvent(t, events, mcptest.EventSlowCancelled)
	if got := mcpFinalStatus(h, sid, "call_slow"); got != acp.StatusFailed {
		t.Errorf("editor's tool call status = %q, want failed", got)
	}
	if n := len(fm.requests()); n != 1 {
		t.Errorf("model calls = %d, want 1 (no call after the cancel)", n)
	}
}

// TestMCPServerStopsWithSession: the stdio server exits (and is reaped)
// when its session closes or the agent shuts down.
func TestMCPServerStopsWithSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		end  func(h *harness, sid string) error
	}{
		{"session/close", func(h *harness, sid string) error {
			return h.editor.Call(h.ctx(), "session/close", &acp.SessionRequest{SessionID: sid}, &acp.Empty{})
		}},
		{"agent close", func(h *harness, sid string) error { return h.agent.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				return textReply("hi", emit), nil
			}}
			h := newHarness(t, fm, harnessOptions{})
			srv, events := mcpStdioServer(t, "test")
			sid := h.newMCPSession(srv)
			h.prompt(sid, "hello") // the server is up once the first prompt runs
			pid, err := strconv.Atoi(strings.TrimPrefix(mcpWaitEvent(t, events, mcptest.EventStart+" "), mcptest.EventStart+" "))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.end(h, sid); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("after %s, signal 0 to server pid %d = %v, want ESRCH (process gone)", tc.name, pid, err)
			}
			mcpWaitEvent(t, events, mcptest.EventExit) // it exited cleanly on the closed stdin
		})
	}
}

// TestMCPConfigAndRequestServers: configured servers and request servers
// both connect; on a name clash the request's server is the one used.
func TestMCPConfigAndRequestServers(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	cfg := hermesmcp.Server{Name: "cfg", Command: mcptest.Build(t),
		Env: []hermesmcp.Var{{Name: mcptest.EventsEnv, Value: filepath.Join(t.TempDir(), "events")}}}
	req, _ := mcpStdioServer(t, "req")
	dup, _ := mcpStdioServer(t, "dup")
	broken := hermesmcp.Server{Name: "dup", Command: filepath.Join(t.TempDir(), "missing")}
	h := newHarness(t, fm, harnessOptions{opts: agent.Options{MCPServers: []hermesmcp.Server{cfg, broken}}})
	sid := h.newMCPSession(req, dup)
	h.prompt(sid, "hello")
	var want []string
	for _, s := range []string{"cfg", "dup", "req"} {
		want = append(want, mcpPrefixed(s, mcpTestTools...)...)
	}
	if diff := cmp.Diff(want, mcpOfferedNames(fm.requests()[0])); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	if text := h.editor.Text(sid); strings.Contains(text, "⚠️") {
		t.Errorf("unexpected warning: %q", text)
	}
}

// TestMCPServersOnResume: session/resume connects the servers it names.
func TestMCPServersOnResume(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	cwd := t.TempDir()
	sid := h.newSession(cwd)
	h.prompt(sid, "hello")
	if err := h.editor.Call(h.ctx(), "session/close", &acp.SessionRequest{SessionID: sid}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	srv, _ := mcpStdioServer(t, "test")
	var res acp.LoadSessionResponse
	if err := h.editor.Call(h.ctx(), "session/resume", &acp.ResumeSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []acp.McpServer{srv}}, &res); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	h.prompt(sid, "again")
	reqs := fm.requests()
	if len(reqs[0].Tools) != 0 {
		t.Errorf("tools before resume = %v, want none", mcpOfferedNames(reqs[0]))
	}
	if diff := cmp.Diff(mcpPrefixed("test", mcpTestTools...), mcpOfferedNames(reqs[1])); diff != "" {
		t.Errorf("tools after resume (-want +got):\n%s", diff)
	}
}

// mcpHeaderLog records the headers of every request an HTTP MCP server gets.
type mcpHeaderLog struct {
	mu   sync.Mutex // guards seen
	seen []string   // "METHOD auth-header x-test-header"
}

func (l *mcpHeaderLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Test"))
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *mcpHeaderLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// TestMCPOverHTTP runs the test server in process behind the streamable HTTP
// and SSE handlers: headers reach it, results of every content kind render
// as hermes does, and tool names are sanitised, cut and disambiguated.
func TestMCPOverHTTP(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70)
	for _, transport := range []string{"http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewServer(mcptest.Options{})
			for _, name := range []string{"a.b", "a_b", long} {
				srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
					})
			}
			get := func(*http.Request) *mcp.Server { return srv }
			var handler http.Handler = mcp.NewStreamableHTTPHandler(get, nil)
			if transport == "sse" {
				handler = mcp.NewSSEHandler(get, nil)
			}
			headers := &mcpHeaderLog{}
			ts := httptest.NewServer(headers.wrap(handler))
			t.Cleanup(ts.Close) // after the agent closes (cleanups run last-in first-out)

			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				if n > 0 {
					return textReply("done", emit), nil
				}
				return toolReply(
					model.ToolCall{ID: "c_add", Name: "mcp_web_add", Arguments: `{"a":2,"b":3}`},
					model.ToolCall{ID: "c_image", Name: "mcp_web_image", Arguments: `{}`},
					model.ToolCall{ID: "c_structured", Name: "mcp_web_structured", Arguments: `{}`},
					model.ToolCall{ID: "c_dot", Name: "mcp_web_a_b", Arguments: `{}`},
					model.ToolCall{ID: "c_underscore", Name: "mcp_web_a_b_2", Arguments: `{}`},
					model.ToolCall{ID: "c_long", Name: mcpLongToolName(req), Arguments: `{}`},
				), nil
			}}
			h := newHarness(t, fm, harnessOptions{})
			sid := h.newMCPSession(acp.McpServer{Type: transport, Name: "web", URL: ts.URL, Headers: []acp.HTTPHeader{
				{Name: "Authorization", Value: "Bearer secret"}, {Name: "X-Test", Value: transport},
			}})
			h.prompt(sid, "use the web server")
			reqs := fm.requests()
			if len(reqs) != 2 {
				t.Fatalf("model calls = %d, want 2; agent text: %s", len(reqs), h.editor.Text(sid))
			}
			if longName := mcpLongToolName(reqs[0]); len(longName) != 64 {
				t.Errorf("long tool's name %q has %d characters, want 64", longName, len(longName))
			}
			want := map[string]string{
				"c_add":        `{"result":"5"}`,
				"c_image":      `{"result":"a red dot\n[image: image/png, 4 bytes, not shown]"}`,
				"c_structured": `{"result":{"x":1,"y":2}}`,
				"c_dot":        `{"result":"a.b"}`,
				"c_underscore": `{"result":"a_b"}`,
				"c_long":       `{"result":"` + long + `"}`,
			}
			if diff := cmp.Diff(want, mcpResults(reqs[1])); diff != "" {
				t.Errorf("results the model read (-want +got):\n%s", diff)
			}
			seen := headers.requests()
			if len(seen) == 0 {
				t.Fatal("the server got no requests")
			}
			for _, r := range seen {
				method, rest, _ := strings.Cut(r, " ")
				if rest != "Bearer secret "+transport {
					t.Errorf("%s request headers = %q, want %q", method, rest, "Bearer secret "+transport)
				}
			}
		})
	}
}

// mcpLongToolName finds the tool of TestMCPOverHTTP whose name was cut.
func mcpLongToolName(req model.Request) string {
	for _, d := range req.Tools {
		if strings.HasPrefix(d.Name, "mcp_web_xxx") {
			return d.Name
		}
	}
	return ""
}

// TestMCPParallelOptIn: tools of a server whose entry opts in with
// _meta.hermes.supports_parallel_tool_calls run concurrently: both slow
// calls of one batch start before either ends.
func TestMCPParallelOptIn(t *testing.T) {
	t.Parallel()
	events := &mcpEventLines{changed: make(chan struct{})}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return mcptest.NewServer(mcptest.Options{Events: events})
	}, nil))
	t.Cleanup(ts.Close)
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n > 0 {
			return textReply("unexpected", emit), nil
		}
		return toolReply(
			model.ToolCall{ID: "slow_1", Name: "mcp_par_slow", Arguments: `{"ms":600000}`},
			model.ToolCall{ID: "slow_2", Name: "mcp_par_slow", Arguments: `{"ms":600000}`},
		), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newMCPSession(acp.McpServer{Type: "http", Name: "par", URL: ts.URL, Headers: []acp.HTTPHeader{},
		Meta: acp.Meta{"hermes": map[string]any{"supports_parallel_tool_calls": true}}})
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "two slow calls") }()
	events.waitCount(t, mcptest.EventSlowStarted, 2)
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Errorf("stop = %s, want cancelled", stop)
	}
	events.waitCount(t, mcptest.EventSlowCancelled, 2)
}

// mcpEventLines collects the event lines of an in-process test server.
type mcpEventLines struct {
	mu      sync.Mutex // guards lines and changed
	lines   []string
	changed chan struct{}
}

func (e *mcpEventLines) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, strings.TrimSuffix(string(p), "\n"))
	close(e.changed)
	e.changed = make(chan struct{})
	return len(p), nil
}

// waitCount waits until line has been written n times.
func (e *mcpEventLines) waitCount(t *testing.T, line string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		e.mu.Lock()
		count, ch := 0, e.changed
		for _, l := range e.lines {
			if l == line {
				count++
			}
		}
		e.mu.Unlock()
		if count >= n {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("event %q seen %d times, want %d", line, count, n)
		}
	}
}
