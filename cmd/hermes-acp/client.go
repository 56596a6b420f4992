package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
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
	"github.com/hermes-acp/hermes-acp/internal/diff"
)

const clientUsage = `Usage: hermes-acp client [flags] -- AGENT [ARGS...]

Starts AGENT as an ACP agent, opens a session, sends the prompts in order and
prints a readable transcript (or, with --json, every JSON-RPC message as a JSON
line {"from": "client"|"agent", "message": {...}}). Permission requests are
answered by --approve; fs/read_text_file and fs/write_text_file are served from
disk. Exit status: 0 when every prompt ended, 1 on errors, 2 for usage errors.

Flags:
`

type clientOptions struct {
	cwd         string
	prompts     stringList
	promptFile  string
	approve     string
	json        bool
	noFS        bool
	mode        string
	timeout     time.Duration
	cancelAfter time.Duration
	env         []string // extra environment for the agent (demo)
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runClient(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hermes-acp client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, clientUsage)
		fs.PrintDefaults()
	}
	var o clientOptions
	wd, _ := os.Getwd()
	fs.StringVar(&o.cwd, "cwd", wd, "workspace directory for the session")
	fs.Var(&o.prompts, "prompt", "a prompt to send (repeatable; sent in order)")
	fs.StringVar(&o.promptFile, "prompt-file", "", "read prompts from FILE (- for stdin), separated by lines containing only ---")
	fs.StringVar(&o.approve, "approve", "allow", "answer permission requests: allow, reject or ask")
	fs.BoolVar(&o.json, "json", false, "print every JSON-RPC message instead of a transcript")
	fs.BoolVar(&o.noFS, "no-fs", false, "do not offer fs/read_text_file and fs/write_text_file")
	fs.StringVar(&o.mode, "mode", "", "switch the session to this mode before prompting")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up on a prompt after this long")
	fs.DurationVar(&o.cancelAfter, "cancel-after", 0, "send session/cancel this long after each prompt starts (for tests)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cmdline := fs.Args()
	if len(cmdline) == 0 {
		fmt.Fprintln(stderr, "hermes-acp client: missing AGENT command (put it after --)")
		fs.Usage()
		return 2
	}
	switch o.approve {
	case "allow", "reject", "ask":
	default:
		fmt.Fprintf(stderr, "hermes-acp client: --approve %q: want allow, reject or ask\n", o.approve)
		return 2
	}
	if o.promptFile != "" {
		ps, err := readPrompts(o.promptFile, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "hermes-acp client: %v\n", err)
			return 2
		}
		o.prompts = append(o.prompts, ps...)
	}
	abs, err := filepath.Abs(o.cwd)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp client: --cwd: %v\n", err)
		return 2
	}
	o.cwd = abs
	return runClientWith(context.Background(), o, cmdline, stdout, stderr)
}

// readPrompts reads prompts separated by lines that contain only "---".
func readPrompts(path string, stdin io.Reader) ([]string, error) {
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

// runClientWith drives the agent started by cmdline.
func runClientWith(ctx context.Context, o clientOptions, cmdline []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	cmd.Env = append(os.Environ(), o.env...)
	cmd.Stderr = stderr
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp client: %v\n", err)
		return 1
	}
	agentOut, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp client: %v\n", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "hermes-acp client: start agent: %v\n", err)
		return 1
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	out := &syncWriter{w: stdout}
	h := &clientHandler{o: o, out: out, tty: stdinTTY()}
	var tap func(fromAgent bool, line []byte)
	if o.json {
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
	code := h.session(ctx, conn, o)
	_ = agentIn.Close()
	select {
	case err := <-exited:
		if err != nil && code == 0 {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				fmt.Fprintf(stderr, "hermes-acp client: agent exited with status %d\n", ee.ExitCode())
				code = 1
			}
		}
	case <-time.After(3 * time.Second):
		fmt.Fprintln(stderr, "hermes-acp client: agent did not exit after its stdin closed; killing it")
		_ = cmd.Process.Kill()
		<-exited
		code = max(code, 1)
	}
	_ = conn.Close()
	return code
}

// session runs initialize, session/new and the prompts.
func (h *clientHandler) session(ctx context.Context, conn *acp.ClientConn, o clientOptions) int {
	caps := acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: !o.noFS, WriteTextFile: !o.noFS},
		Meta: acp.Meta{"hermes": map[string]any{"diagnostics": true}}} // it prints _hermes/publishDiagnostics
	ictx, icancel := context.WithTimeout(ctx, 30*time.Second)
	defer icancel()
	init, err := conn.Initialize(ictx, &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion, ClientCapabilities: caps,
		ClientInfo: &acp.Implementation{Name: "hermes-acp-client", Version: buildVersion()}})
	if err != nil {
		h.fail("initialize", err)
		return 1
	}
	if !o.json {
		name := "agent"
		if init.AgentInfo != nil {
			name = init.AgentInfo.Name + " " + init.AgentInfo.Version
		}
		h.out.printf("● connected to %s (ACP v%d)\n", name, init.ProtocolVersion)
	}
	sess, err := conn.NewSession(ictx, &acp.NewSessionRequest{Cwd: o.cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		h.fail("session/new", err)
		return 1
	}
	h.setSession(sess.SessionID)
	if !o.json {
		h.out.printf("● session %s in %s\n", sess.SessionID, o.cwd)
	}
	if o.mode != "" {
		if err := conn.Call(ictx, "session/set_mode", &acp.SetSessionModeRequest{SessionID: sess.SessionID, ModeID: o.mode}, &acp.Empty{}); err != nil {
			h.fail("session/set_mode", err)
			return 1
		}
	}
	code := 0
	for _, p := range o.prompts {
		if !o.json {
			h.out.printf("\n> %s\n", strings.ReplaceAll(p, "\n", "\n> "))
		}
		pctx, pcancel := context.WithTimeout(ctx, o.timeout)
		var timer *time.Timer
		if o.cancelAfter > 0 {
			timer = time.AfterFunc(o.cancelAfter, func() { _ = conn.Cancel(sess.SessionID) })
		}
		res, err := conn.Prompt(pctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(p)}})
		pcancel()
		if timer != nil {
			timer.Stop()
		}
		h.endBlock()
		if err != nil {
			h.fail("session/prompt", err)
			return 1
		}
		if !o.json {
			h.out.printf("● %s\n", res.StopReason)
		}
		if res.StopReason == acp.StopRefusal {
			code = 1
		}
	}
	return code
}

func (h *clientHandler) fail(method string, err error) {
	h.endBlock()
	fmt.Fprintf(h.out, "✗ %s failed: %v\n", method, err)
}

// clientHandler serves the agent's requests and prints its notifications.
type clientHandler struct {
	o   clientOptions
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
	if b != "" && !h.o.json {
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
	if h.o.json {
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
		if h.o.noFS {
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
		if h.o.noFS {
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
		if err := writeFileAtomic(req.Path, []byte(req.Content), mode); err != nil {
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
	if !h.o.json {
		h.endBlock()
		h.out.printf("❓ permission: %s\n", orDefault(title, req.ToolCall.ToolCallID))
		h.printContent(req.ToolCall.ToolCallID, req.ToolCall.Content)
	}
	var chosen acp.PermissionOption
	var ok bool
	switch h.o.approve {
	case "allow":
		chosen, ok = pick(acp.AllowOnce, acp.AllowAlways)
	case "reject":
		chosen, ok = pick(acp.RejectOnce, acp.RejectAlways)
	case "ask":
		chosen, ok = h.ask(ctx, req)
	}
	if !ok {
		if !h.o.json {
			h.out.printf("   → cancelled\n")
		}
		return acp.PermissionOutcome{Cancelled: true}
	}
	if !h.o.json {
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
