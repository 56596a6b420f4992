package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// step is one phase of a run, in order.
type step int

const (
	stepInit step = iota
	stepAuth
	stepNew
	stepRSS
	stepPrompt1
	stepPrompt2
	stepExit
	stepNone // no step: nothing to skip
)

var stepNames = [...]string{"initialize", "authenticate", "session/new", "RSS", "first prompt", "second prompt", "exit"}

func (s step) String() string {
	if s >= 0 && int(s) < len(stepNames) {
		return stepNames[s]
	}
	return "none"
}

// metric is one measured quantity.
type metric struct {
	Key    string  // JSON key
	Label  string  // row label
	Unit   string  // "ms" or "MiB"
	Target float64 // upper bound the acceptance criteria set for ours; 0 for none
	Step   step    // the step that measures it
}

// metrics is the immutable list of table rows.
var metrics = []metric{
	{"initialize_ms", "process start → `initialize` reply", "ms", 5, stepInit},
	{"authenticate_ms", "`authenticate`", "ms", 0, stepAuth},
	{"session_new_ms", "`session/new` request → reply", "ms", 2, stepNew},
	{"rss_mib", "RSS after `session/new` (VmRSS)", "MiB", 20, stepRSS},
	{"hwm_mib", "peak RSS so far (VmHWM)", "MiB", 0, stepRSS},
	{"tree_rss_mib", "RSS of the whole process tree", "MiB", 0, stepRSS},
	{"prompt1_ms", "first prompt: request → reply", "ms", 0, stepPrompt1},
	{"prompt1_overhead_ms", "first prompt: agent overhead", "ms", 5, stepPrompt1},
	{"prompt2_ms", "second prompt: request → reply", "ms", 0, stepPrompt2},
	{"prompt2_overhead_ms", "second prompt: agent overhead", "ms", 5, stepPrompt2},
	{"exit_ms", "stdin closed → process exit", "ms", 0, stepExit},
}

// runResult is one run of one agent.
type runResult struct {
	Values   map[string]float64 `json:"values"`
	FailStep step               `json:"-"`                   // first failed step, or stepNone
	FailedAt string             `json:"failed_at,omitempty"` // its name
	Failure  string             `json:"error,omitempty"`     // its error, with the agent's stderr tail
	Notes    []string           `json:"notes,omitempty"`     // metrics not measured, and why
	Requests map[string]int     `json:"agent_requests,omitempty"`
	Updates  int                `json:"session_updates"`
	BadLines int                `json:"non_json_stdout_lines,omitempty"`
	BadLine  string             `json:"first_non_json_stdout_line,omitempty"`
	ChatReqs [2]int             `json:"model_requests_per_prompt"`
}

// runner measures agents against one fake model server.
type runner struct {
	cfg   config
	model *fakeModel
}

// runOnce starts spec's agent once and measures every step before skip
// (exit is always measured when the agent started).
func (r *runner) runOnce(ctx context.Context, spec agentSpec, skip step) runResult {
	res := runResult{Values: map[string]float64{}, FailStep: stepNone}
	fail := func(s step, err error, stderrPath string) {
		if res.FailStep == stepNone {
			res.FailStep, res.FailedAt = s, s.String()
			res.Failure = err.Error()
			if tail := fileTail(stderrPath, 600); tail != "" {
				res.Failure += "; agent stderr: " + tail
			}
		}
	}

	root, err := os.MkdirTemp("", "bench-acp-")
	if err != nil {
		fail(stepInit, fmt.Errorf("make run folder: %w", err), "")
		return res
	}
	defer os.RemoveAll(root)
	home, ws, stderrPath := filepath.Join(root, "home"), filepath.Join(root, "workspace"), filepath.Join(root, "stderr.log")
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			fail(stepInit, fmt.Errorf("make run folder: %w", err), "")
			return res
		}
	}
	ep, err := r.model.endpoint()
	if err != nil {
		fail(stepInit, err, "")
		return res
	}
	defer ep.Close()
	expand := strings.NewReplacer("{home}", home, "{workspace}", ws, "{base_url}", ep.BaseURL()).Replace
	argv := make([]string, len(spec.Argv))
	for i, a := range spec.Argv {
		argv[i] = expand(a)
	}
	env := append(os.Environ(),
		"HERMES_HOME="+home,
		"OPENAI_BASE_URL="+ep.BaseURL(),
		"OPENAI_API_KEY=bench-fake-key",
		"HERMES_MODEL="+r.cfg.Model,
	)
	for _, kv := range spec.Env {
		env = append(env, expand(kv))
	}

	p, err := startAgent(argv, env, ws, stderrPath)
	if err != nil {
		fail(stepInit, err, stderrPath)
		return res
	}
	defer p.stop()
	c := p.conn

	stepCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, r.cfg.Timeout)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

	measure := func() {
		// initialize: from just before the fork to the reply.
		sctx, cancel := stepCtx()
		_, resp, err := c.call(sctx, "initialize", map[string]any{
			"protocolVersion":    1,
			"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false},
			"clientInfo":         map[string]string{"name": "hermes-acp-bench", "version": "1"},
		})
		cancel()
		if err != nil {
			fail(stepInit, p.explain(err), stderrPath)
			return
		}
		var ir struct {
			ProtocolVersion *int `json:"protocolVersion"`
		}
		if err := json.Unmarshal(resp.result, &ir); err != nil || ir.ProtocolVersion == nil {
			fail(stepInit, fmt.Errorf("initialize: reply without protocolVersion: %s", truncate(string(resp.result), 200)), stderrPath)
			return
		}
		res.Values["initialize_ms"] = ms(resp.at.Sub(p.started))

		if spec.Auth != "" && skip > stepAuth {
			sctx, cancel := stepCtx()
			sent, resp, err := c.call(sctx, "authenticate", map[string]string{"methodId": spec.Auth})
			cancel()
			if err != nil {
				fail(stepAuth, p.explain(err), stderrPath)
				return
			}
			res.Values["authenticate_ms"] = ms(resp.at.Sub(sent))
		}

		if skip <= stepNew {
			return
		}
		sctx, cancel = stepCtx()
		sent, resp, err := c.call(sctx, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
		cancel()
		if err != nil {
			fail(stepNew, p.explain(err), stderrPath)
			return
		}
		var nr struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(resp.result, &nr); err != nil || nr.SessionID == "" {
			fail(stepNew, fmt.Errorf("session/new: reply without sessionId: %s", truncate(string(resp.result), 200)), stderrPath)
			return
		}
		res.Values["session_new_ms"] = ms(resp.at.Sub(sent))

		if skip <= stepRSS {
			return
		}
		c.settle(r.cfg.Settle)
		pid := p.cmd.Process.Pid
		mem, err := readMem(pid)
		if err != nil {
			fail(stepRSS, err, stderrPath)
			return
		}
		tree, err := treeRSS(pid)
		if err != nil {
			fail(stepRSS, err, stderrPath)
			return
		}
		res.Values["rss_mib"] = float64(mem.RSS) / 1024
		res.Values["hwm_mib"] = float64(mem.HWM) / 1024
		res.Values["tree_rss_mib"] = float64(tree) / 1024

		if spec.NoPrompt {
			return
		}
		for i, s := range []step{stepPrompt1, stepPrompt2} {
			if skip <= s {
				return
			}
			key := fmt.Sprintf("prompt%d", i+1)
			before := c.Stats()
			sctx, cancel := stepCtx()
			sent, resp, err := c.call(sctx, "session/prompt", map[string]any{
				"sessionId": nr.SessionID,
				"prompt":    []map[string]string{{"type": "text", "text": r.cfg.Prompt}},
			})
			cancel()
			if err != nil {
				fail(s, p.explain(err), stderrPath)
				return
			}
			var pr struct {
				StopReason string `json:"stopReason"`
			}
			if err := json.Unmarshal(resp.result, &pr); err != nil || pr.StopReason == "" {
				fail(s, fmt.Errorf("%s: reply without stopReason: %s", s, truncate(string(resp.result), 200)), stderrPath)
				return
			}
			busy, chats := ep.serverTime(sent, resp.at)
			total := resp.at.Sub(sent)
			res.ChatReqs[i] = chats
			res.Values[key+"_ms"] = ms(total)
			after := c.Stats()
			switch {
			case chats == 0:
				res.Notes = append(res.Notes, fmt.Sprintf("%s: the agent made no request to the fake model (stopReason %q, %d message chunks), so its overhead is not measured", s, pr.StopReason, after.MessageChunks-before.MessageChunks))
			case pr.StopReason != "end_turn":
				fail(s, fmt.Errorf("%s: stopReason %q, want end_turn", s, pr.StopReason), stderrPath)
				return
			default:
				res.Values[key+"_overhead_ms"] = ms(total - busy)
			}
		}
	}
	measure()

	st := c.Stats()
	res.Requests, res.Updates, res.BadLines, res.BadLine = st.Requests, st.Updates, st.BadLines, st.FirstBadLine

	p.tree = descendants(p.cmd.Process.Pid)
	d, err := p.closeAndWait(r.cfg.ExitIn)
	if err != nil {
		fail(stepExit, err, stderrPath)
	} else {
		res.Values["exit_ms"] = ms(d)
	}
	return res
}

// agentProc is one started agent process. Its owner calls stop.
type agentProc struct {
	cmd      *exec.Cmd
	started  time.Time // just before the fork
	conn     *conn
	stdin    *os.File // our end
	stdout   *os.File // our end
	waitCh   chan error
	waitErr  error
	exited   bool
	stdinEOF bool
	tree     []int // descendants seen before stdin was closed
}

// startAgent starts argv with env in dir, its stderr going to stderrPath.
func startAgent(argv, env []string, dir, stderrPath string) (*agentProc, error) {
	return startAgentOptions(argv, env, dir, stderrPath, connOptions{})
}

// startAgentOptions is startAgent with options for the connection.
func startAgentOptions(argv, env []string, dir, stderrPath string, opts connOptions) (*agentProc, error) {
	errFile, err := os.Create(stderrPath)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	defer errFile.Close()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errFile
	setGroup(cmd)
	p := &agentProc{cmd: cmd, stdin: inW, stdout: outR, waitCh: make(chan error, 1)}
	p.started = time.Now()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go func() { p.waitCh <- cmd.Wait() }()
	p.conn = newConnOptions(outR, inW, opts)
	return p, nil
}

// explain adds the exit status to err when the agent has exited.
func (p *agentProc) explain(err error) error {
	if !p.exited {
		select {
		case p.waitErr = <-p.waitCh:
			p.exited = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	if p.exited {
		status := "exit status 0"
		if p.waitErr != nil {
			status = p.waitErr.Error()
		}
		return fmt.Errorf("%w (agent exited: %s)", err, status)
	}
	return err
}

// closeAndWait closes the agent's stdin and returns how long it took to
// exit; after limit it gives up.
func (p *agentProc) closeAndWait(limit time.Duration) (time.Duration, error) {
	if p.exited {
		return 0, errors.New("exit: the agent had already exited")
	}
	start := time.Now()
	p.stdin.Close()
	p.stdinEOF = true
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case p.waitErr = <-p.waitCh:
		d := time.Since(start)
		p.exited = true
		if p.waitErr != nil {
			return d, fmt.Errorf("exit: %w", p.waitErr)
		}
		return d, nil
	case <-t.C:
		return 0, fmt.Errorf("exit: still running %v after stdin closed", limit)
	}
}

// stop kills the agent's process group and any other process descended
// from it, waits for the process and the reader, and closes our pipe ends.
func (p *agentProc) stop() {
	rest := p.tree
	if !p.exited {
		rest = append(rest, descendants(p.cmd.Process.Pid)...)
	}
	killGroup(p.cmd)
	killPids(rest)
	if !p.exited {
		p.waitErr = <-p.waitCh
		p.exited = true
	}
	if !p.stdinEOF {
		p.stdin.Close()
	}
	p.stdout.Close() // ends the reader even if a grandchild holds the pipe
	<-p.conn.Done()
}

// ansiEscape matches terminal colour sequences, which some agents write to
// stderr even when it is not a terminal.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// fileTail returns the last n bytes of a file, on one line.
func fileTail(path string, n int64) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	if st.Size() > n {
		if _, err := f.Seek(st.Size()-n, io.SeekStart); err != nil {
			return ""
		}
	}
	b, _ := io.ReadAll(f)
	b = ansiEscape.ReplaceAll(b, nil)
	return strings.Join(strings.Fields(string(b)), " ")
}
