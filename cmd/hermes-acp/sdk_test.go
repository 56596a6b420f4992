package main_test

// The Go ACP SDK (github.com/coder/acp-go-sdk) drives the real binary
// through the shared scenario: what an editor built on that SDK sees.

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// sdkClient is the editor side: it records every session/update in arrival
// order and refuses the file and terminal methods it does not advertise.
// It is safe for concurrent use.
type sdkClient struct {
	mu          sync.Mutex // guards the fields below
	updates     []acpsdk.SessionNotification
	permissions int
	changed     chan struct{} // closed and replaced when updates grows
}

var _ acpsdk.Client = (*sdkClient)(nil)

func newSDKClient() *sdkClient { return &sdkClient{changed: make(chan struct{})} }

func (c *sdkClient) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	return nil
}

func (c *sdkClient) RequestPermission(_ context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.permissions++
	c.mu.Unlock()
	for _, o := range p.Options {
		if o.Kind == acpsdk.PermissionOptionKindAllowOnce {
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func (c *sdkClient) ReadTextFile(context.Context, acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	return acpsdk.ReadTextFileResponse{}, acpsdk.NewMethodNotFound("fs/read_text_file")
}

func (c *sdkClient) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, acpsdk.NewMethodNotFound("fs/write_text_file")
}

func (c *sdkClient) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, acpsdk.NewMethodNotFound("terminal/create")
}

func (c *sdkClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, acpsdk.NewMethodNotFound("terminal/kill")
}

func (c *sdkClient) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, acpsdk.NewMethodNotFound("terminal/output")
}

func (c *sdkClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, acpsdk.NewMethodNotFound("terminal/release")
}

func (c *sdkClient) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, acpsdk.NewMethodNotFound("terminal/wait_for_exit")
}

// mark returns how many updates were received so far.
func (c *sdkClient) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.updates)
}

// since returns the updates received after mark, in order.
func (c *sdkClient) since(mark int) []acpsdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []acpsdk.SessionUpdate
	for _, n := range c.updates[mark:] {
		out = append(out, n.Update)
	}
	return out
}

// waitText waits until an agent_message_chunk arrives after mark.
func (c *sdkClient) waitText(ctx context.Context, mark int) error {
	for {
		c.mu.Lock()
		ch := c.changed
		found := false
		for _, n := range c.updates[mark:] {
			found = found || n.Update.AgentMessageChunk != nil
		}
		c.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sdkText joins the text of the agent_message_chunk updates.
func sdkText(us []acpsdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// sdkTranscript reduces updates to what a user follows: runs of agent text,
// tool calls starting, and tool calls ending (completed or failed).
func sdkTranscript(us []acpsdk.SessionUpdate) []string {
	var out []string
	text := false
	for _, u := range us {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			t := u.AgentMessageChunk.Content.Text.Text
			if text {
				out[len(out)-1] += t
			} else {
				out = append(out, "text: "+t)
			}
			text = true
			continue
		case u.ToolCall != nil:
			out = append(out, "tool_call "+string(u.ToolCall.ToolCallId))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil &&
			(*u.ToolCallUpdate.Status == acpsdk.ToolCallStatusCompleted || *u.ToolCallUpdate.Status == acpsdk.ToolCallStatusFailed):
			out = append(out, "tool_call_update "+string(u.ToolCallUpdate.ToolCallId)+" "+string(*u.ToolCallUpdate.Status))
		case u.AgentThoughtChunk != nil, u.ToolCallUpdate != nil, u.Plan != nil:
			// Thoughts, progress and plans do not split a run of text.
			continue
		}
		text = false
	}
	return out
}

// lastPlan returns the entries of the last plan update, or nil.
func lastPlan(us []acpsdk.SessionUpdate) []string {
	var out []string
	for _, u := range us {
		if u.Plan != nil {
			out = []string{}
			for _, e := range u.Plan.Entries {
				out = append(out, e.Content)
			}
		}
	}
	return out
}

func TestGoSDKDrivesAgent(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t)
	srv := startModel(t, sc.responder(t))

	pr, pw := io.Pipe()
	p := startAgent(t, nil, baseEnv(t, modelEnv(srv)...),
		func(line []byte) { _, _ = pw.Write(append(line, '\n')) },
		func() { _ = pw.Close() })
	// Unblock the output copier if the SDK stops reading first.
	t.Cleanup(func() { _ = pr.CloseWithError(io.ErrClosedPipe) })

	client := newSDKClient()
	conn := acpsdk.NewClientSideConnection(client, p.stdin, pr)
	var sdkLog lockedBuffer
	conn.SetLogger(slog.New(slog.NewTextHandler(&sdkLog, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t.Cleanup(func() {
		if t.Failed() && sdkLog.String() != "" {
			t.Logf("Go SDK log:\n%s", sdkLog.String())
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	init, err := conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion:    acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{},
		ClientInfo:         &acpsdk.Implementation{Name: "go-sdk-e2e", Version: "0.13.0"},
	})
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if init.ProtocolVersion != acpsdk.ProtocolVersionNumber {
		t.Errorf("Initialize: protocolVersion = %d, want %d", init.ProtocolVersion, acpsdk.ProtocolVersionNumber)
	}
	if init.AgentInfo == nil || init.AgentInfo.Name != "hermes-acp" {
		t.Errorf("Initialize: agentInfo = %+v, want name hermes-acp", init.AgentInfo)
	}
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}

	prompt := func(text string) (acpsdk.StopReason, error) {
		res, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
		return res.StopReason, err
	}

	t.Run("text, tool call, text", func(t *testing.T) {
		mark := client.mark()
		stop, err := prompt(sc.ToolPrompt)
		if err != nil || stop != acpsdk.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want %q", stop, err, acpsdk.StopReasonEndTurn)
		}
		us := client.since(mark)
		want := []string{
			"text: " + strings.Join(sc.BeforeTool, ""),
			"tool_call " + sc.ToolCallID,
			"tool_call_update " + sc.ToolCallID + " completed",
			"text: " + strings.Join(sc.AfterTool, ""),
		}
		if diff := cmp.Diff(want, sdkTranscript(us)); diff != "" {
			t.Errorf("updates of the turn (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(sc.PlanEntries, lastPlan(us)); diff != "" {
			t.Errorf("plan entries (-want +got):\n%s", diff)
		}
	})

	t.Run("cancel while the model streams", func(t *testing.T) {
		mark := client.mark()
		wctx, wcancel := context.WithCancel(ctx)
		cancelled := make(chan error, 1)
		go func() {
			if err := client.waitText(wctx, mark); err != nil {
				cancelled <- err
				return
			}
			cancelled <- conn.Cancel(wctx, acpsdk.CancelNotification{SessionId: sess.SessionId})
		}()
		stop, err := prompt(sc.SlowPrompt)
		wcancel()
		if cerr := <-cancelled; cerr != nil {
			t.Errorf("waiting for the first chunk, then Cancel: %v", cerr)
		}
		if err != nil || stop != acpsdk.StopReasonCancelled {
			t.Fatalf("Prompt = %q, %v; want %q", stop, err, acpsdk.StopReasonCancelled)
		}
		got := sdkText(client.since(mark))
		if full := strings.Join(sc.SlowText, ""); got == "" || !strings.HasPrefix(full, got) {
			t.Errorf("text of the cancelled turn = %q, want a non-empty prefix of %q", got, full)
		}
		select {
		case <-srv.Disconnected():
		case <-ctx.Done():
			t.Error("the model request was not stopped after the cancel")
		}
	})

	t.Run("prompt after the cancel", func(t *testing.T) {
		mark := client.mark()
		stop, err := prompt(sc.PlainPrompt)
		if err != nil || stop != acpsdk.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want %q", stop, err, acpsdk.StopReasonEndTurn)
		}
		if got, want := sdkText(client.since(mark)), strings.Join(sc.PlainText, ""); got != want {
			t.Errorf("agent text = %q, want %q", got, want)
		}
	})

	if _, err := p.waitExit(t); err != nil {
		t.Errorf("hermes-acp exited with %v, want status 0", err)
	}
	if n := p.checker.Seen(); n == 0 {
		t.Error("the schema checker saw no agent messages")
	}
}
