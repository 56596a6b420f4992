package main

import (
	"context"
	"strings"
	"testing"
)

// TestStatusNamesRemoteDockerDaemon: `hermes-acp tools` says the docker
// daemon is remote and the workspace copied, and why it is unavailable.
func TestStatusNamesRemoteDockerDaemon(t *testing.T) {
	t.Parallel()
	var c config
	c.TerminalBackend = "docker"
	c.Docker.Config.Image = "busybox"
	c.Docker.Config.Host = "tcp://127.0.0.1:1"
	b := newBackends(c, nil)
	defer b.close()
	s := b.status(context.Background())
	if !strings.Contains(s, "Terminal backend: docker [remote daemon tcp://127.0.0.1:1, workspace copied]") || !strings.Contains(s, "unavailable") {
		t.Errorf("status = %q, want the remote daemon, the copy and why it is unavailable", s)
	}
	c.Docker.Config.Host = "unix:///nonexistent/hermes-test.sock"
	b = newBackends(c, nil)
	defer b.close()
	if s := b.status(context.Background()); !strings.Contains(s, "[local daemon unix:///nonexistent/hermes-test.sock, workspace mounted]") {
		t.Errorf("status = %q, want the local daemon and the mount", s)
	}
}
