package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTerminalConfig reads the terminal tool's keys: the values apply, bad
// ones are problems that keep the default.
func TestTerminalConfig(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": `
terminal:
  backend: local
  cwd: /somewhere
  timeout: 90
  max_foreground_timeout: 300
  sandbox: workspace-write
  sandbox_writable: [/opt/shared, "~/.m2", relative/dir]
tool_output:
  max_bytes: 20000
`})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.TerminalTimeout != 90*time.Second || c.TerminalMaxForeground != 300*time.Second || c.ToolOutputMaxChars != 20000 || c.SandboxOff {
		t.Errorf("terminal settings = %v %v %d off=%v, want 90s 300s 20000 on", c.TerminalTimeout, c.TerminalMaxForeground, c.ToolOutputMaxChars, c.SandboxOff)
	}
	if !slices.Equal(c.SandboxWritable, []string{"/opt/shared", "~/.m2"}) {
		t.Errorf("SandboxWritable = %q, want the absolute and ~ folders", c.SandboxWritable)
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0], `terminal.sandbox_writable: "relative/dir" is not an absolute path`) {
		t.Errorf("Problems = %q, want the relative folder named", c.Problems)
	}
	if !slices.Contains(c.Ignored, "terminal.cwd") || slices.Contains(c.Ignored, "terminal.timeout") || slices.Contains(c.Ignored, "terminal.backend") {
		t.Errorf("Ignored = %q, want terminal.cwd but not the keys in use", c.Ignored)
	}

	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  sandbox: strict\n  timeout: -5\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.SandboxOff || c.TerminalTimeout != 0 || len(c.Problems) != 2 {
		t.Errorf("bad values: off=%v timeout=%v problems=%q, want the defaults and two problems", c.SandboxOff, c.TerminalTimeout, c.Problems)
	}
	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  sandbox: off\n"})
	if c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", ""); !c.SandboxOff {
		t.Error("terminal.sandbox: off did not turn the sandbox off")
	}
}
