package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
)

// terminal backends (issue 18): where the terminal tool runs commands.
// The agent only keeps each session's choice and offers it as the
// "terminal" config option; the composition root maps a name to an
// environment (tools.Deps.TerminalBackend).

// TerminalBackends are the backends a session can choose from.
type TerminalBackends struct {
	// Names are the offered backends ("local", "docker", "ssh"); the
	// config option is shown only when there is more than one.
	Names []string
	// Default is terminal.backend, a new session's choice ("" → "local").
	Default string
	// Check reports why a backend cannot run commands now (nil: it can);
	// /context shows it. Nil: never checked.
	Check func(ctx context.Context, name string) error
	// Describe says how a backend runs commands ("remote daemon
	// tcp://build:2375, workspace copied"); /context shows it. Nil or "":
	// nothing to add.
	Describe func(name string) string
}

const configTerminal = "terminal_backend"

func (b TerminalBackends) defaultName() string {
	if b.Default != "" {
		return b.Default
	}
	return "local"
}

// terminalBackend is the session's current terminal backend.
func (s *Session) terminalBackend() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.termBackend == "" {
		return s.a.opts.TerminalBackends.defaultName()
	}
	return s.termBackend
}

// TerminalBackend is the session's current terminal backend ("local",
// "docker", "ssh"); a change applies to the next command.
func (e *Env) TerminalBackend() string { return e.s.terminalBackend() }

// terminalOption is the "terminal" config option, or nil when only one
// backend is offered.
func (s *Session) terminalOption() *acp.SessionConfigOption {
	names := s.a.opts.TerminalBackends.Names
	if len(names) < 2 {
		return nil
	}
	desc := "Where the terminal tool runs commands; a change applies to the next command."
	opt := &acp.SessionConfigOption{ID: configTerminal, Name: "Terminal", Description: &desc, CurrentValue: s.terminalBackend()}
	for _, n := range names {
		opt.Options = append(opt.Options, acp.SessionConfigSelectOption{Value: n, Name: n})
	}
	return opt
}

// setTerminalBackend switches the session's backend to an offered one.
func (s *Session) setTerminalBackend(name string) error {
	names := s.a.opts.TerminalBackends.Names
	if !slices.Contains(names, name) {
		return fmt.Errorf("unknown terminal backend %q (available: %s)", name, strings.Join(names, ", "))
	}
	s.mu.Lock()
	s.termBackend = name
	s.mu.Unlock()
	return nil
}

// terminalStatus is /context's line about the terminal backend, and for
// commands on this machine how the sandbox confines them.
func (s *Session) terminalStatus(ctx context.Context) string {
	name := s.terminalBackend()
	check := s.a.opts.TerminalBackends.Check
	sandbox := ""
	if st := s.a.opts.SandboxStatus; st != nil {
		sandbox = "\nSandbox: " + st() + s.grantStatus()
	}
	if check == nil || name == "local" {
		return fmt.Sprintf("\nTerminal: `%s`.", name) + sandbox
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	how := ""
	if d := s.a.opts.TerminalBackends.Describe; d != nil {
		how = d(name)
	}
	err := check(ctx, name)
	switch {
	case how != "" && err != nil:
		return fmt.Sprintf("\nTerminal: `%s` (%s), unavailable: %v.", name, how, err)
	case how != "":
		return fmt.Sprintf("\nTerminal: `%s` (%s), available.", name, how)
	case err != nil:
		return fmt.Sprintf("\nTerminal: `%s`, unavailable: %v.", name, err)
	}
	return fmt.Sprintf("\nTerminal: `%s` (available).", name)
}
