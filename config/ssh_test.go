package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
)

// ssh (issue 18): terminal.ssh.* and hermes-agent's names for them.
func TestSSHConfig(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": `
terminal:
  backend: ssh
  ssh:
    host: build-box
    port: 2222
    user: dev
    identity_file: ~/.ssh/build_key
    remote_dir: ~/work/proj
    known_hosts: /etc/hermes/known_hosts
    connect_timeout: 5
`})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	want := sshenv.Config{Host: "build-box", Port: 2222, User: "dev", IdentityFile: "~/.ssh/build_key",
		RemoteDir: "~/work/proj", KnownHosts: "/etc/hermes/known_hosts", ConnectTimeout: 5 * time.Second}
	if !c.SSH.On || c.SSH.Config != want {
		t.Errorf("ssh settings = %+v on=%v, want %+v on", c.SSH.Config, c.SSH.On, want)
	}
	if len(c.Problems) != 0 || slices.ContainsFunc(c.Ignored, func(k string) bool { return strings.HasPrefix(k, "terminal.ssh") }) {
		t.Errorf("Problems %q, Ignored %q: want none of the ssh keys", c.Problems, c.Ignored)
	}

	// hermes-agent's flat keys and variables.
	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  ssh_host: h1\n  ssh_user: u1\n  ssh_key: /k\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home, "TERMINAL_SSH_PORT": "2200", "TERMINAL_SSH_HOST": "ignored", "TERMINAL_ENV": "ssh"}), "", "")
	if c.SSH.Config.Host != "h1" || c.SSH.Config.User != "u1" || c.SSH.Config.IdentityFile != "/k" || c.SSH.Config.Port != 2200 || !c.SSH.On {
		t.Errorf("hermes names: %+v on=%v", c.SSH.Config, c.SSH.On)
	}

	// Bad values are problems; ssh without a host is one.
	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  backend: ssh\n  ssh:\n    port: 70000\n    remote_dir: relative\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	joined := strings.Join(c.Problems, "\n")
	for _, p := range []string{"terminal.ssh.port: 70000", `terminal.ssh.remote_dir: "relative"`, "terminal.ssh.host is not set"} {
		if !strings.Contains(joined, p) {
			t.Errorf("Problems %q, want one naming %s", c.Problems, p)
		}
	}
	if c.SSH.Config.Port != 0 {
		t.Errorf("bad port kept: %d", c.SSH.Config.Port)
	}
}
