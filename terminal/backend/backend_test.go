package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// TestTerminalBackendConfig: terminal.backend and the docker keys, nested
// and in hermes's flat names; bad values are problems that keep defaults.
func TestTerminalBackendConfig(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": `
terminal:
  backend: docker
  docker:
    image: busybox:latest
    network: bridge
    cpus: 1.5
    memory: 512m
    user: "1000:1000"
`})
	c := loadConfig(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	d := c.Docker.Config
	if c.TerminalBackend != "docker" || d.Image != "busybox:latest" || d.Network != "bridge" || d.CPUs != 1.5 || d.Memory != 512<<20 || d.User != "1000:1000" {
		t.Errorf("docker settings = %s %+v", c.TerminalBackend, d)
	}
	if len(c.Problems) != 0 || slices.Contains(c.Ignored, "terminal.docker") {
		t.Errorf("problems %q, ignored %q; want none", c.Problems, c.Ignored)
	}

	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  backend: docker\n  docker_image: alpine:3\n  container_cpu: 2\n  container_memory: 1024\n"})
	c = loadConfig(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if d := c.Docker.Config; d.Image != "alpine:3" || d.CPUs != 2 || d.Memory != 1024<<20 || d.Network != "" {
		t.Errorf("hermes's flat keys = %+v, want alpine:3, 2 CPUs, 1 GiB, network default", d)
	}

	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  backend: kubernetes\n  docker:\n    memory: lots\n"})
	c = loadConfig(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.TerminalBackend != "local" || c.Docker.Config.Memory != 0 || len(c.Problems) != 2 {
		t.Errorf("bad values: backend %q memory %d problems %q; want local, no limit, two problems", c.TerminalBackend, c.Docker.Config.Memory, c.Problems)
	}
}

// TestBackendsOffered: docker is offered (and checked) only when
// configured; an unreachable daemon's error is what the status says.
func TestBackendsOffered(t *testing.T) {
	t.Parallel()
	b := newBackends(config{TerminalBackend: "local"}, nil)
	if !slices.Equal(b.names, []string{"local"}) || b.def != "local" {
		t.Errorf("local only: %v %q", b.names, b.def)
	}
	var c config
	c.TerminalBackend = "docker"
	c.Docker.Config.Image = "busybox"
	c.Docker.Config.Host = "unix:///nonexistent/hermes-test.sock"
	b = newBackends(c, nil)
	defer b.close()
	if !slices.Equal(b.names, []string{"local", "docker"}) || b.def != "docker" {
		t.Errorf("docker: %v %q", b.names, b.def)
	}
	if s := b.status(context.Background()); !strings.Contains(s, "unavailable") || !strings.Contains(s, "/nonexistent/hermes-test.sock") {
		t.Errorf("status = %q, want the unreachable daemon named", s)
	}
}

func TestBackendsOfferSSH(t *testing.T) {
	t.Parallel()
	var c config
	c.TerminalBackend = "ssh"
	c.SSH.On = true
	b := newBackends(c, nil)
	if !slices.Equal(b.names, []string{"local", "ssh"}) || b.def != "ssh" {
		t.Errorf("ssh without a host: %v %q", b.names, b.def)
	}
	if err := b.check(context.Background(), "ssh"); err == nil || !strings.Contains(err.Error(), "terminal.ssh.host") {
		t.Errorf("check without a host = %v, want it to name terminal.ssh.host", err)
	}
	// A host nothing listens on: the check connects, and says so (the
	// end-to-end test checks a reachable host and an unknown host key).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.SSH.Config = sshenv.Config{Host: "127.0.0.1", Port: port, SSHConfig: "none", AgentSocket: "none", IdentityFile: filepath.Join(t.TempDir(), "missing_key")}
	b = newBackends(c, nil)
	if err := b.check(context.Background(), "ssh"); err == nil || !strings.Contains(err.Error(), "missing_key") {
		t.Errorf("check with a missing identity file = %v, want it named", err)
	}
	c.SSH.Config.IdentityFile = filepath.Join(t.TempDir(), "key")
	sshdtest.Keygen(t, c.SSH.Config.IdentityFile)
	c.SSH.Config.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	b = newBackends(c, nil)
	if err := b.check(context.Background(), "ssh"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("127.0.0.1:%d", port)) {
		t.Errorf("check of a host nothing listens on = %v, want the address named", err)
	}
	c.TerminalBackend, c.SSH.On = "local", false
	b = newBackends(c, nil)
	if !slices.Equal(b.names, []string{"local", "ssh"}) || b.def != "local" {
		t.Errorf("ssh configured, local chosen: %v %q", b.names, b.def)
	}
}
