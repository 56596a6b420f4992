package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/terminal"
)

// TestTerminalSettingsSandbox: every command runs in the sandbox — with
// terminal.sandbox: off an unconfined one that still builds the commands'
// environment — which hides $HERMES_HOME and strips the configured API key's
// variable; without its own binary the agent says so once.
func TestTerminalSettingsSandbox(t *testing.T) {
	t.Parallel()
	exe := func() (string, error) { return "/usr/bin/hermes-acp", nil }
	cfg := config.Config{TerminalTimeout: time.Minute, SandboxWritable: []string{"/opt/x"}, Home: "/home/u/.hermes", APIKeySource: "MY_PROVIDER_KEY"}
	tc, notice := terminalSettings(cfg, exe)
	if notice != "" || tc.Sandbox == nil || tc.Sandbox.Exe != "/usr/bin/hermes-acp" || !slices.Equal(tc.Sandbox.Writable, []string{"/opt/x"}) ||
		tc.Sandbox.HermesHome != "/home/u/.hermes" || tc.Sandbox.Unconfined || tc.DefaultTimeout != time.Minute {
		t.Errorf("default: %+v, notice %q; want a sandbox hiding HERMES_HOME and no notice", tc, notice)
	}
	if !tc.Environ.Blocked("MY_PROVIDER_KEY") || !tc.Environ.Blocked("OPENAI_API_KEY") || tc.Environ.Blocked("PATH") {
		t.Errorf("Environ = %+v, want the configured key's variable and hermes's list removed, PATH kept", tc.Environ)
	}
	tc, notice = terminalSettings(cfg, func() (string, error) { return "", errors.New("gone") })
	if tc.Sandbox == nil || tc.Sandbox.Exe != "" || !strings.Contains(notice, "cannot find its own binary") {
		t.Errorf("without the binary: sandbox %+v, notice %q", tc.Sandbox, notice)
	}
	// The sandbox's other keys reach it.
	more := cfg
	more.SandboxLandlock, more.SharedTmp, more.SandboxHidden, more.EnvPassthrough = true, true, []string{"~/keys"}, []string{"GH_TOKEN"}
	more.Limits = terminal.Limits{Processes: 500}
	tc, _ = terminalSettings(more, exe)
	if !tc.Sandbox.LandlockOnly || !tc.Sandbox.SharedTmp || len(tc.Sandbox.Hidden) == 0 || tc.Sandbox.Hidden[0] != "~/keys" ||
		tc.Sandbox.Limits.Processes != 500 || tc.Environ.Blocked("GH_TOKEN") {
		t.Errorf("configured: sandbox %+v, environ %+v; want landlock, a shared /tmp, ~/keys hidden, 500 processes and GH_TOKEN kept", tc.Sandbox, tc.Environ)
	}
	// The user's credential places are the grantable ones; the system's
	// are always hidden.
	if !slices.Contains(tc.Sandbox.Hidden, "/etc/shadow") || slices.Contains(tc.Sandbox.Credentials, "/etc/shadow") {
		t.Errorf("hidden %q, credentials %q: want /etc/shadow always hidden", tc.Sandbox.Hidden, tc.Sandbox.Credentials)
	}
	if home, err := os.UserHomeDir(); err == nil && !slices.Contains(tc.Sandbox.Credentials, filepath.Join(home, ".ssh")) {
		t.Errorf("credentials %q, want ~/.ssh grantable", tc.Sandbox.Credentials)
	}
	cfg.SandboxOff = true
	if tc, notice = terminalSettings(cfg, exe); tc.Sandbox == nil || !tc.Sandbox.Unconfined || notice != "" {
		t.Errorf("sandbox off: %+v %q, want an unconfined sandbox and no notice", tc.Sandbox, notice)
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
