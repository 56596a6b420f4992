package main_test

// The official ACP TypeScript SDK plays the editor of conformance/docker.mjs
// while the model runs commands with terminal.backend: docker (issue 18),
// against a private dockerd this test starts (Debian's docker.io) with a
// busybox image built from scratch, network off.

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/hermes-acp/hermes-acp/terminal/docker"
	"github.com/hermes-acp/hermes-acp/terminal/docker/dockertest"
)

func TestTypeScriptSDKDocker(t *testing.T) {
	node := requireNode(t)
	d, cli := privateDockerd(t)
	// A crashed agent's container: labelled with a pid that no process has.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if _, err := cli.ContainerCreate(context.Background(), client.ContainerCreateOptions{
		Config: &container.Config{Image: dockertest.Image, Cmd: []string{"true"}, Labels: map[string]string{
			docker.LabelSession: "crashed", docker.LabelPID: strconv.Itoa(dead.Process.Pid), docker.LabelHost: host}},
		HostConfig: &container.HostConfig{NetworkMode: "none"},
	}); err != nil {
		t.Fatal(err)
	}
	cfg := "terminal:\n  backend: docker\n  docker:\n    image: " + dockertest.Image + "\n    host: " + d.Host + "\n"
	runDockerConformance(t, node, "docker.mjs", cfg, t.TempDir())
	// The agent exited: its container is gone, and so is the crashed
	// agent's, removed when it started.
	noAgentContainers(t, cli)
}
