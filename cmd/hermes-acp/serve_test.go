package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
)

// TestTerminalSettingsSandbox: the sandbox is on by default where Landlock
// exists; without it (or with sandbox off) commands run unsandboxed, and
// only the first case says so in a notice.
func TestTerminalSettingsSandbox(t *testing.T) {
	t.Parallel()
	exe := func() (string, error) { return "/usr/bin/hermes-acp", nil }
	cfg := config.Config{TerminalTimeout: time.Minute, SandboxWritable: []string{"/opt/x"}}
	tc, notice := terminalSettings(cfg, func() int { return 7 }, exe)
	if notice != "" || tc.Sandbox == nil || tc.Sandbox.Exe != "/usr/bin/hermes-acp" || !slices.Equal(tc.Sandbox.Writable, []string{"/opt/x"}) || tc.DefaultTimeout != time.Minute {
		t.Errorf("with Landlock: %+v, notice %q; want a sandbox and no notice", tc, notice)
	}
	tc, notice = terminalSettings(cfg, func() int { return 0 }, exe)
	if tc.Sandbox != nil || !strings.Contains(notice, "no Landlock") || !strings.Contains(notice, "terminal.sandbox: off") {
		t.Errorf("without Landlock: sandbox %v, notice %q; want none and a notice", tc.Sandbox, notice)
	}
	tc, notice = terminalSettings(cfg, func() int { return 7 }, func() (string, error) { return "", errors.New("gone") })
	if tc.Sandbox != nil || !strings.Contains(notice, "cannot find its own binary") {
		t.Errorf("without the binary: sandbox %v, notice %q", tc.Sandbox, notice)
	}
	cfg.SandboxOff = true
	if tc, notice = terminalSettings(cfg, func() int { return 0 }, exe); tc.Sandbox != nil || notice != "" {
		t.Errorf("sandbox off: %v %q, want no sandbox and no notice", tc.Sandbox, notice)
	}
}

// TestDelegationDefaultsAgree: the default a bad delegation value falls back
// to, as the configuration notice names it, is the one the agent applies.
func TestDelegationDefaultsAgree(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": "delegation:\n  max_concurrent: -1\n  max_depth: -1\n  max_iterations: -1\n"})
	c := config.Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	for _, want := range []string{
		fmt.Sprintf("delegation.max_concurrent: -1 is not a whole number of at least 1; using %d", agent.DefaultDelegationMaxConcurrent),
		fmt.Sprintf("delegation.max_depth: -1 is not a whole number of at least 1; using %d", agent.DefaultDelegationMaxDepth),
		fmt.Sprintf("delegation.max_iterations: -1 is not a whole number of at least 1; using %d", agent.DefaultDelegationMaxIterations),
	} {
		if !slices.Contains(c.Problems, want) {
			t.Errorf("problems = %q, want %q", c.Problems, want)
		}
	}
	if got := agent.DelegationOptions(c.Delegation); got != (agent.DelegationOptions{}) {
		t.Errorf("bad values = %+v, want zeros (the agent's defaults)", got)
	}
}
