package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/mcp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/tools"
)

type serveOptions struct {
	model, baseURL, logLevel, logFile, record string
	debugRPC                                  bool
}

// serve runs the agent on stdin/stdout until stdin closes or ctx ends.
func serve(ctx context.Context, o serveOptions, stdin io.Reader, stderr io.Writer) int {
	wire, err := guardStdout()
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp: %v\n", err)
		return 1
	}
	log, closeLog, err := newLogger(o.logLevel, o.logFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp: %v\n", err)
		return 2
	}
	defer closeLog()
	cfg := loadConfig(os.Getenv, o.model, o.baseURL)
	if cfg.FileErr != nil {
		log.Warn("configuration problem", "error", cfg.FileErr)
	}
	if note := ignoredNote(cfg.File, cfg.Ignored); note != "" {
		log.Info(note)
	}
	setup := modelSetup(cfg, o.record, log)
	reg, err := declaredTools(log, cfg.BrowserExecutable)
	if err != nil {
		log.Error("register built-in tools", "error", err)
		return 1
	}
	browsers := browser.NewSet(browser.Options{Executable: cfg.BrowserExecutable, IdleTimeout: cfg.BrowserIdleTimeout, Log: log})
	defer browsers.Close() // no browser outlives the agent
	resultChars, turnChars := registry.BudgetForContextWindow(cfg.ContextLength)
	termCfg, sandboxNotice := terminalSettings(cfg, terminal.LandlockABI, os.Executable)
	if sandboxNotice != "" {
		log.Warn("terminal sandbox unavailable", "reason", sandboxNotice)
	}
	summarize := webSummarizer(cfg, setup, log) // web
	termBackends := newBackends(cfg, log)       // terminal backends (issue 18)
	defer termBackends.close()
	termBackends.start()
	ag := agent.New(agent.Options{
		Version: buildVersion(),
		Model:   setup,
		ReloadModel: func() (agent.ModelSetup, error) {
			return modelSetup(loadConfig(os.Getenv, o.model, o.baseURL), o.record, log), nil
		},
		Setup:    setupCommand(os.Getenv, os.Executable), // the terminal auth method (cmd/hermes-acp/setup.go)
		Registry: reg,
		BindTools: func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
			vision, fetchImage := visionDeps(env, cfg.Web.policy()) // cmd/hermes-acp/vision.go
			d := tools.Deps{
				Skills:              skillLibrary(cfg, env), // skills (issue #14)
				Workspace:           env.Workspace(),
				Files:               env.Files(),
				State:               env.State(),
				Approver:            env,
				Lint:                env,
				Linter:              env.Linter(),
				RefuseNewLintErrors: env.RefuseNewLintErrors(),
				SavedResult:         env.SavedResult,
				Enabled:             env.Enabled,
				Web:                 cfg.Web.tools(summarize, env.SaveResult),
				// terminal
				Terminal: termCfg,
				// vision
				Vision:     vision,
				FetchImage: fetchImage,
				// browser
				Browsers:      browsers,
				BrowserURL:    browserURLPolicy(env.Workspace(), cfg.BrowserAllowPrivate),
				ApproveCDP:    env.ApproveCDP,
				BrowserVision: vision,
				// terminal backends (issue 18)
				TerminalBackend: termBackends.forSession(env),
				// execute_code (issue #16)
				CallTool:      env.CallTool,
				CodeExecution: cfg.CodeExecution,
			}
			commandDeps(&d, env)
			// ssh (issue 18) — TEMPORARY until the backend selection lands:
			// terminal.backend: ssh runs the session's commands over SSH.
			return tools.Bind(d)
		},
		SkillsIndex: func(env *agent.Env) string { return skillsIndex(cfg, env) }, // skills (issue #14)
		Pipeline: registry.PipelineOptions{
			ResultsDir:     filepath.Join(cfg.Home, "results"),
			Guardrails:     cfg.Guardrails,
			MaxResultChars: resultChars,
			TurnBudget:     turnChars,
			Log:            log,
		},
		Toolsets:         cfg.Toolsets,
		DisabledToolsets: cfg.Disabled,
		ApprovalsOff:     cfg.ApprovalsOff,
		CommandAllowlist: cfg.Allowlist,
		SaveAllowlist:    func(entry string) error { return saveAllowlistEntry(cfg.File, entry) },
		LintRefuse:       cfg.LintRefuse,
		ApprovalTimeout:  cfg.ApprovalTimeout,
		MaxModelCalls:    cfg.MaxTurns,
		FSTimeout:        cfg.FSTimeout,
		HermesHome:       cfg.Home,
		MCPServers:       mcpServers(cfg.MCPServers),
		Delegation:       cfg.Delegation,
		TerminalBackends: termBackends.agentOptions(), // terminal backends (issue 18)
		Notices:          append(startNotices(cfg, setup), nonEmpty(sandboxNotice)...),
		Log:              log,
	})
	// perf: collect the start-up garbage (the packages' initialisers, the
	// tool table) and finish sweeping before the first request, so that an
	// editor's session/new, sent right after initialize, does not pay for it.
	runtime.GC()
	var trace *slog.Logger
	if o.debugRPC {
		trace = log
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := acp.NewStream(stdin, wire, nil, acp.StreamOptions{Log: log, Trace: trace})
	conn := acp.NewAgentConn(ctx, stream, ag, acp.ConnOptions{Log: log})
	select {
	case <-conn.Done():
		log.Debug("client disconnected")
	case <-ctx.Done():
		log.Info("shutting down", "reason", context.Cause(ctx))
	}
	// Stop every turn, tool and child process; give up waiting after the
	// grace period so the process always exits within a second.
	cancel()
	finished := make(chan struct{})
	go func() {
		_ = ag.Close()
		_ = browsers.Close()
		_ = conn.Close()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(shutdownGrace):
		log.Warn("shutdown did not finish in time; exiting anyway")
	}
	return 0
}

// declaredTools is the registry of every built-in tool and the agent's own,
// declared: each session binds them to itself.
// browserExe is browser.executable: the browser tools are available when
// it (or, when empty, a Chromium or Chrome) is found.
func declaredTools(log *slog.Logger, browserExe string) (*registry.Registry, error) {
	reg := registry.New(log)
	entries := tools.WithBrowserCheck(tools.Entries(), tools.BrowserCheck(browserExe))
	if err := reg.RegisterAll(append(entries, agent.Tools()...)...); err != nil {
		return nil, err
	}
	return reg, nil
}

// modelSetup builds the model provider from the configuration. A missing or
// broken model is not fatal: the agent explains it when prompted.
func modelSetup(cfg config, record string, log *slog.Logger) agent.ModelSetup {
	setup := agent.ModelSetup{Name: cfg.Model, Choices: cfg.ModelChoices, ContextWindow: cfg.ContextLength,
		CompressionThreshold: cfg.CompressAt, CompressionOff: cfg.CompressOff}
	visionSetup(&setup, cfg, log) // cmd/hermes-acp/vision.go
	if cfg.ProviderProblem != "" && cfg.Model != "" {
		setup.Problem = cfg.ProviderProblem
		log.Warn("model not usable", "model", cfg.Model, "error", cfg.ProviderProblem)
		return setup
	}
	p, err := model.New(model.Config{
		Provider:        cfg.Provider,
		Model:           cfg.Model,
		BaseURL:         cfg.BaseURL,
		APIKey:          cfg.APIKey,
		Others:          cfg.Others,
		ThinkingBudget:  cfg.ThinkingBudget,
		ReasoningEffort: cfg.ReasoningEffort,
		Timeout:         cfg.ModelTimeout,
		RecordPath:      record,
		Log:             log,
	})
	switch {
	case errors.Is(err, model.ErrNoModel):
		setup.Name = ""
	case err != nil:
		var me *model.Error
		if errors.As(err, &me) {
			setup.Problem = me.Message
		} else {
			setup.Problem = err.Error()
		}
		log.Warn("model not usable", "model", cfg.Model, "error", err)
	default:
		setup.Provider = p
		if p.Name() == "script" {
			setup.Name = "script"
		}
	}
	if cfg.FileErr != nil && setup.Provider == nil {
		setup.Problem = fmt.Sprintf("%s\n\n(configuration problem: %v)", setup.Problem, cfg.FileErr)
	}
	return setup
}

// terminalSettings turns the configuration into the terminal tools'
// settings. The sandbox is on unless terminal.sandbox is off; where the
// kernel has no Landlock (abi returns 0) or the binary cannot be found,
// commands run without it and notice says so, once, in the chat.
func terminalSettings(cfg config, abi func() int, exe func() (string, error)) (tools.TerminalConfig, string) {
	tc := tools.TerminalConfig{
		DefaultTimeout:       cfg.TerminalTimeout,
		MaxForegroundTimeout: cfg.TerminalMaxForeground,
		MaxOutputChars:       cfg.ToolOutputMaxChars,
	}
	if cfg.SandboxOff {
		return tc, ""
	}
	const off = " Commands run without the sandbox: they can write wherever your user can. " +
		"Set terminal.sandbox: off in config.yaml to silence this notice."
	if abi() == 0 {
		return tc, "The terminal sandbox is not available: this system has no Landlock (Linux 5.13 or later with Landlock enabled)." + off
	}
	path, err := exe()
	if err != nil {
		return tc, fmt.Sprintf("The terminal sandbox is not available: the agent cannot find its own binary (%v).", err) + off
	}
	tc.Sandbox = &terminal.Sandbox{Exe: path, Writable: cfg.SandboxWritable}
	return tc, ""
}

// nonEmpty returns s as a list, empty when s is "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// startNotices are the configuration problems to show in the chat once.
// Without a model they are already part of the explanation every prompt
// gets (setup.Problem), so they are not repeated.
func startNotices(cfg config, setup agent.ModelSetup) []string {
	if n := cfg.configNotice(); n != "" && setup.Provider != nil {
		return []string{n}
	}
	return nil
}

// mcpServers turns the config file's mcp_servers into the agent's list,
// sorted by name, without the servers marked enabled: false. A server with a
// url is a streamable HTTP server; otherwise it is started with its command.
func mcpServers(cfg map[string]mcpServerConfig) []mcp.Server {
	var out []mcp.Server
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		c := cfg[name]
		if c.Enabled != nil && !*c.Enabled {
			continue
		}
		srv := mcp.Server{Name: name, ParallelToolCalls: c.ParallelToolCalls}
		if c.URL != "" {
			srv.Transport, srv.URL = mcp.TransportHTTP, c.URL
			if strings.EqualFold(c.Transport, "sse") {
				srv.Transport = mcp.TransportSSE
			}
			for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
				srv.Headers = append(srv.Headers, mcp.Var{Name: k, Value: c.Headers[k]})
			}
		} else {
			srv.Command, srv.Args = c.Command, c.Args
			for _, k := range slices.Sorted(maps.Keys(c.Env)) {
				srv.Env = append(srv.Env, mcp.Var{Name: k, Value: c.Env[k]})
			}
		}
		out = append(out, srv)
	}
	return out
}
