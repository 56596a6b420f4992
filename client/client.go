// Package client is a headless ACP client, the library behind
// `hermes-acp client` and `hermes-acp demo`: it starts an agent as a child
// process, opens a session in a folder, sends prompts in order, answers
// permission requests by a fixed policy (or by asking on the terminal),
// serves fs/read_text_file and fs/write_text_file from disk, and prints a
// readable transcript of the session's updates, or every JSON-RPC message.
package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// Options configure one headless session. The zero value prompts nothing,
// approves nothing it is asked, and writes its transcript nowhere.
type Options struct {
	// Cwd is the session's workspace folder (absolute).
	Cwd string
	// Prompts are sent in order, each after the previous one ended.
	Prompts []string
	// Approve answers permission requests: "allow" (the first allow
	// option), "reject" (the first reject option) or "ask" (on the
	// controlling terminal); anything else cancels them.
	Approve string
	// JSON prints every JSON-RPC message as a line
	// {"from": "client"|"agent", "message": {...}} instead of a transcript.
	JSON bool
	// NoFS does not offer fs/read_text_file and fs/write_text_file.
	NoFS bool
	// Mode, when set, is the session mode switched to before prompting.
	Mode string
	// Timeout bounds each prompt; 0 means no bound.
	Timeout time.Duration
	// CancelAfter, when above 0, sends session/cancel this long after each
	// prompt starts (for tests).
	CancelAfter time.Duration
	// Env is added to the agent's environment.
	Env []string
	// Version is the client's version in clientInfo.
	Version string
	// Stdout receives the transcript (or the messages); Stderr the agent's
	// stderr and the client's own notices. Nil discards.
	Stdout, Stderr io.Writer
}

// ErrReported marks an error the user has already seen: a failed request
// shown in the transcript ("✗ session/prompt failed: …"), a prompt the agent
// refused, or a notice on Stderr. Callers need not print it again.
var ErrReported = errors.New("reported in the transcript")

// ReadPrompts reads prompts separated by lines that contain only "---"
// from the file at path, or from stdin when path is "-".
func ReadPrompts(path string, stdin io.Reader) ([]string, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("--prompt-file: %w", err)
	}
	var out []string
	var cur []string
	flush := func() {
		if p := strings.TrimSpace(strings.Join(cur, "\n")); p != "" {
			out = append(out, p)
		}
		cur = nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "---" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out, nil
}

// Run starts the agent cmdline (the program and its arguments), runs the
// session o describes and waits for the agent to exit after its stdin is
// closed (killing it after 3 seconds). It returns nil when every prompt
// ended without a refusal and the agent exited cleanly; errors the user
// has already seen wrap [ErrReported].
func Run(ctx context.Context, o Options, cmdline []string) error {
	if len(cmdline) == 0 {
		return errors.New("missing AGENT command")
	}
	stdout, stderr := o.Stdout, o.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stderr = stderr
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	agentOut, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start agent: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	out := &syncWriter{w: stdout}
	h := &clientHandler{o: o, out: out}
	if o.Approve == "ask" {
		if h.tty = stdinTTY(); h.tty != nil {
			defer h.tty.Close()
		}
	}
	var tap func(fromAgent bool, line []byte)
	if o.JSON {
		tap = func(fromAgent bool, line []byte) {
			from := "client"
			if fromAgent {
				from = "agent"
			}
			if !json.Valid(line) {
				line, _ = json.Marshal(string(line))
			}
			out.printf("{\"from\":%q,\"message\":%s}\n", from, line)
		}
	}
	stream := acp.NewStream(&acp.LineTap{R: agentOut, Tap: tap, FromAgent: true}, &acp.LineTap{W: agentIn, Tap: tap}, agentIn, acp.StreamOptions{})
	conn := acp.NewClientConn(ctx, stream, h, acp.ConnOptions{})
	result := h.session(ctx, conn, o)
	_ = agentIn.Close()
	select {
	case err := <-exited:
		if err != nil && result == nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				result = fmt.Errorf("agent exited with status %d", ee.ExitCode())
			}
		}
	case <-time.After(3 * time.Second):
		fmt.Fprintln(stderr, "hermes-acp client: agent did not exit after its stdin closed; killing it")
		_ = cmd.Process.Kill()
		<-exited
		if result == nil {
			result = fmt.Errorf("%w: the agent did not exit", ErrReported)
		}
	}
	_ = conn.Close()
	return result
}

// session runs initialize, session/new and the prompts; a failed request
// is shown in the transcript and returned wrapping ErrReported.
func (h *clientHandler) session(ctx context.Context, conn *acp.ClientConn, o Options) error {
	caps := acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: !o.NoFS, WriteTextFile: !o.NoFS},
		Meta: acp.Meta{"hermes": map[string]any{"diagnostics": true}}} // it prints _hermes/publishDiagnostics
	ictx, icancel := context.WithTimeout(ctx, 30*time.Second)
	defer icancel()
	init, err := conn.Initialize(ictx, &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion, ClientCapabilities: caps,
		ClientInfo: &acp.Implementation{Name: "hermes-acp-client", Version: o.Version}})
	if err != nil {
		return h.fail("initialize", err)
	}
	if !o.JSON {
		name := "agent"
		if init.AgentInfo != nil {
			name = init.AgentInfo.Name + " " + init.AgentInfo.Version
		}
		h.out.printf("● connected to %s (ACP v%d)\n", name, init.ProtocolVersion)
	}
	sess, err := conn.NewSession(ictx, &acp.NewSessionRequest{Cwd: o.Cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		return h.fail("session/new", err)
	}
	h.setSession(sess.SessionID)
	if !o.JSON {
		h.out.printf("● session %s in %s\n", sess.SessionID, o.Cwd)
	}
	if o.Mode != "" {
		if err := conn.Call(ictx, "session/set_mode", &acp.SetSessionModeRequest{SessionID: sess.SessionID, ModeID: o.Mode}, &acp.Empty{}); err != nil {
			return h.fail("session/set_mode", err)
		}
	}
	var refused error
	for _, p := range o.Prompts {
		if !o.JSON {
			h.out.printf("\n> %s\n", strings.ReplaceAll(p, "\n", "\n> "))
		}
		pctx, pcancel := ctx, context.CancelFunc(func() {})
		if o.Timeout > 0 {
			pctx, pcancel = context.WithTimeout(ctx, o.Timeout)
		}
		var timer *time.Timer
		if o.CancelAfter > 0 {
			timer = time.AfterFunc(o.CancelAfter, func() { _ = conn.Cancel(sess.SessionID) })
		}
		res, err := conn.Prompt(pctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(p)}})
		pcancel()
		if timer != nil {
			timer.Stop()
		}
		h.endBlock()
		if err != nil {
			return h.fail("session/prompt", err)
		}
		if !o.JSON {
			h.out.printf("● %s\n", res.StopReason)
		}
		if res.StopReason == acp.StopRefusal {
			refused = fmt.Errorf("%w: the agent refused a prompt", ErrReported)
		}
	}
	return refused
}

// fail shows a failed request in the transcript and returns it.
func (h *clientHandler) fail(method string, err error) error {
	h.endBlock()
	fmt.Fprintf(h.out, "✗ %s failed: %v\n", method, err)
	return fmt.Errorf("%w: %s: %w", ErrReported, method, err)
}

// clientHandler serves the agent's requests and prints its notifications.
type clientHandler struct {
	o   Options
	out *syncWriter
	tty *os.File

	mu        sync.Mutex // guards the fields below
	sessionID string
	block     string            // kind of the block being printed ("text", "thought", "")
	titles    map[string]string // tool call id → title
	shown     map[string]bool   // diffs already printed, by tool call id + path + new text
}

func (h *clientHandler) setSession(id string) {
	h.mu.Lock()
	h.sessionID = id
	h.mu.Unlock()
}

// endBlock terminates a streamed block with a newline.
func (h *clientHandler) endBlock() {
	h.mu.Lock()
	b := h.block
	h.block = ""
	h.mu.Unlock()
	if b != "" && !h.o.JSON {
		h.out.printf("\n")
	}
}

// startBlock begins a streamed block of kind, printing header when it
// changes.
func (h *clientHandler) startBlock(kind, header string) {
	h.mu.Lock()
	prev := h.block
	h.block = kind
	h.mu.Unlock()
	if prev == kind {
		return
	}
	if prev != "" {
		h.out.printf("\n")
	}
	h.out.printf("%s", header)
}

func (h *clientHandler) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if h.o.JSON {
		return
	}
	switch method {
	case "session/update":
		var n acp.SessionNotification
		if err := json.Unmarshal(params, &n); err != nil {
			h.out.printf("\n✗ invalid session/update: %v\n", err)
			return
		}
		h.printUpdate(n.Update)
	case acp.MethodPublishDiagnostics:
		var p acp.PublishDiagnosticsParams
		if json.Unmarshal(params, &p) != nil {
			return
		}
		h.endBlock()
		path := strings.TrimPrefix(p.URI, "file://")
		if len(p.Diagnostics) == 0 {
			h.out.printf("🩺 %s: no problems\n", path)
			return
		}
		h.out.printf("🩺 %s: %d problem(s)\n", path, len(p.Diagnostics))
		for _, d := range p.Diagnostics {
			h.out.printf("   %d:%d %s [%v]\n", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message, d.Code)
		}
	}
}

func (h *clientHandler) printUpdate(u acp.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			h.startBlock("text", "")
			h.out.printf("%s", t.Text)
		}
	case u.AgentThoughtChunk != nil:
		if t := u.AgentThoughtChunk.Content.Text; t != nil {
			h.startBlock("thought", "💭 ")
			h.out.printf("%s", strings.ReplaceAll(t.Text, "\n", "\n   "))
		}
	case u.UserMessageChunk != nil:
		if t := u.UserMessageChunk.Content.Text; t != nil {
			h.startBlock("user", "> ")
			h.out.printf("%s", t.Text)
		}
	case u.ToolCall != nil:
		h.endBlock()
		tc := u.ToolCall
		h.mu.Lock()
		if h.titles == nil {
			h.titles = map[string]string{}
		}
		h.titles[tc.ToolCallID] = tc.Title
		h.mu.Unlock()
		h.out.printf("🔧 %s [%s, %s]\n", tc.Title, orDefault(string(tc.Kind), "other"), orDefault(string(tc.Status), "pending"))
		h.printContent(tc.ToolCallID, tc.Content)
	case u.ToolCallUpdate != nil:
		h.endBlock()
		tc := u.ToolCallUpdate
		h.mu.Lock()
		title := h.titles[tc.ToolCallID]
		h.mu.Unlock()
		if tc.Status != "" {
			mark := map[acp.ToolCallStatus]string{acp.StatusCompleted: "✓", acp.StatusFailed: "✗", acp.StatusInProgress: "…", acp.StatusPending: "·"}[tc.Status]
			h.out.printf("   %s %s %s\n", mark, title, tc.Status)
		}
		h.printContent(tc.ToolCallID, tc.Content)
	case u.Plan != nil:
		h.endBlock()
		h.out.printf("📋 plan\n")
		for _, e := range u.Plan.Entries {
			box := map[string]string{"completed": "[x]", "in_progress": "[~]"}[e.Status]
			if box == "" {
				box = "[ ]"
			}
			h.out.printf("   %s %s\n", box, e.Content)
		}
	case u.CurrentModeUpdate != nil:
		h.endBlock()
		h.out.printf("● mode: %s\n", u.CurrentModeUpdate.CurrentModeID)
	case u.SessionInfoUpdate != nil:
		if u.SessionInfoUpdate.Title != nil {
			h.endBlock()
			h.out.printf("● title: %s\n", *u.SessionInfoUpdate.Title)
		}
	}
}

// printContent shows tool-call content: text indented, diffs as -/+ lines
// (each diff once per tool call).
func (h *clientHandler) printContent(callID string, cs []acp.ToolCallContent) {
	for _, c := range cs {
		if c.Diff != nil {
			key := callID + "\x00" + c.Diff.Path + "\x00" + c.Diff.NewText
			h.mu.Lock()
			if h.shown == nil {
				h.shown = map[string]bool{}
			}
			seen := h.shown[key]
			h.shown[key] = true
			h.mu.Unlock()
			if seen {
				continue
			}
		}
		switch {
		case c.Content != nil && c.Content.Text != nil:
			for _, line := range strings.Split(strings.TrimRight(c.Content.Text.Text, "\n"), "\n") {
				h.out.printf("     %s\n", line)
			}
		case c.Diff != nil:
			old := ""
			if c.Diff.OldText != nil {
				old = *c.Diff.OldText
			} else {
				h.out.printf("     new file %s\n", c.Diff.Path)
			}
			for _, line := range lineDiff(old, c.Diff.NewText) {
				h.out.printf("     %s\n", line)
			}
		case c.TerminalID != "":
			h.out.printf("     (terminal %s)\n", c.TerminalID)
		}
	}
}

// lineDiff returns a compact -/+ listing of the lines that differ: for each
// change, the removed lines ("- ") then the added ones ("+ "), from a line
// diff (internal/diff).
func lineDiff(a, b string) []string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if a == "" {
		al = nil
	}
	var lines diff.Interner[string]
	ia := lines.IDs(al)
	var out, added []string
	i := 0
	for j, k := range diff.Match(ia, lines.IDs(bl), 0) {
		if k < 0 {
			added = append(added, "+ "+bl[j])
			continue
		}
		for ; i < k; i++ {
			out = append(out, "- "+al[i])
		}
		out = append(out, added...)
		added = added[:0]
		i = k + 1
	}
	for ; i < len(al); i++ {
		out = append(out, "- "+al[i])
	}
	return append(out, added...)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (h *clientHandler) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "session/request_permission":
		var req acp.RequestPermissionRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		return &acp.RequestPermissionResponse{Outcome: h.decide(ctx, &req)}, nil
	case "fs/read_text_file":
		if h.o.NoFS {
			return nil, acp.MethodNotFound(method)
		}
		var req acp.ReadTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		data, err := os.ReadFile(req.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &acp.Error{Code: acp.CodeResourceNotFound, Message: "Resource not found: " + req.Path, Data: map[string]any{"uri": "file://" + req.Path}}
		}
		if err != nil {
			return nil, &acp.Error{Code: acp.CodeInternalError, Message: err.Error()}
		}
		return &acp.ReadTextFileResponse{Content: acp.SelectLines(string(data), req.Line, req.Limit)}, nil
	case "fs/write_text_file":
		if h.o.NoFS {
			return nil, acp.MethodNotFound(method)
		}
		var req acp.WriteTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err)
		}
		if err := os.MkdirAll(filepath.Dir(req.Path), 0o755); err != nil {
			return nil, &acp.Error{Code: acp.CodeInternalError, Message: err.Error()}
		}
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(req.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := atomicfile.Write(req.Path, []byte(req.Content), mode); err != nil {
			return nil, &acp.Error{Code: acp.CodeInternalError, Message: err.Error()}
		}
		return &acp.Empty{}, nil
	}
	return nil, acp.MethodNotFound(method)
}

// decide answers a permission request by policy.
func (h *clientHandler) decide(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
	pick := func(kinds ...acp.PermissionOptionKind) (acp.PermissionOption, bool) {
		for _, k := range kinds {
			for _, o := range req.Options {
				if o.Kind == k {
					return o, true
				}
			}
		}
		return acp.PermissionOption{}, false
	}
	title := ""
	if req.ToolCall.Title != nil {
		title = *req.ToolCall.Title
	}
	if !h.o.JSON {
		h.endBlock()
		h.out.printf("❓ permission: %s\n", orDefault(title, req.ToolCall.ToolCallID))
		h.printContent(req.ToolCall.ToolCallID, req.ToolCall.Content)
	}
	var chosen acp.PermissionOption
	var ok bool
	switch h.o.Approve {
	case "allow":
		chosen, ok = pick(acp.AllowOnce, acp.AllowAlways)
	case "reject":
		chosen, ok = pick(acp.RejectOnce, acp.RejectAlways)
	case "ask":
		chosen, ok = h.ask(ctx, req)
	}
	if !ok {
		if !h.o.JSON {
			h.out.printf("   → cancelled\n")
		}
		return acp.PermissionOutcome{Cancelled: true}
	}
	if !h.o.JSON {
		h.out.printf("   → %s\n", chosen.Name)
	}
	return acp.PermissionOutcome{OptionID: chosen.OptionID}
}

// ask shows the options on the terminal and reads the user's choice.
func (h *clientHandler) ask(ctx context.Context, req *acp.RequestPermissionRequest) (acp.PermissionOption, bool) {
	if h.tty == nil {
		fmt.Fprintln(h.out, "   (no terminal to ask on; cancelling)")
		return acp.PermissionOption{}, false
	}
	for i, o := range req.Options {
		h.out.printf("   %d) %s [%s]\n", i+1, o.Name, o.Kind)
	}
	h.out.printf("   choose 1-%d: ", len(req.Options))
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(h.tty).ReadString('\n')
		answer <- strings.TrimSpace(line)
	}()
	select {
	case a := <-answer:
		var n int
		if _, err := fmt.Sscanf(a, "%d", &n); err == nil && n >= 1 && n <= len(req.Options) {
			return req.Options[n-1], true
		}
	case <-ctx.Done():
	}
	return acp.PermissionOption{}, false
}

// stdinTTY opens the controlling terminal for --approve ask.
func stdinTTY() *os.File {
	f, err := os.Open("/dev/tty")
	if err != nil {
		return nil
	}
	return f
}

// syncWriter serialises writes to the transcript.
type syncWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) printf(format string, args ...any) {
	fmt.Fprintf(s, format, args...)
}
