package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
)

// process manages the terminal tool's background processes, as
// hermes-agent's tool does: list, poll, log, wait, kill, write, submit and
// close, over the session's table (at most 64 processes, 200 000
// characters of rolling output each, finished ones kept 30 minutes).
var _ = declare(registry.Tool[processDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:         processName,
		Toolset:      "terminal",
		Emoji:        "⚙️",
		Description:  processDescription,
		Kind:         registry.KindExecute,
		ChangesFiles: true, // checkpointed first (issue 29)
		Title:        processTitle,
		Preview:      func(map[string]any) string { return "" },
		Render:       processRender,
	}, Params: processParams{}},
	New: func(d processDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *processParams) (registry.Result, error) {
			return runProcess(ctx, d, call, p)
		})
	},
})

//go:embed process.md
var processDescription string

// processName is the tool's name, for other tools' hints.
const processName = "process"

// Output sizes of the process tool's answers (hermes's).
const (
	processPollChars       = 1000
	processCompletionChars = 2000
	processLogLines        = 200
)

// processParams are process's arguments. SessionID is any: models send
// numbers too.
type processParams struct {
	Action    string `json:"action" schema:"required" enum:"list,poll,log,wait,kill,write,submit,close"`
	SessionID any    `json:"session_id" schema:"type=string" desc:"From the background start's output; any unique prefix works ('4dae' for proc_4dae56ca81f6). Required except for 'list'."`
	Data      string `json:"data" desc:"Stdin text for write/submit."`
	Timeout   *int   `json:"timeout" schema:"minimum=1" desc:"Max seconds for 'wait'."`
	Offset    *int   `json:"offset" desc:"Log line offset (default: last 200)."`
	Limit     *int   `json:"limit" schema:"minimum=1" desc:"Max log lines."`
}

// processInfo is a process as list and poll show it.
type processInfo struct {
	SessionID     string `json:"session_id"`
	Command       string `json:"command"`
	Status        string `json:"status"`
	PID           int    `json:"pid"`
	UptimeSeconds int    `json:"uptime_seconds"`
	OutputPreview string `json:"output_preview"`
	ExitCode      *int   `json:"exit_code,omitempty"`
}

type processList struct {
	Processes []processInfo `json:"processes"`
}

// processLog is log's answer.
type processLog struct {
	SessionID  string `json:"session_id"`
	Command    string `json:"command"`
	Status     string `json:"status"`
	Output     string `json:"output"`
	TotalLines int    `json:"total_lines"`
	Showing    string `json:"showing"`
}

// processOutcome is the answer of wait and kill.
type processOutcome struct {
	Status            string `json:"status"`
	SessionID         string `json:"session_id,omitempty"`
	Command           string `json:"command,omitempty"`
	CompletionReason  string `json:"completion_reason,omitempty"`
	TerminationSource string `json:"termination_source,omitempty"`
	ExitCode          *int   `json:"exit_code,omitempty"`
	Output            string `json:"output"`
	ProcessRunning    bool   `json:"process_running,omitempty"`
	Note              string `json:"note,omitempty"`
	TimeoutNote       string `json:"timeout_note,omitempty"`
}

// processStatus is the answer of write, submit and close, and of errors.
type processStatus struct {
	Status       string `json:"status"`
	Error        string `json:"error,omitempty"`
	BytesWritten *int   `json:"bytes_written,omitempty"`
	Message      string `json:"message,omitempty"`
}

func runProcess(ctx context.Context, s processDeps, _ *registry.Call, p *processParams) (registry.Result, error) {
	id := sessionIDArg(p.SessionID)
	switch p.Action {
	case "list":
		out := processList{Processes: []processInfo{}}
		for _, snap := range s.Processes().List() {
			out.Processes = append(out.Processes, processInfoOf(snap, 200))
		}
		return registry.OK(out), nil
	case "poll", "log", "wait", "kill", "write", "submit", "close":
	default:
		return registry.Errorf("Unknown process action: %s. Use: list, poll, log, wait, kill, write, submit, close", p.Action), nil
	}
	if id == "" {
		return registry.Errorf("session_id is required for %s", p.Action), nil
	}
	b := s.Processes().Get(id)
	if b == nil {
		return registry.Failed(processStatus{Status: "not_found", Error: "No process with ID " + id}), nil
	}
	switch p.Action {
	case "poll":
		return registry.OK(processInfoOf(b.Snapshot(), processPollChars)), nil
	case "log":
		return registry.OK(processLogOf(b.Snapshot(), p.Offset, p.Limit)), nil
	case "wait":
		return processWait(ctx, s.TerminalSettings(), b, p.Timeout), nil
	case "kill":
		killed := b.Kill()
		snap := b.Snapshot()
		out := processOutcome{Command: snap.Command, ExitCode: &snap.Exit.Code, Output: cleanOutput(snap, processCompletionChars)}
		if killed {
			out.Status, out.SessionID, out.CompletionReason, out.TerminationSource = "killed", snap.ID, "killed", "process.kill"
		} else {
			out.Status = "already_exited"
		}
		return registry.OK(out), nil
	}
	// write, submit, close
	if !b.Snapshot().Running {
		return registry.Failed(processStatus{Status: "already_exited", Error: "Process has already finished"}), nil
	}
	switch p.Action {
	case "close":
		if err := b.CloseStdin(); err != nil {
			return registry.Failed(processStatus{Status: "error", Error: err.Error()}), nil
		}
		return registry.OK(processStatus{Status: "ok", Message: "stdin closed"}), nil
	default:
		data := p.Data
		if p.Action == "submit" {
			data += "\n"
		}
		n, err := b.Write([]byte(data))
		if err != nil {
			return registry.Failed(processStatus{Status: "error", Error: err.Error()}), nil
		}
		return registry.OK(processStatus{Status: "ok", BytesWritten: &n}), nil
	}
}

// processWait blocks until b exits, the turn is cancelled or the timeout
// (at most cfg's terminal.timeout) passes.
func processWait(ctx context.Context, cfg TerminalConfig, b *terminal.Background, timeoutArg *int) registry.Result {
	limit := cfg.defaultTimeout()
	maxS := int(limit / time.Second)
	wait, note := limit, ""
	if timeoutArg != nil {
		if *timeoutArg <= 0 {
			return registry.Failed(processStatus{Status: "error", Error: fmt.Sprintf("timeout must be positive (got %d)", *timeoutArg)})
		}
		wait = time.Duration(*timeoutArg) * time.Second
		if *timeoutArg > maxS {
			wait, note = limit, fmt.Sprintf("Requested wait of %ds was clamped to configured limit of %ds", *timeoutArg, maxS)
		}
	}
	if b.Wait(ctx, wait) {
		snap := b.Snapshot()
		return registry.OK(processOutcome{Status: "exited", Command: snap.Command, ExitCode: &snap.Exit.Code,
			Output: cleanOutput(snap, processCompletionChars), TimeoutNote: note})
	}
	snap := b.Snapshot()
	if ctx.Err() != nil {
		return registry.OK(processOutcome{Status: "interrupted", Command: snap.Command, Output: cleanOutput(snap, processPollChars),
			Note: "User sent a new message -- wait interrupted", TimeoutNote: note})
	}
	base := fmt.Sprintf("Wait window of %ds elapsed — the process is still running. This is not an error. Uptime: %ds.",
		int(wait/time.Second), int(time.Since(snap.Started)/time.Second))
	base += " You will be told when it exits — do more work instead of waiting again."
	if note != "" {
		base = note + ". " + base
	}
	return registry.OK(processOutcome{Status: "timeout", Command: snap.Command, Output: cleanOutput(snap, processPollChars),
		ProcessRunning: true, TimeoutNote: base})
}

// sessionIDArg reads session_id: a string, or a number the model sent.
func sessionIDArg(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	default:
		return fmt.Sprint(x)
	}
}

// cleanOutput is the last n characters of a process's output, as the
// model may read them (ANSI stripped, secrets redacted).
func cleanOutput(snap terminal.Snapshot, n int) string {
	return terminal.Redact(terminal.StripANSI(tailChars(snap.Output, n)), snap.Command)
}

func processInfoOf(snap terminal.Snapshot, previewChars int) processInfo {
	info := processInfo{
		SessionID: snap.ID, Command: terminal.Redact(snap.Command, ""), Status: "running", PID: snap.PID,
		UptimeSeconds: int(time.Since(snap.Started) / time.Second), OutputPreview: cleanOutput(snap, previewChars),
	}
	if !snap.Running {
		info.Status = "exited"
		code := snap.Exit.Code
		info.ExitCode = &code
		info.UptimeSeconds = int(snap.Ended.Sub(snap.Started) / time.Second)
	}
	return info
}

// processLogOf pages the output by lines: the last limit lines by
// default, or limit lines from offset.
func processLogOf(snap terminal.Snapshot, offset, limit *int) processLog {
	n := processLogLines
	if limit != nil && *limit > 0 {
		n = *limit
	}
	text := terminal.StripANSI(snap.Output)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	var sel []string
	if offset == nil {
		sel = lines[max(0, len(lines)-n):]
	} else {
		from := min(max(0, *offset), len(lines))
		sel = lines[from:min(from+n, len(lines))]
	}
	status := "running"
	if !snap.Running {
		status = "exited"
	}
	return processLog{
		SessionID: snap.ID, Command: terminal.Redact(snap.Command, ""), Status: status,
		Output: terminal.Redact(strings.Join(sel, "\n"), snap.Command), TotalLines: len(lines),
		Showing: fmt.Sprintf("%d lines", len(sel)),
	}
}

// processTitle is hermes's "process <action>[: <session_id>]".
func processTitle(args map[string]any) string {
	action := strArg(args, "action")
	if action == "" {
		return processName
	}
	if id := sessionIDArg(args["session_id"]); id != "" {
		return "process " + action + ": " + id
	}
	return "process " + action
}

// processRender shows a process answer's output in a fence.
func processRender(_ map[string]any, r registry.Result) string {
	var status, output string
	switch v := r.Value.(type) {
	case processInfo:
		status, output = v.Status, v.OutputPreview
	case processLog:
		status, output = fmt.Sprintf("%s (%s of %d)", v.Status, v.Showing, v.TotalLines), v.Output
	case processOutcome:
		status, output = v.Status, v.Output
		if v.ExitCode != nil {
			status += fmt.Sprintf(", exit code %d", *v.ExitCode)
		}
	case processList:
		var b strings.Builder
		fmt.Fprintf(&b, "%d background process(es)", len(v.Processes))
		for _, p := range v.Processes {
			fmt.Fprintf(&b, "\n- `%s` %s: `%s`", p.SessionID, p.Status, clipRunes(p.Command, 80))
		}
		return b.String()
	default:
		return ""
	}
	if output == "" {
		return "Status: " + status
	}
	out := clipRunes(output, renderOutputChars)
	f := fence(out)
	return fmt.Sprintf("Status: %s\n\n%s\n%s\n%s", status, f, out, f)
}

// processDeps is what process uses of its session: the background
// processes the terminal tool started, and terminal.timeout (the longest
// wait).
type processDeps interface {
	Processes() *terminal.Table
	TerminalSettings() TerminalConfig
}
