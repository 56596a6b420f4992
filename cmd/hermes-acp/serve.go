package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal/backend"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/web"
)

type serveOptions struct {
	model, baseURL, logLevel, logFile, record string
	debugRPC                                  bool
}

// serve runs the agent on stdin/stdout until stdin closes or ctx ends.
func serve(ctx context.Context, o serveOptions, stdin io.Reader, stderr io.Writer) int {
	wire, err := acp.ReserveStdout()
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
	cfg := config.Load(os.Getenv, o.model, o.baseURL)
	if cfg.FileErr != nil {
		log.Warn("configuration problem", "error", cfg.FileErr)
	}
	if note := config.IgnoredNote(cfg.File, cfg.Ignored); note != "" {
		log.Info(note)
	}
	setup := modelSetup(cfg, o.record, log)
	reg, err := declaredTools(log, cfg.BrowserExecutable)
	if err != nil {
		log.Error("register built-in tools", "error", err)
		return 1
	}
	browsers := browser.NewSet(browser.Options{Executable: cfg.BrowserExecutable, IdleTimeout: cfg.BrowserIdleTimeout, Policy: cfg.BrowserPolicy(), Log: log})
	defer browsers.Close() // no browser outlives the agent
	resultChars, turnChars := registry.BudgetForContextWindow(cfg.ContextLength)
	termCfg, sandboxNotice := terminalSettings(cfg, os.Executable)
	if sandboxNotice != "" {
		log.Warn("terminal sandbox weakened", "reason", sandboxNotice)
	}
	summarize := cfg.NewWebSummarizer(setup.Provider, setup.Name, log) // web
	decoder := web.SelfDecoder(log)
	backendOpts := cfg.Backends()
	backendOpts.Log = log
	termBackends := backend.New(backendOpts) // terminal backends (issue 18)
	defer termBackends.Close()
	termBackends.Start()
	goTypes, goTypesOff := goTypesChecker(cfg.GoTypesOff, log)
	if goTypes != nil {
		defer goTypes.Close() // after the agent: no check outlives it
	}
	ag := agent.New(agent.Options{
		Version: buildVersion(),
		Model:   setup,
		ReloadModel: func() (agent.ModelSetup, error) {
			return modelSetup(config.Load(os.Getenv, o.model, o.baseURL), o.record, log), nil
		},
		Setup:    setupCommand(os.Getenv, os.Executable), // the terminal auth method (cmd/hermes-acp/setup.go)
		Registry: reg,
		BindTools: func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
			vision, fetchImage := visionDeps(env, cfg.Web.Policy()) // cmd/hermes-acp/vision.go
			d := tools.Deps{
				Skills:              skillLibrary(cfg, env), // skills (issue #14)
				Workspace:           env.Workspace(),
				Files:               env.Files(),
				State:               env.State(),
				Approver:            env,
				Lint:                env,
				Linter:              env.Linter(),
				RefuseNewLintErrors: env.RefuseNewLintErrors(),
				Types:               typeChecker{env},
				SavedResult:         env.SavedResult,
				Enabled:             env.Enabled,
				Web:                 webTools(cfg.Web, summarize, env.SaveResult, decoder),
				// terminal
				Terminal: termCfg,
				// vision
				Vision:     vision,
				FetchImage: fetchImage,
				// browser
				Browsers:      browsers,
				ApproveCDP:    env.ApproveCDP,
				BrowserVision: vision,
				// terminal backends (issue 18)
				TerminalBackend: sessionBackend(termBackends.ForSession(env)),
				// execute_code (issue #16)
				CallTool: env.CallTool,
				CodeExecution: tools.CodeExecutionConfig{Mode: cfg.CodeExecution.Mode, Timeout: cfg.CodeExecution.Timeout,
					MaxToolCalls: cfg.CodeExecution.MaxToolCalls},
			}
			commandDeps(&d, env)
			// ssh (issue 18) — TEMPORARY until the backend selection lands:
			// terminal.backend: ssh runs the session's commands over SSH.
			return tools.Bind(d)
		},
		SkillsIndex:   func(env *agent.Env) string { return skillsIndex(cfg, env, log) }, // skills (issue #14)
		SkillsBlocked: func(env *agent.Env) []string { return skillsBlocked(cfg, env) },  // the threat scan (issue 25)
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
		ApprovalsSmart:   cfg.ApprovalsSmart, // approvals.mode: smart (issue 25)
		SmartPolicy:      cfg.SmartPolicy,
		Network:          cfg.TerminalNetwork,     // terminal sandbox grants (issue 24)
		Credentials:      cfg.TerminalCredentials, // terminal sandbox grants (issue 24)
		CommandAllowlist: cfg.Allowlist,
		SaveAllowlist:    func(entry string) error { return config.SaveAllowlistEntry(cfg.File, entry) },
		RemoveAllowlist: func(entry string) error {
			_, err := config.RemoveAllowlistEntry(cfg.File, entry)
			return err
		},
		LintRefuse:      cfg.LintRefuse,
		GoTypes:         goTypes,
		GoTypesOff:      goTypesOff,
		ApprovalTimeout: cfg.ApprovalTimeout,
		MaxModelCalls:   cfg.MaxTurns,
		FSTimeout:       cfg.FSTimeout,
		HermesHome:      cfg.Home,
		Checkpoints:     checkpoints(cfg, log), // issue 29 (cmd/hermes-acp/checkpoints.go)
		MCPServers:      cfg.MCP(),
		Delegation:      agent.DelegationOptions(cfg.Delegation),
		TerminalBackends: agent.TerminalBackends{Names: termBackends.Names(), Default: termBackends.Default(),
			Check: termBackends.Check, Describe: termBackends.Describe}, // terminal backends (issue 18)
		SandboxStatus: func() string { return termCfg.Sandbox.Confinement().Summary() },
		Notices:       startNotices(cfg, setup, sandboxNotice),
		Log:           log,
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

// modelSetup is the agent's model from the configuration (config.NewModel).
// A missing or broken model is not fatal: the agent explains it when
// prompted.
func modelSetup(cfg config.Config, record string, log *slog.Logger) agent.ModelSetup {
	m := cfg.NewModel(record, log)
	setup := agent.ModelSetup{Name: m.Name, Provider: m.Provider, Problem: m.Problem, Choices: cfg.ModelChoices,
		ContextWindow: cfg.ContextLength, CompressionThreshold: cfg.CompressAt, CompressionOff: cfg.CompressOff,
		NoVision: cfg.NoVision}
	setup.VisionProvider, setup.VisionModel = cfg.NewVisionModel(log)
	setup.ApprovalProvider, setup.ApprovalModel = cfg.NewApprovalModel(log) // approvals.mode: smart (issue 25)
	return setup
}

// terminalSettings turns the configuration into the terminal tools'
// settings, with the sandbox every command on this machine runs in
// (config.Sandbox); notice says, once in the chat, when the sandbox is
// weakened.
func terminalSettings(cfg config.Config, exe func() (string, error)) (tools.TerminalConfig, string) {
	sb, notice := cfg.Sandbox(exe)
	return tools.TerminalConfig{
		DefaultTimeout:       cfg.TerminalTimeout,
		MaxForegroundTimeout: cfg.TerminalMaxForeground,
		MaxOutputChars:       cfg.ToolOutputMaxChars,
		Environ:              cfg.Environ(),
		Sandbox:              sb,
	}, notice
}

// startNotices are the start-up problems to show once: the configuration
// file's and the sandbox's (sandbox, "" if none). Without a model the
// configuration's are already part of the explanation every prompt gets
// (setup.Problem), so they are not repeated.
func startNotices(cfg config.Config, setup agent.ModelSetup, sandbox string) []agent.Notice {
	var out []agent.Notice
	if n := cfg.Notice(); n != "" && setup.Provider != nil {
		out = append(out, agent.Notice{Severity: acp.NoticeWarning, Title: "Configuration problems", Text: n})
	}
	if sandbox != "" {
		out = append(out, agent.Notice{Severity: acp.NoticeWarning, Title: "Weaker command sandbox", Text: sandbox})
	}
	return out
}

// sessionBackend adapts a session's backend choice to the terminal tool's
// seam (the same interface, named by tools).
func sessionBackend(pick func() (backend.Backend, error)) func() (tools.TerminalBackend, error) {
	return func() (tools.TerminalBackend, error) {
		b, err := pick()
		if b == nil {
			return nil, err
		}
		return b, err
	}
}
