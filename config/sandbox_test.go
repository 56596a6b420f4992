package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// TestSandboxConfig reads the sandbox's keys: landlock, hidden places, a
// shared /tmp, passthrough variables and limits; bad values are problems
// that keep the defaults.
func TestSandboxConfig(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": `
terminal:
  sandbox: landlock
  sandbox_hidden: [~/secrets, /srv/keys, relative]
  private_tmp: false
  env_passthrough: [GH_TOKEN]
  limits:
    processes: 1000
    address_space: 8G
    cpu_time: 3600
    file_size: 512M
`})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if !c.SandboxLandlock || c.SandboxOff || !c.SharedTmp || !slices.Equal(c.SandboxHidden, []string{"~/secrets", "/srv/keys"}) ||
		!slices.Equal(c.EnvPassthrough, []string{"GH_TOKEN"}) {
		t.Errorf("sandbox settings = landlock %v off %v shared tmp %v hidden %q passthrough %q", c.SandboxLandlock, c.SandboxOff, c.SharedTmp, c.SandboxHidden, c.EnvPassthrough)
	}
	if want := (terminal.Limits{Processes: 1000, AddressSpace: 8 << 30, CPUTime: 3600, FileSize: 512 << 20}); c.Limits != want {
		t.Errorf("Limits = %+v, want %+v", c.Limits, want)
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0], `terminal.sandbox_hidden: "relative"`) {
		t.Errorf("Problems = %q, want the relative place named", c.Problems)
	}
	for _, k := range []string{"terminal.limits", "terminal.sandbox_hidden", "terminal.private_tmp", "terminal.env_passthrough"} {
		if slices.ContainsFunc(c.Ignored, func(i string) bool { return strings.HasPrefix(i, k) }) {
			t.Errorf("Ignored = %q, want %s in use", c.Ignored, k)
		}
	}

	if c.TerminalNetwork != "ask" || c.TerminalCredentials != "ask" {
		t.Errorf("network %q credentials %q, want the default ask", c.TerminalNetwork, c.TerminalCredentials)
	}
	for _, tc := range []struct{ yaml, net, creds string }{
		{"network: on\n  credentials: off", "on", "off"},
		{"network: true\n  credentials: no", "on", "off"},
		{"network: ask\n  credentials: on", "ask", "on"},
	} {
		home := writeHome(t, map[string]string{"config.yaml": "terminal:\n  " + tc.yaml + "\n"})
		c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
		if c.TerminalNetwork != tc.net || c.TerminalCredentials != tc.creds || len(c.Problems) != 0 {
			t.Errorf("%q: network %q credentials %q problems %q, want %s %s", tc.yaml, c.TerminalNetwork, c.TerminalCredentials, c.Problems, tc.net, tc.creds)
		}
	}
	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  network: sometimes\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.TerminalNetwork != "ask" || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "terminal.network") {
		t.Errorf("bad network: %q, problems %q; want ask and the problem named", c.TerminalNetwork, c.Problems)
	}

	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  limits:\n    processes: 10\n    file_size: lots\n    address_space: unlimited\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.Limits.Processes != 301 || c.Limits.FileSize != 0 || c.Limits.AddressSpace != -1 || len(c.Problems) != 2 {
		t.Errorf("bad limits: %+v, problems %q; want 301, the default file size, unlimited address space and two problems", c.Limits, c.Problems)
	}
}
