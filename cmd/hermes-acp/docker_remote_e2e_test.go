package main_test

// The official ACP TypeScript SDK plays the editor of
// conformance/docker_remote.mjs while the model runs commands with
// terminal.backend: docker and terminal.docker.host a tcp:// daemon
// (issue 18): the private dockerd this test starts, reached on a loopback
// port as a remote daemon is, the workspace copied in and back.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hermes-acp/hermes-acp/terminal/docker"
	"github.com/hermes-acp/hermes-acp/terminal/docker/dockertest"
)

func TestTypeScriptSDKDockerRemote(t *testing.T) {
	node := requireNode(t)
	d, cli := privateDockerd(t)
	ws := t.TempDir()
	for name, data := range map[string]string{"in.txt": "copied in\n", "gone.txt": "delete me\n", ".env": "SECRET=1\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "terminal:\n  backend: docker\n  docker:\n    image: " + dockertest.Image + "\n    host: " + d.TCP + "\n"
	runDockerConformance(t, node, "docker_remote.mjs", cfg, ws, "DOCKER_TCP="+d.TCP)
	// The agent exited: its container is gone.
	noAgentContainers(t, cli)
}

// privateDockerd starts a private dockerd (stopped when the test ends)
// and a client of it.
func privateDockerd(t *testing.T) (*dockertest.Daemon, *client.Client) {
	t.Helper()
	d, err := dockertest.New()
	if err != nil {
		t.Fatalf("private dockerd: %v", err)
	}
	t.Cleanup(d.Stop)
	cli, err := d.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return d, cli
}

// runDockerConformance runs conformance/script against the agent with
// config.yaml cfg, the fake terminal model and the workspace ws (in
// DOCKER_WS), plus env; the script's failure fails the test.
func runDockerConformance(t *testing.T, node, script, cfg, ws string, env ...string) {
	t.Helper()
	srv := startModel(t, terminalModel(t))
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs(filepath.Join(repoRoot, "conformance", script))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, path, agentBin)
	cmd.Env = baseEnv(t, append(append(modelEnv(srv),
		"HERMES_HOME="+home,
		"DOCKER_WS="+ws,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	), env...)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", path, agentBin, err, out)
	}
	t.Logf("%s", out)
}

// noAgentContainers fails the test when containers an agent labelled are
// left on the daemon of cli.
func noAgentContainers(t *testing.T, cli *client.Client) {
	t.Helper()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", docker.LabelPID)})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d containers of the agent left after it exited: %+v", len(list.Items), list.Items)
	}
}
