package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// termTool runs its "command" with sh in an editor terminal (the agent's
// RunInTerminal), with the timeout in "timeout_ms", and records the result.
type termTool struct {
	mu      sync.Mutex
	results []agent.TerminalResult
	errs    []error
}

func (tt *termTool) tools() []envTool {
	return []envTool{{
		entry: registry.Entry{Name: "run", Toolset: "test", Kind: registry.KindExecute,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}, "timeout_ms": map[string]any{"type": "integer"}}}},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				cmd, _ := c.String("command")
				ms := numArg(c.Args["timeout_ms"])
				r, err := env.RunInTerminal(ctx, c.ID, agent.TerminalRun{Argv: []string{"sh", "-c", cmd}, Dir: env.Workspace().Roots()[0], Env: map[string]string{"HERMES_TEST": "1"}, OutputByteLimit: 1000, Timeout: time.Duration(ms) * time.Millisecond})
				tt.mu.Lock()
				tt.results, tt.errs = append(tt.results, r), append(tt.errs, err)
				tt.mu.Unlock()
				if err != nil {
					return registry.Error(err.Error()), nil
				}
				return registry.OK(map[string]any{"output": r.Output}), nil
			}
		},
	}}
}

func (tt *termTool) last(t *testing.T) (agent.TerminalResult, error) {
	t.Helper()
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.results) == 0 {
		t.Fatal("the tool never ran")
	}
	return tt.results[len(tt.results)-1], tt.errs[len(tt.errs)-1]
}

// argsModel asks for one "run" call with the prompt as its JSON arguments.
func argsModel() *fakeModel {
	var n atomic.Int32
	return &fakeModel{reply: func(ctx context.Context, _ int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		last := lastMessage(req)
		if last.Role == model.RoleTool {
			return textReply("done", emit), nil
		}
		return toolReply(model.ToolCall{ID: fmt.Sprintf("call-%d", n.Add(1)), Name: "run", Arguments: last.Content}), nil
	}}
}

// numArg reads a number argument as the pipeline decoded it.
func numArg(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case json.Number:
		f, _ := n.Float64()
		return f
	case int:
		return float64(n)
	}
	return 0
}

func terminalMethods(h *harness) []string {
	var out []string
	for _, c := range h.editor.TerminalCalls() {
		out = append(out, c.Method)
	}
	return out
}

func TestEditorTerminalRunsAndIsReleased(t *testing.T) {
	tt := &termTool{}
	h := newHarness(t, argsModel(), harnessOptions{bound: tt.tools(), caps: acp.ClientCapabilities{Terminal: true}})
	dir := t.TempDir()
	sid := h.newSession(dir)
	h.prompt(sid, `{"command":"printf 'a\\nb\\n'; echo $HERMES_TEST; pwd; exit 3"}`)
	r, err := tt.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode == nil || *r.ExitCode != 3 || r.TimedOut || r.Cancelled {
		t.Errorf("result = %+v, want exit code 3", r)
	}
	if want := "a\nb\n1\n" + dir + "\n"; r.Output != want {
		t.Errorf("output = %q, want %q (env and cwd passed)", r.Output, want)
	}
	calls := h.editor.TerminalCalls()
	if got := terminalMethods(h); strings.Join(got, " ") != "terminal/create terminal/wait_for_exit terminal/output terminal/release" {
		t.Errorf("terminal calls = %v", got)
	}
	if c := calls[0].Create; c == nil || c.OutputByteLimit == nil || *c.OutputByteLimit != 1000 || c.Cwd == nil || *c.Cwd != dir {
		t.Errorf("terminal/create = %+v, want cwd and outputByteLimit", c)
	}
	if live := h.editor.LiveTerminals(); len(live) != 0 {
		t.Errorf("terminals not released: %v", live)
	}
	// The terminal is embedded in the tool call, and stays at its end.
	var embedded, final bool
	for _, u := range h.editor.Updates(sid) {
		if tu := u.Update.ToolCallUpdate; tu != nil {
			has := len(tu.Content) == 1 && tu.Content[0].TerminalID == calls[0].TerminalID
			embedded = embedded || (has && tu.Status == acp.StatusInProgress)
			if tu.Status == acp.StatusCompleted || tu.Status == acp.StatusFailed {
				final = has
			}
		}
	}
	if !embedded || !final {
		t.Errorf("terminal embedded while running = %v, kept at the end = %v", embedded, final)
	}
}

func TestEditorTerminalTimeoutKillsAndReleases(t *testing.T) {
	tt := &termTool{}
	h := newHarness(t, argsModel(), harnessOptions{bound: tt.tools(), caps: acp.ClientCapabilities{Terminal: true}})
	sid := h.newSession("")
	h.prompt(sid, `{"command":"echo started; sleep 30","timeout_ms":200}`)
	r, err := tt.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.Output != "started\n" {
		t.Errorf("result = %+v, want timed out with the output so far", r)
	}
	if got := strings.Join(terminalMethods(h), " "); got != "terminal/create terminal/wait_for_exit terminal/kill terminal/output terminal/release" {
		t.Errorf("terminal calls = %s", got)
	}
	if live := h.editor.LiveTerminals(); len(live) != 0 {
		t.Errorf("terminals not released: %v", live)
	}
}

func TestEditorTerminalCancelKillsAndReleases(t *testing.T) {
	tt := &termTool{}
	h := newHarness(t, argsModel(), harnessOptions{bound: tt.tools(), caps: acp.ClientCapabilities{Terminal: true}})
	sid := h.newSession("")
	ctx := h.ctx()
	stop := make(chan acp.StopReason, 1)
	go func() {
		s, _ := h.editor.PromptText(ctx, sid, `{"command":"sleep 30"}`)
		stop <- s
	}()
	if err := h.editor.WaitFor(ctx, func() bool { return len(h.editor.TerminalCalls()) >= 2 }); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if s := <-stop; s != acp.StopCancelled {
		t.Errorf("stop reason = %q, want cancelled", s)
	}
	r, _ := tt.last(t)
	if !r.Cancelled {
		t.Errorf("result = %+v, want cancelled", r)
	}
	got := terminalMethods(h)
	if len(got) < 2 || got[len(got)-1] != "terminal/release" || !strings.Contains(strings.Join(got, " "), "terminal/kill") {
		t.Errorf("terminal calls = %v, want a kill and a release last", got)
	}
	if live := h.editor.LiveTerminals(); len(live) != 0 {
		t.Errorf("terminals not released: %v", live)
	}
}

// streamTool writes its "lines" lines of output through Env.Output in
// pipe-sized chunks, as the terminal tool does for commands it runs.
func streamTools(calls *atomic.Int32) []envTool {
	return []envTool{{
		entry: registry.Entry{Name: "run", Toolset: "test", Kind: registry.KindExecute,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"lines": map[string]any{"type": "integer"}}}},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				n := numArg(c.Args["lines"])
				var buf bytes.Buffer
				for i := 1; i <= int(n); i++ {
					fmt.Fprintf(&buf, "\x1b[32m%d\x1b[0m\n", i)
				}
				b := buf.Bytes()
				for len(b) > 0 {
					k := min(len(b), 4096)
					env.Output(c.ID, b[:k])
					calls.Add(1)
					b = b[k:]
				}
				return registry.OK(map[string]any{"lines": n}), nil
			}
		},
	}}
}

func TestOutputStreamsThrottledAndCapped(t *testing.T) {
	var calls atomic.Int32
	h := newHarness(t, argsModel(), harnessOptions{bound: streamTools(&calls)})
	sid := h.newSession("")
	h.prompt(sid, `{"lines":35000}`)
	var streamed []string
	var finalAt, lastStreamAt int
	for i, u := range h.editor.Updates(sid) {
		tu := u.Update.ToolCallUpdate
		if tu == nil {
			continue
		}
		switch tu.Status {
		case acp.StatusInProgress:
			if len(tu.Content) == 1 && tu.Content[0].Content != nil && tu.Content[0].Content.Text != nil {
				streamed = append(streamed, tu.Content[0].Content.Text.Text)
				lastStreamAt = i
			}
		case acp.StatusCompleted:
			finalAt = i
		}
	}
	if int(calls.Load()) < 40 {
		t.Fatalf("the tool wrote only %d chunks", calls.Load())
	}
	if len(streamed) == 0 || len(streamed) > 50 {
		t.Fatalf("stream updates = %d for %d chunks, want 1..50", len(streamed), calls.Load())
	}
	for _, s := range streamed {
		if len(s) > 4200 || strings.Contains(s, "\x1b") {
			t.Errorf("a stream update has %d bytes (or escapes): %.80q", len(s), s)
		}
	}
	if lastStreamAt > finalAt {
		t.Error("an output update arrived after the call completed")
	}
	if first := streamed[0]; !strings.HasPrefix(first, "```\n1\n") && !strings.Contains(first, "earlier lines") {
		t.Errorf("first update = %.100q", first)
	}
	if last := streamed[len(streamed)-1]; len(streamed) > 1 && !strings.Contains(last, "earlier lines") {
		t.Errorf("a later update does not say what came before: %.100q", last)
	}
}

func TestAnnounceReachesUserAndModel(t *testing.T) {
	var env atomic.Pointer[agent.Env]
	var closed atomic.Int32
	tools := []envTool{{
		entry: registry.Entry{Name: "run", Toolset: "test"},
		handler: func(e *agent.Env) registry.Handler {
			env.Store(e)
			e.OnClose(func() { closed.Add(1) })
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) { return registry.OK("ok"), nil }
		},
	}}
	fm := &fakeModel{reply: func(ctx context.Context, _ int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("noted", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{bound: tools})
	sid := h.newSession("")
	h.prompt(sid, "hello")
	note := "Background process proc_1 (`make`) exited with code 0."
	env.Load().Announce(note)
	if _, err := h.editor.WaitUpdate(h.ctx(), sid, func(u acp.SessionUpdate) bool {
		return u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil && strings.Contains(u.AgentMessageChunk.Content.Text.Text, note)
	}); err != nil {
		t.Fatalf("the announcement did not reach the chat: %v", err)
	}
	h.prompt(sid, "next")
	reqs := fm.requests()
	var seen bool
	for _, m := range reqs[len(reqs)-1].Messages {
		seen = seen || (m.Role == model.RoleUser && strings.Contains(m.Content, note))
	}
	if !seen {
		t.Error("the model did not read the announcement at its next request")
	}
	if err := h.editor.Call(h.ctx(), "session/close", &acp.SessionRequest{SessionID: sid}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if closed.Load() != 1 {
		t.Errorf("OnClose functions ran %d times, want 1", closed.Load())
	}
}
