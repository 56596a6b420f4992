package config

import (
	"slices"
	"strings"
	"testing"
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
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	d := c.Docker.Config
	if c.TerminalBackend != "docker" || d.Image != "busybox:latest" || d.Network != "bridge" || d.CPUs != 1.5 || d.Memory != 512<<20 || d.User != "1000:1000" {
		t.Errorf("docker settings = %s %+v", c.TerminalBackend, d)
	}
	if len(c.Problems) != 0 || slices.Contains(c.Ignored, "terminal.docker") {
		t.Errorf("problems %q, ignored %q; want none", c.Problems, c.Ignored)
	}

	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  backend: docker\n  docker_image: alpine:3\n  container_cpu: 2\n  container_memory: 1024\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if d := c.Docker.Config; d.Image != "alpine:3" || d.CPUs != 2 || d.Memory != 1024<<20 || d.Network != "" {
		t.Errorf("hermes's flat keys = %+v, want alpine:3, 2 CPUs, 1 GiB, network default", d)
	}

	// A backend hermes-acp does not have is kept, to be refused: never
	// silently local.
	home = writeHome(t, map[string]string{"config.yaml": "terminal:\n  backend: Kubernetes\n  docker:\n    memory: lots\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.TerminalBackend != "kubernetes" || c.Docker.Config.Memory != 0 || len(c.Problems) != 2 {
		t.Errorf("bad values: backend %q memory %d problems %q; want kubernetes, no limit, two problems", c.TerminalBackend, c.Docker.Config.Memory, c.Problems)
	}
	if len(c.Problems) == 2 && (!strings.Contains(c.Problems[0], `"kubernetes"`) || !strings.Contains(c.Problems[0], "refused")) {
		t.Errorf("problem %q does not say the backend's commands are refused", c.Problems[0])
	}
}
