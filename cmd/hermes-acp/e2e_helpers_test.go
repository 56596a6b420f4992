package main_test

// Shared machinery of the end-to-end tests: the hermes-acp binary built once
// per test binary, a minimal environment that never touches the real home,
// the fake model server answering the shared scenario, and a running agent
// process whose every line is checked against the ACP schema.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	"github.com/hermes-acp/hermes-acp/internal/schematest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// agentBin is the hermes-acp binary TestMain builds; it is written once,
// before any test runs, and only read afterwards.
var agentBin string

// exitDeadline bounds how long a test waits for the agent to exit. It is a
// guard against hangs, not a speed assertion: the agent normally exits well
// within a second.
const exitDeadline = 5 * time.Second

// callTimeout bounds a single request/response exchange in the tests.
const callTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hermes-acp-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	agentBin = filepath.Join(dir, "hermes-acp")
	cmd := exec.Command("go", "build", "-o", agentBin, ".")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/hermes-acp: %v\n", err)
		return 1
	}
	return mcptest.Main(m) // runs the tests, then removes the MCP test server it built
}

// baseEnv returns a minimal environment for an agent process: no model
// configuration from the developer's environment, and HOME and HERMES_HOME
// in fresh temporary folders. extra entries (KEY=VALUE) are appended.
func baseEnv(t testing.TB, extra ...string) []string {
	t.Helper()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"HERMES_HOME=" + t.TempDir(),
		"TMPDIR=" + t.TempDir(),
		"LANG=C.UTF-8",
	}
	return append(env, extra...)
}

// modelEnv points the agent at the fake model server.
func modelEnv(srv *modeltest.Server) []string {
	return []string{"OPENAI_BASE_URL=" + srv.URL(), "HERMES_MODEL=test-model", "OPENAI_API_KEY=test"}
}

// startModel starts a fake model server that answers with respond and stops
// it when the test ends.
func startModel(t testing.TB, respond func(modeltest.Request) modeltest.Turn) *modeltest.Server {
	t.Helper()
	srv := modeltest.StartOptions(modeltest.Options{Respond: respond, Errorf: t.Errorf})
	t.Cleanup(srv.Close)
	return srv
}

// scenario is the conversation every SDK-driven test plays: a prompt
// answered with text, a todo tool call and more text; a prompt whose reply
// the model holds open until the client cancels; and a plain prompt. The
// TypeScript conformance script reads the same file.
type scenario struct {
	ToolPrompt    string          `json:"toolPrompt"`
	BeforeTool    []string        `json:"beforeTool"`
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	ToolArguments json.RawMessage `json:"toolArguments"`
	AfterTool     []string        `json:"afterTool"`
	SlowPrompt    string          `json:"slowPrompt"`
	SlowText      []string        `json:"slowText"`
	PlainPrompt   string          `json:"plainPrompt"`
	PlainText     []string        `json:"plainText"`
	PlanEntries   []string        `json:"planEntries"`
}

// scenarioPath is the scenario file, relative to the package folder.
const scenarioPath = "testdata/e2e/scenario.json"

func loadScenario(t testing.TB) scenario {
	t.Helper()
	data, err := os.ReadFile(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		t.Fatalf("%s: %v", scenarioPath, err)
	}
	return sc
}

// responder answers the scenario's prompts the way a model would. A request
// it does not recognise fails the test and gets an HTTP 500.
func (sc scenario) responder(t testing.TB) func(modeltest.Request) modeltest.Turn {
	return func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		switch {
		case last.Role == "tool" && last.ToolCallID == sc.ToolCallID:
			return modeltest.Turn{Text: sc.AfterTool}
		case last.Role == "user" && strings.Contains(last.Content, sc.ToolPrompt):
			return modeltest.Turn{Text: sc.BeforeTool, ToolCalls: []modeltest.ToolCall{
				{ID: sc.ToolCallID, Name: sc.ToolName, Arguments: string(sc.ToolArguments)},
			}}
		case last.Role == "user" && strings.Contains(last.Content, sc.SlowPrompt):
			return modeltest.Turn{Text: sc.SlowText, Block: true}
		case last.Role == "user" && strings.Contains(last.Content, sc.PlainPrompt):
			return modeltest.Turn{Text: sc.PlainText}
		}
		t.Errorf("fake model: unexpected request; last message %s %q", last.Role, truncate(last.Content, 200))
		return modeltest.Turn{Status: 500}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// lineWriter splits what is written to it into lines and hands each
// complete line (without its newline) to fn. It is safe for concurrent use.
type lineWriter struct {
	fn func(line []byte)

	mu  sync.Mutex // guards buf
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := append([]byte(nil), w.buf[:i]...)
		w.buf = w.buf[i+1:]
		w.fn(line)
	}
}

// rest returns an incomplete last line, if any.
func (w *lineWriter) rest() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf...)
}

// lineQueue is an unbounded queue of lines with a blocking next. It is safe
// for concurrent use.
type lineQueue struct {
	mu      sync.Mutex // guards the fields below
	lines   [][]byte
	closed  bool
	changed chan struct{} // closed and replaced on every change
}

func newLineQueue() *lineQueue { return &lineQueue{changed: make(chan struct{})} }

func (q *lineQueue) push(line []byte) {
	q.mu.Lock()
	q.lines = append(q.lines, line)
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}

func (q *lineQueue) close() {
	q.mu.Lock()
	q.closed = true
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}

// next returns the next line; io.EOF once the queue is closed and drained.
func (q *lineQueue) next(ctx context.Context) ([]byte, error) {
	for {
		q.mu.Lock()
		if len(q.lines) > 0 {
			l := q.lines[0]
			q.lines = q.lines[1:]
			q.mu.Unlock()
			return l, nil
		}
		closed, ch := q.closed, q.changed
		q.mu.Unlock()
		if closed {
			return nil, io.EOF
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// agentProc is a running hermes-acp process. Every line it writes to stdout
// and every line written to its stdin pass the schema checker. The test's
// cleanup closes stdin, waits for the exit (killing the process after
// exitDeadline) and prints the agent's stderr if the test failed.
type agentProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser // tapped: lines go to the checker first
	rawIn   io.WriteCloser
	stdout  *lineWriter
	stderr  *lockedBuffer
	checker *schematest.Checker

	exited  chan struct{} // closed once Wait returned
	waitErr error         // set before exited is closed
	ended   time.Time     // set before exited is closed
}

// startAgent starts the binary with args and env. Each complete stdout line
// is given to onLine (after the schema check); when the process has exited
// and its output is drained, onExit runs.
func startAgent(t testing.TB, args, env []string, onLine func([]byte), onExit func()) *agentProc {
	t.Helper()
	return startAgentBin(t, agentBin, args, env, onLine, onExit)
}

// startAgentBin is startAgent with another build of hermes-acp, bin.
func startAgentBin(t testing.TB, bin string, args, env []string, onLine func([]byte), onExit func()) *agentProc {
	t.Helper()
	checker := schematest.Attach(t)
	p := &agentProc{checker: checker, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	p.stdout = &lineWriter{fn: func(line []byte) {
		checkAgentLine(checker, line)
		onLine(line)
	}}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	p.cmd.WaitDelay = exitDeadline
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.rawIn = in
	p.stdin = &tappedWriteCloser{Writer: &lineWriter{fn: func(line []byte) { checker.Line(false, line) }}, w: in}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.ended = time.Now()
		p.waitErr = err
		if onExit != nil {
			onExit()
		}
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.rawIn.Close()
		select {
		case <-p.exited:
		case <-time.After(exitDeadline):
			t.Errorf("hermes-acp did not exit within %v of its stdin closing; killing it", exitDeadline)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if rest := p.stdout.rest(); len(rest) > 0 {
			t.Errorf("hermes-acp left an unterminated line on stdout: %q", truncate(string(rest), 300))
		}
		if t.Failed() {
			t.Logf("hermes-acp stderr:\n%s", truncate(p.stderr.String(), 20000))
		}
	})
	return p
}

// checkAgentLine gives a line the agent wrote to the schema checker.
func checkAgentLine(c *schematest.Checker, line []byte) { c.Line(true, line) }

// waitExit closes stdin and waits up to exitDeadline for the process to
// exit; it returns how long the exit took after stdin closed and the exit
// error.
func (p *agentProc) waitExit(t testing.TB) (time.Duration, error) {
	t.Helper()
	closed := time.Now()
	_ = p.rawIn.Close()
	select {
	case <-p.exited:
		return p.ended.Sub(closed), p.waitErr
	case <-time.After(exitDeadline):
		t.Fatalf("hermes-acp still runs %v after its stdin closed", exitDeadline)
		return 0, nil
	}
}

// tappedWriteCloser shows every byte to Writer (the tap) before writing it
// to w.
type tappedWriteCloser struct {
	io.Writer
	w io.WriteCloser
}

func (t *tappedWriteCloser) Write(p []byte) (int, error) {
	_, _ = t.Writer.Write(p)
	return t.w.Write(p)
}

func (t *tappedWriteCloser) Close() error { return t.w.Close() }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// message is any JSON-RPC message the agent sent.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

func (m message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// rawAgent drives hermes-acp with raw JSON-RPC lines.
type rawAgent struct {
	*agentProc
	lines  *lineQueue
	nextID int
}

// startRaw starts hermes-acp for raw line tests.
func startRaw(t testing.TB, args, env []string) *rawAgent {
	t.Helper()
	return startRawBin(t, agentBin, args, env)
}

// startRawBin is startRaw with another build of hermes-acp, bin.
func startRawBin(t testing.TB, bin string, args, env []string) *rawAgent {
	t.Helper()
	q := newLineQueue()
	p := startAgentBin(t, bin, args, env, q.push, q.close)
	return &rawAgent{agentProc: p, lines: q, nextID: 1}
}

// send writes one line (a newline is added).
func (a *rawAgent) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(a.stdin, line+"\n"); err != nil {
		t.Fatalf("write to hermes-acp: %v", err)
	}
}

// next reads the next message the agent sent.
func (a *rawAgent) next(t testing.TB) message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	line, err := a.lines.next(ctx)
	if err != nil {
		t.Fatalf("read from hermes-acp: %v", err)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("hermes-acp wrote a line that is not JSON-RPC: %v\n%s", err, truncate(string(line), 300))
	}
	return m
}

// until reads messages until a response; it returns the response and the
// notifications (and agent requests) that came before it.
func (a *rawAgent) until(t testing.TB) (message, []message) {
	t.Helper()
	var before []message
	for {
		m := a.next(t)
		if m.isResponse() {
			return m, before
		}
		before = append(before, m)
	}
}

// call sends a request with a fresh numeric id and returns its response and
// the notifications that preceded it. Any other response fails the test.
func (a *rawAgent) call(t testing.TB, method string, params any) (message, []message) {
	t.Helper()
	id := a.nextID
	a.nextID++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	a.send(t, string(b))
	res, before := a.until(t)
	if got := string(res.ID); got != fmt.Sprint(id) {
		t.Fatalf("%s: got a response with id %s, want %d: %+v", method, got, id, res)
	}
	return res, before
}

// result calls method and decodes a successful result into out.
func (a *rawAgent) result(t testing.TB, method string, params, out any) []message {
	t.Helper()
	res, before := a.call(t, method, params)
	if res.Error != nil {
		t.Fatalf("%s: error %d %s", method, res.Error.Code, res.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(res.Result, out); err != nil {
			t.Fatalf("%s: decode result %s: %v", method, res.Result, err)
		}
	}
	return before
}

// initialize runs initialize with protocol version 1 and no capabilities.
func (a *rawAgent) initialize(t testing.TB) {
	t.Helper()
	a.result(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
}

// newSession opens a session on a fresh temporary folder.
func (a *rawAgent) newSession(t testing.TB) string {
	t.Helper()
	var res struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}, &res)
	if res.SessionID == "" {
		t.Fatal("session/new returned an empty sessionId")
	}
	return res.SessionID
}

// prompt sends a text prompt and returns the stop reason and the agent
// message text streamed before the reply.
func (a *rawAgent) prompt(t testing.TB, sessionID, text string) (string, string) {
	t.Helper()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	before := a.result(t, "session/prompt", map[string]any{
		"sessionId": sessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": text}},
	}, &res)
	return res.StopReason, agentText(before)
}

// agentText joins the text of the agent_message_chunk updates in msgs.
func agentText(msgs []message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Method != "session/update" {
			continue
		}
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Update.SessionUpdate == "agent_message_chunk" && p.Update.Content.Type == "text" {
			b.WriteString(p.Update.Content.Text)
		}
	}
	return b.String()
}

// runBinary runs the binary to completion with args, env and stdin, and
// returns its stdout, stderr and exit error. It fails the test when the
// process does not end within deadline.
func runBinary(t testing.TB, deadline time.Duration, stdin string, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("hermes-acp %s did not finish within %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), deadline, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String(), err
}
