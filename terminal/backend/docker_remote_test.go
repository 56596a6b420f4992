package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal/docker"
)

// TestStatusNamesRemoteDockerDaemon: `hermes-acp tools` says the docker
// daemon is remote and the workspace copied, and why it is unavailable.
func TestStatusNamesRemoteDockerDaemon(t *testing.T) {
	t.Parallel()
	c := docker.Config{Image: "busybox", Host: "tcp://127.0.0.1:1"}
	b := New(Options{Default: "docker", Docker: &c})
	defer b.Close()
	s := b.Status(context.Background())
	if !strings.Contains(s, "Terminal backend: docker [remote daemon tcp://127.0.0.1:1, workspace copied]") || !strings.Contains(s, "unavailable") {
		t.Errorf("status = %q, want the remote daemon, the copy and why it is unavailable", s)
	}
	c.Host = "unix:///nonexistent/hermes-test.sock"
	b = New(Options{Default: "docker", Docker: &c})
	defer b.Close()
	if s := b.Status(context.Background()); !strings.Contains(s, "[local daemon unix:///nonexistent/hermes-test.sock, workspace mounted]") {
		t.Errorf("status = %q, want the local daemon and the mount", s)
	}
}
