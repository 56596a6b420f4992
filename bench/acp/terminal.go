package main

// The terminal benchmark: one prompt turn in which the agent runs a shell
// command itself (the client advertises no terminal capability) and
// streams its output as session/update notifications. See termUsage.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// termScenario is one command the agents run.
type termScenario struct {
	Key     string // for --scenarios and JSON
	Label   string // in the report
	Command string // what the fake model asks the agent to run
	Expect  string // regular expression the command's output, as the model got it back, must match
}

// termScenarios are the scenarios, in the order they run.
var termScenarios = []termScenario{
	{"echo", "`echo hi` (one terminal turn)", "echo hi", `\bhi\b`},
	{"seq", "`seq 1 35000`", "seq 1 35000", `\b35000\b`},
	{"5mb", "5 MB of output", `head -c 5000000 /dev/zero | tr '\0' a | fold -w 100`, `(^|[^a])a{100}([^a]|$)`},
}

// termPrompt is the prompt of a terminal benchmark turn.
func termPrompt(command string) string {
	return "Run this command in the terminal and tell me when it is done.\n" + commandMarker + command
}

// agentKind is how the harness points an agent at its fake model.
type agentKind int

const (
	kindHermes agentKind = iota // Chat Completions, HERMES_HOME / OPENAI_BASE_URL
	kindCodex                   // Responses API, CODEX_HOME/config.toml
)

// termAgent is one agent to measure.
type termAgent struct {
	Name string
	Kind agentKind
	Argv []string
	// ZedMeta advertises clientCapabilities._meta.terminal_output, Zed's
	// display-only terminal (still no ACP terminal capability).
	ZedMeta bool `json:",omitempty"`
}

// termConfig is the parsed command line of the terminal benchmark.
type termConfig struct {
	Agents        []termAgent
	Scenarios     []termScenario
	Runs          int
	Warmup        int
	Budget        time.Duration // per agent and scenario: no new run starts after it
	Timeout       time.Duration // per protocol step, prompt included
	Sample        time.Duration // RSS sampling interval
	JSON          bool
	CodexSandbox  string
	CodexApproval string
	KeepDirs      bool // keep each run's folder (home, workspace, agent stderr) for debugging
	AgentEnv      []string
}

const termUsage = `Measures one prompt turn in which an ACP agent runs a shell command itself and
streams its output (the client advertises no terminal capability): wall time,
session/update notifications and their JSON bytes, RSS growth of the agent's
process tree. hermes-acp gets a fake Chat Completions model that calls its
"terminal" tool; codex-acp a fake Responses API (CODEX_HOME/config.toml written
per run) that calls its shell tool. Everything stays on loopback.

Usage:
  go run ./bench/acp terminal [flags] --hermes 'HERMES [ARGS]' [--codex 'CODEX-ACP [ARGS]']

Flags:
`

// parseTermArgs parses the terminal benchmark's command line.
func parseTermArgs(args []string, stderr io.Writer) (termConfig, error) {
	fs := flag.NewFlagSet("bench/acp terminal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, termUsage)
		fs.PrintDefaults()
	}
	c := termConfig{}
	agents := &agentList{}
	fs.Var(agents.adder(kindHermes), "hermes", "a hermes-acp command, shell-quoted in one argument (repeatable)")
	fs.Var(agents.adder(kindCodex), "codex", "a codex-acp command (its native binary and -c overrides), shell-quoted in one argument (repeatable)")
	fs.Var(agents.namer(), "name", "label of the agent given just before (default: hermes-acp, codex-acp)")
	var scenarios string
	keys := make([]string, len(termScenarios))
	for i, s := range termScenarios {
		keys[i] = s.Key
	}
	fs.StringVar(&scenarios, "scenarios", strings.Join(keys, ","), "comma-separated scenarios to run")
	var custom, expect string
	fs.StringVar(&custom, "command", "", "also run this shell command as scenario \"custom\"")
	fs.StringVar(&expect, "expect", "", "regular expression the output of --command must match (default: anything)")
	fs.IntVar(&c.Runs, "runs", 5, "measured runs per agent and scenario")
	fs.IntVar(&c.Warmup, "warmup", 1, "uncounted `echo hi` runs per agent before the measured ones")
	fs.DurationVar(&c.Budget, "budget", 6*time.Minute, "per agent and scenario, no further run starts once this much time was spent (at least one run is made)")
	fs.DurationVar(&c.Timeout, "timeout", 10*time.Minute, "limit for each protocol step, the prompt turn included")
	fs.DurationVar(&c.Sample, "sample", 20*time.Millisecond, "interval of the RSS samples during the prompt turn")
	fs.BoolVar(&c.JSON, "json", false, "print JSON instead of Markdown")
	fs.StringVar(&c.CodexSandbox, "codex-sandbox", "danger-full-access", "codex sandbox_mode")
	fs.StringVar(&c.CodexApproval, "codex-approval", "never", "codex approval_policy")
	fs.Var(agents.zedMeta(), "zed-terminal-output", "for the agent given just before, advertise clientCapabilities._meta.terminal_output as Zed does (codex-acp then streams into a display-only terminal)")
	fs.BoolVar(&c.KeepDirs, "keep", false, "keep each run's folder (home, workspace, agent stderr) and print its path")
	var env stringList
	fs.Var(&env, "env", "extra KEY=VALUE for every agent (repeatable), e.g. RUST_LOG=debug with --keep")
	if err := fs.Parse(args); err != nil {
		return termConfig{}, err
	}
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return termConfig{}, fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
	}
	c.AgentEnv = env
	if fs.NArg() > 0 {
		return termConfig{}, fmt.Errorf("unexpected arguments %q: give the agents with --hermes and --codex", fs.Args())
	}
	switch {
	case c.Runs < 1:
		return termConfig{}, fmt.Errorf("--runs %d: want at least 1", c.Runs)
	case c.Warmup < 0:
		return termConfig{}, fmt.Errorf("--warmup %d: want 0 or more", c.Warmup)
	case c.Timeout <= 0 || c.Budget <= 0 || c.Sample <= 0:
		return termConfig{}, errors.New("--timeout, --budget and --sample want positive durations")
	}
	c.Agents = agents.list
	if len(c.Agents) == 0 {
		fs.Usage()
		return termConfig{}, errors.New("no agent: give --hermes and/or --codex")
	}
	names := map[string]bool{}
	for _, a := range c.Agents {
		if names[a.Name] {
			return termConfig{}, fmt.Errorf("two agents are labelled %q: tell them apart with --name", a.Name)
		}
		names[a.Name] = true
	}
	for _, k := range strings.Split(scenarios, ",") {
		i := slices.IndexFunc(termScenarios, func(s termScenario) bool { return s.Key == strings.TrimSpace(k) })
		if i < 0 {
			return termConfig{}, fmt.Errorf("--scenarios: unknown scenario %q (have %s)", k, strings.Join(keys, ", "))
		}
		c.Scenarios = append(c.Scenarios, termScenarios[i])
	}
	if _, err := regexp.Compile(expect); err != nil {
		return termConfig{}, fmt.Errorf("--expect: %w", err)
	}
	if custom != "" {
		c.Scenarios = append(c.Scenarios, termScenario{Key: "custom", Label: "`" + custom + "`", Command: custom, Expect: expect})
	}
	return c, nil
}

// agentList collects --hermes, --codex and --name in command-line order.
type agentList struct{ list []termAgent }

type funcFlag func(string) error

func (f funcFlag) String() string     { return "" }
func (f funcFlag) Set(s string) error { return f(s) }

// boolFuncFlag is a funcFlag that takes no value.
type boolFuncFlag struct{ funcFlag }

func (boolFuncFlag) IsBoolFlag() bool { return true }

func (l *agentList) zedMeta() flag.Value {
	return boolFuncFlag{func(s string) error {
		if len(l.list) == 0 {
			return errors.New("--zed-terminal-output applies to the agent given before it: give --hermes or --codex first")
		}
		l.list[len(l.list)-1].ZedMeta = s == "true"
		return nil
	}}
}

func (l *agentList) adder(kind agentKind) flag.Value {
	return funcFlag(func(s string) error {
		argv, err := splitCommand(s)
		if err != nil {
			return err
		}
		// Agents run in their own workspace: a relative path is relative to here.
		if strings.ContainsRune(argv[0], filepath.Separator) && !filepath.IsAbs(argv[0]) {
			if abs, err := filepath.Abs(argv[0]); err == nil {
				argv[0] = abs
			}
		}
		name := "hermes-acp"
		if kind == kindCodex {
			name = "codex-acp"
		}
		l.list = append(l.list, termAgent{Name: name, Kind: kind, Argv: argv})
		return nil
	})
}

func (l *agentList) namer() flag.Value {
	return funcFlag(func(s string) error {
		if len(l.list) == 0 {
			return errors.New("--name labels the agent given before it: give --hermes or --codex first")
		}
		l.list[len(l.list)-1].Name = s
		return nil
	})
}

// termMetric is one row of a scenario's table.
type termMetric struct {
	Key        string
	Label      string
	Unit       string  // "s", "ms", "MiB", "B" (bytes, printed in a fitting unit) or "" (a count)
	Target     float64 // upper bound for hermes-acp in the big-output scenarios, in Unit; 0 for none
	TargetText string  // how issue 11 states it
}

// termMetrics are the rows, in order.
var termMetrics = []termMetric{
	{"wall_s", "prompt turn: request → reply", "s", 2, "< 2 s"},
	{"overhead_ms", "agent overhead (turn minus fake-model time)", "ms", 0, ""},
	{"updates", "`session/update` notifications", "", 50.5, "≤ 50"},
	{"tool_updates", "of which `tool_call_update`", "", 0, ""},
	{"update_bytes", "JSON of those notifications", "B", 0, ""},
	{"max_update_bytes", "largest notification", "B", 0, ""},
	{"rss_growth_mib", "RSS growth of the process tree (peak − before the prompt)", "MiB", 30e6 / (1 << 20), "< 30 MB"},
	{"rss_peak_mib", "peak RSS of the process tree", "MiB", 0, ""},
	{"model_requests", "model requests", "", 0, ""},
}

// termRun is one measured turn.
type termRun struct {
	Values  map[string]float64 `json:"values"`
	Failure string             `json:"error,omitempty"`
	Notes   []string           `json:"notes,omitempty"`
}

// termCell is the summary of one agent in one scenario.
type termCell struct {
	Agent    string             `json:"agent"`
	Scenario string             `json:"scenario"`
	Runs     []termRun          `json:"runs"`
	Metrics  map[string]summary `json:"metrics"`
	Failures []string           `json:"failures,omitempty"`
	Capped   bool               `json:"capped_by_budget,omitempty"`
	spent    time.Duration
}

// termReport is the whole result.
type termReport struct {
	Command   string         `json:"command"`
	Machine   machineInfo    `json:"machine"`
	Runs      int            `json:"runs"`
	Budget    string         `json:"budget"`
	Agents    []termAgent    `json:"agents"`
	Scenarios []termScenario `json:"scenarios"`
	Cells     []*termCell    `json:"cells"`
	Warmups   []termRun      `json:"warmups,omitempty"`
}

// runTerminal is the terminal subcommand: 0 when the report was written,
// 1 when it could not be, 2 for a bad command line.
func runTerminal(ctx context.Context, prog string, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseTermArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "bench/acp terminal:", err)
		return 2
	}
	rep, err := measureTerminal(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench/acp terminal:", err)
		return 1
	}
	rep.Command = commandLine(prog, append([]string{"terminal"}, args...))
	if cfg.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = writeTermMarkdown(stdout, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench/acp terminal: write report:", err)
		return 1
	}
	return 0
}

// measureTerminal runs the warm-ups, then each scenario's runs alternating
// between the agents, each agent until --runs or its --budget.
func measureTerminal(ctx context.Context, cfg termConfig, progress io.Writer) (*termReport, error) {
	rep := &termReport{Machine: readMachine(), Runs: cfg.Runs, Budget: cfg.Budget.String(), Agents: cfg.Agents, Scenarios: cfg.Scenarios}
	for w := range cfg.Warmup {
		for _, a := range cfg.Agents {
			r := runTermOnce(ctx, cfg, a, termScenarios[0])
			rep.Warmups = append(rep.Warmups, r)
			fmt.Fprintf(progress, "[%s warm-up %d/%d] %s\n", a.Name, w+1, cfg.Warmup, termProgress(r))
		}
	}
	for _, sc := range cfg.Scenarios {
		cells := make([]*termCell, len(cfg.Agents))
		for i, a := range cfg.Agents {
			cells[i] = &termCell{Agent: a.Name, Scenario: sc.Key}
			rep.Cells = append(rep.Cells, cells[i])
		}
		for n := range cfg.Runs {
			for i, a := range cfg.Agents {
				c := cells[i]
				if n > 0 && c.spent >= cfg.Budget {
					c.Capped = true
					continue
				}
				if n > 0 && len(c.Runs) > 0 && c.Runs[len(c.Runs)-1].Failure != "" && strings.Contains(c.Runs[len(c.Runs)-1].Failure, pendingTool) {
					continue // the tool is missing: more runs say nothing new
				}
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("interrupted: %w", context.Cause(ctx))
				}
				start := time.Now()
				r := runTermOnce(ctx, cfg, a, sc)
				c.spent += time.Since(start)
				c.Runs = append(c.Runs, r)
				fmt.Fprintf(progress, "[%s %s %d/%d] %s\n", a.Name, sc.Key, n+1, cfg.Runs, termProgress(r))
			}
		}
		for _, c := range cells {
			c.summarize()
		}
	}
	return rep, nil
}

// summarize fills Metrics and Failures from the runs that succeeded.
func (c *termCell) summarize() {
	c.Metrics = map[string]summary{}
	for _, m := range termMetrics {
		var xs []float64
		for _, r := range c.Runs {
			if r.Failure != "" {
				continue
			}
			if v, ok := r.Values[m.Key]; ok {
				xs = append(xs, v)
			}
		}
		if len(xs) > 0 {
			c.Metrics[m.Key] = summarize(xs)
		}
	}
	seen := map[string]bool{}
	for _, r := range c.Runs {
		if r.Failure != "" && !seen[r.Failure] {
			seen[r.Failure] = true
			c.Failures = append(c.Failures, r.Failure)
		}
	}
}

func termProgress(r termRun) string {
	var parts []string
	for _, m := range termMetrics {
		if v, ok := r.Values[m.Key]; ok {
			parts = append(parts, m.Key+" "+formatTerm(v, m.Unit))
		}
	}
	line := strings.Join(parts, ", ")
	if r.Failure != "" {
		line += "; FAILED: " + truncate(r.Failure, 400)
	}
	return line
}

// pendingTool starts the failure of a hermes run whose agent offered the
// model no terminal tool.
const pendingTool = "pending the terminal tool"

// hermesRespond answers hermes-acp's Chat Completions requests: the
// request whose last message is the prompt gets a call of the "terminal"
// tool with the prompt's command; the request that carries the tool's
// result gets a short text.
func hermesRespond(seen *toolOutputs) func(modeltest.Request) modeltest.Turn {
	var mu sync.Mutex
	n := 0
	return func(req modeltest.Request) modeltest.Turn {
		// The last user message naming a command starts the turn; a tool
		// result after it means the command ran.
		asked := -1
		for i, m := range req.Messages {
			if m.Role == "user" && commandFrom(m.Content) != "" {
				asked = i
			}
		}
		if asked < 0 {
			return modeltest.Turn{Text: []string{"No command was asked for."}}
		}
		answered := false
		for _, m := range req.Messages[asked+1:] {
			if m.Role == "tool" {
				seen.add(m.Content)
				answered = true
			}
		}
		if answered {
			return modeltest.Turn{Text: []string{doneText}}
		}
		cmd := commandFrom(req.Messages[asked].Content)
		var names []string
		for _, t := range req.Tools {
			names = append(names, t.Name)
			if t.Name == "terminal" {
				mu.Lock()
				n++
				id := fmt.Sprintf("%s%d", callPrefix, n)
				mu.Unlock()
				args, _ := json.Marshal(map[string]string{"command": cmd})
				return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: id, Name: "terminal", Arguments: string(args)}}}
			}
		}
		seen.note("%s: the agent offered the model no `terminal` tool (tools: %s)", pendingTool, strings.Join(names, ", "))
		return modeltest.Turn{Text: []string{"There is no terminal tool."}}
	}
}

// codexConfig is CODEX_HOME/config.toml for a run: the fake Responses API
// as the only model provider, approvals off, and every phone-home switch
// off (analytics, feedback, OpenTelemetry export, update checks,
// websockets, web search).
func codexConfig(baseURL, sandbox, approval string) string {
	return fmt.Sprintf(`model = "bench-model"
model_provider = "bench"
approval_policy = %q
sandbox_mode = %q
check_for_update_on_startup = false
web_search = "disabled"
model_reasoning_summary = "none"

[model_providers.bench]
name = "bench fake Responses API"
base_url = %q
wire_api = "responses"
env_key = "BENCH_FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"
log_user_prompt = false

[history]
persistence = "none"
`, approval, sandbox, baseURL)
}

// runTermOnce starts agent a fresh and measures one prompt turn of sc.
func runTermOnce(ctx context.Context, cfg termConfig, a termAgent, sc termScenario) termRun {
	res := termRun{Values: map[string]float64{}}
	stderrPath := ""
	fail := func(err error) termRun {
		res.Failure = err.Error()
		if tail := fileTail(stderrPath, 600); tail != "" {
			res.Failure += "; agent stderr: " + tail
		}
		return res
	}
	root, err := os.MkdirTemp("", "bench-terminal-")
	if err != nil {
		return fail(fmt.Errorf("make run folder: %w", err))
	}
	if cfg.KeepDirs {
		res.Notes = append(res.Notes, "run folder kept: "+root)
	} else {
		defer os.RemoveAll(root)
	}
	// home is the agent's own (HERMES_HOME, CODEX_HOME); user is $HOME, so
	// that the login shells agents start read no dotfiles of this machine.
	home, user, ws := filepath.Join(root, "home"), filepath.Join(root, "user"), filepath.Join(root, "workspace")
	stderrPath = filepath.Join(root, "stderr.log")
	for _, d := range []string{home, user, ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fail(fmt.Errorf("make run folder: %w", err))
		}
	}

	// The fake model of the agent's kind, behind a timing endpoint.
	seen := &toolOutputs{}
	var target string
	switch a.Kind {
	case kindCodex:
		s := startResponses()
		defer s.Close()
		seen = &s.seen
		target = s.URL()
	default:
		s := modeltest.StartOptions(modeltest.Options{
			Respond: hermesRespond(seen),
			Errorf:  func(format string, args ...any) { seen.note("fake model: "+format, args...) },
		})
		defer s.Close()
		target = strings.TrimSuffix(s.URL(), "/v1")
	}
	tu, err := url.Parse(target)
	if err != nil {
		return fail(fmt.Errorf("parse fake model url: %w", err))
	}
	ep, err := newEndpoint(tu, io.Discard)
	if err != nil {
		return fail(err)
	}
	defer ep.Close()

	env := append(os.Environ(), "HOME="+user)
	switch a.Kind {
	case kindCodex:
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(codexConfig(ep.BaseURL(), cfg.CodexSandbox, cfg.CodexApproval)), 0o600); err != nil {
			return fail(fmt.Errorf("write codex config: %w", err))
		}
		env = append(env, "CODEX_HOME="+home, "BENCH_FAKE_API_KEY=bench-fake-key", "OPENAI_API_KEY=", "CODEX_API_KEY=")
	default:
		env = append(env, "HERMES_HOME="+home, "OPENAI_BASE_URL="+ep.BaseURL(), "OPENAI_API_KEY=bench-fake-key", "HERMES_MODEL=bench-model")
	}
	env = append(env, cfg.AgentEnv...)

	p, err := startAgentOptions(a.Argv, env, ws, stderrPath, connOptions{AllowPermissions: true})
	if err != nil {
		return fail(err)
	}
	defer p.stop()
	c := p.conn
	call := func(method string, params any) (time.Time, response, error) {
		sctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
		sent, resp, err := c.call(sctx, method, params)
		if err != nil {
			err = p.explain(err)
		}
		return sent, resp, err
	}

	caps := map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false}
	if a.ZedMeta {
		caps["_meta"] = map[string]any{"terminal_output": true}
	}
	if _, _, err := call("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": caps,
		"clientInfo":         map[string]string{"name": "hermes-acp-bench", "version": "1"},
	}); err != nil {
		return fail(err)
	}
	_, resp, err := call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
	if err != nil {
		return fail(err)
	}
	var nr struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(resp.result, &nr); err != nil || nr.SessionID == "" {
		return fail(fmt.Errorf("session/new: reply without sessionId: %s", truncate(string(resp.result), 200)))
	}

	pid := p.cmd.Process.Pid
	base, err := treeRSS(pid)
	if err != nil {
		return fail(err)
	}
	sampler := startRSSSampler(pid, cfg.Sample)
	c.resetMaxUpdate()
	before := c.Stats()
	sent, resp, err := call("session/prompt", map[string]any{
		"sessionId": nr.SessionID,
		"prompt":    []map[string]string{{"type": "text", "text": termPrompt(sc.Command)}},
	})
	peak := sampler.stop()
	after := c.Stats()
	if err != nil {
		return fail(err)
	}
	var pr struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(resp.result, &pr); err != nil || pr.StopReason != "end_turn" {
		return fail(fmt.Errorf("session/prompt: want stopReason end_turn, got %s", truncate(string(resp.result), 200)))
	}
	busy, models := ep.serverTime(sent, resp.at)
	wall := resp.at.Sub(sent)
	res.Values["wall_s"] = wall.Seconds()
	res.Values["overhead_ms"] = float64(wall-busy) / float64(time.Millisecond)
	res.Values["updates"] = float64(after.Updates - before.Updates)
	res.Values["tool_updates"] = float64(after.ToolUpdates - before.ToolUpdates)
	res.Values["update_bytes"] = float64(after.UpdateBytes - before.UpdateBytes)
	res.Values["max_update_bytes"] = float64(after.MaxUpdate)
	res.Values["rss_peak_mib"] = float64(max(peak, base)) / 1024
	res.Values["rss_growth_mib"] = float64(max(peak-base, 0)) / 1024
	res.Values["model_requests"] = float64(models)

	outputs, notes := seen.snapshot()
	for _, n := range notes {
		if !strings.HasPrefix(n, pendingTool) {
			n = "fake model: " + n
		}
		res.Notes = append(res.Notes, n)
	}
	if err := checkRan(sc, outputs, notes); err != nil {
		return fail(err)
	}
	return res
}

// checkRan fails a run whose command's output never reached the model.
func checkRan(sc termScenario, outputs, notes []string) error {
	for _, n := range notes {
		if strings.HasPrefix(n, pendingTool) {
			return errors.New(n)
		}
	}
	re, err := regexp.Compile(sc.Expect)
	if err != nil {
		return fmt.Errorf("scenario %s: %w", sc.Key, err)
	}
	for _, o := range outputs {
		if re.MatchString(o) {
			return nil
		}
		// hermes-acp's tool results are JSON ({"output": "…\n35000", …},
		// kept cut at both ends, so no longer valid JSON): match with the
		// escaped newlines as newlines.
		if re.MatchString(strings.ReplaceAll(o, `\n`, "\n")) {
			return nil
		}
	}
	msg := fmt.Sprintf("the model never got the output of %q back (want a match of %s)", sc.Command, sc.Expect)
	if len(outputs) > 0 {
		msg += fmt.Sprintf("; last tool output: %q", truncate(outputs[len(outputs)-1], 300))
	}
	if len(notes) > 0 {
		msg += "; fake model: " + strings.Join(notes, "; ")
	}
	return errors.New(msg)
}

// rssSampler samples the RSS of a process tree until stopped and keeps
// the highest sum.
type rssSampler struct {
	pid    int
	stopCh chan struct{}
	done   chan struct{}
	peak   int64 // KiB; written by the sampling goroutine until done
}

func startRSSSampler(pid int, every time.Duration) *rssSampler {
	s := &rssSampler{pid: pid, stopCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stopCh:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) sample() {
	if v, err := treeRSS(s.pid); err == nil && v > s.peak {
		s.peak = v
	}
}

// stop takes a last sample and returns the peak, in KiB.
func (s *rssSampler) stop() int64 {
	close(s.stopCh)
	<-s.done
	s.sample()
	return s.peak
}
