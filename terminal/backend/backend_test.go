package backend

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal/docker"
	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// TestBackendsOffered: docker is offered (and checked) only when
// configured; an unreachable daemon's error is what the status says.
func TestBackendsOffered(t *testing.T) {
	t.Parallel()
	b := New(Options{Default: "local"})
	if !slices.Equal(b.Names(), []string{"local"}) || b.Default() != "local" {
		t.Errorf("local only: %v %q", b.Names(), b.Default())
	}
	b = New(Options{Default: "docker", Docker: &docker.Config{Image: "busybox", Host: "unix:///nonexistent/hermes-test.sock"}})
	defer b.Close()
	if !slices.Equal(b.Names(), []string{"local", "docker"}) || b.Default() != "docker" {
		t.Errorf("docker: %v %q", b.Names(), b.Default())
	}
	if s := b.Status(context.Background()); !strings.Contains(s, "unavailable") || !strings.Contains(s, "/nonexistent/hermes-test.sock") {
		t.Errorf("status = %q, want the unreachable daemon named", s)
	}
}

func TestBackendsOfferSSH(t *testing.T) {
	t.Parallel()
	b := New(Options{Default: "ssh", SSH: &sshenv.Config{}})
	if !slices.Equal(b.Names(), []string{"local", "ssh"}) || b.Default() != "ssh" {
		t.Errorf("ssh without a host: %v %q", b.Names(), b.Default())
	}
	if err := b.Check(context.Background(), "ssh"); err == nil || !strings.Contains(err.Error(), "terminal.ssh.host") {
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
	c := sshenv.Config{Host: "127.0.0.1", Port: port, SSHConfig: "none", AgentSocket: "none", IdentityFile: filepath.Join(t.TempDir(), "missing_key")}
	b = New(Options{Default: "ssh", SSH: &c})
	if err := b.Check(context.Background(), "ssh"); err == nil || !strings.Contains(err.Error(), "missing_key") {
		t.Errorf("check with a missing identity file = %v, want it named", err)
	}
	c.IdentityFile = filepath.Join(t.TempDir(), "key")
	sshdtest.Keygen(t, c.IdentityFile)
	c.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	b = New(Options{Default: "ssh", SSH: &c})
	if err := b.Check(context.Background(), "ssh"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("127.0.0.1:%d", port)) {
		t.Errorf("check of a host nothing listens on = %v, want the address named", err)
	}
	b = New(Options{Default: "local", SSH: &c})
	if !slices.Equal(b.Names(), []string{"local", "ssh"}) || b.Default() != "local" {
		t.Errorf("ssh configured, local chosen: %v %q", b.Names(), b.Default())
	}
}
