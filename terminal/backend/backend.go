package main

// terminal backends (issue 18): terminal.backend, terminal.docker.* and the
// per-session selection of where the terminal tool runs commands.

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/terminal/docker"
	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/tools"
)

// defaultDockerImage is hermes-agent's default terminal.docker_image.
const defaultDockerImage = "nikolaik/python-nodejs:python3.11-nodejs20"

// dockerFileConfig is terminal.docker of config.yaml.
type dockerFileConfig struct {
	Image   string  `yaml:"image"`
	Network string  `yaml:"network"` // default none
	CPUs    float64 `yaml:"cpus"`
	Memory  string  `yaml:"memory"` // 512m, 2g, or bytes
	User    string  `yaml:"user"`   // default the user's uid:gid
	Host    string  `yaml:"host"`   // default DOCKER_HOST
}

// dockerSettings are the docker backend's settings after defaults.
type dockerSettings struct {
	Configured bool // any terminal.docker key was set
	Config     docker.Config
}

// terminalBackendConfig reads terminal.backend and terminal.docker.*.
func terminalBackendConfig(c *config, fc *fileConfig) {
	t := fc.Terminal
	switch b := strings.ToLower(strings.TrimSpace(t.Backend)); b {
	case "", "local":
		c.TerminalBackend = "local"
	case "docker", "ssh":
		c.TerminalBackend = b
	default:
		c.problem(fmt.Sprintf("terminal.backend: %q is not local, docker or ssh; using local", t.Backend))
		c.TerminalBackend = "local"
	}
	d := t.Docker
	c.Docker.Configured = d != (dockerFileConfig{}) || t.DockerImage != "" || t.ContainerCPU != 0 || t.ContainerMemory != 0
	cfg := docker.Config{Image: firstNonEmpty(strings.TrimSpace(d.Image), strings.TrimSpace(t.DockerImage), defaultDockerImage), Network: d.Network, User: d.User, Host: d.Host}
	switch cpus := firstNonZero(d.CPUs, t.ContainerCPU); {
	case cpus > 0:
		cfg.CPUs = cpus
	case cpus < 0:
		c.problem(fmt.Sprintf("terminal.docker.cpus: %g is not a number of CPUs above 0; no limit", cpus))
	}
	if d.Memory != "" {
		n, err := parseMemory(d.Memory)
		if err != nil {
			c.problem(fmt.Sprintf("terminal.docker.memory: %q is not a size like 512m or 2g; no limit", d.Memory))
		}
		cfg.Memory = n
	} else if t.ContainerMemory > 0 {
		cfg.Memory = t.ContainerMemory << 20
	}
	c.Docker.Config = cfg
}

func firstNonZero(v ...float64) float64 {
	for _, f := range v {
		if f != 0 {
			return f
		}
	}
	return 0
}

// parseMemory reads 512m, 2g, 1024k or a number of bytes.
func parseMemory(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, "b")
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(n * float64(mult)), nil
}

// backends is the agent's terminal backends: the names offered and the
// shared connection of each (the docker daemon).
type backends struct {
	names   []string
	def     string
	docker  *docker.Manager // nil when docker is not offered
	ssh     *sshenv.Config  // nil when ssh is not offered
	log     *slog.Logger
	cleanup sync.Once
}

// newBackends offers local, plus docker when it is terminal.backend or
// configured, and ssh when it is terminal.backend or terminal.ssh.host is set.
func newBackends(cfg config, log *slog.Logger) *backends {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &backends{names: []string{"local"}, def: cfg.TerminalBackend, log: log}
	if cfg.TerminalBackend == "docker" || cfg.Docker.Configured {
		b.names = append(b.names, "docker")
		b.docker = docker.NewManager(cfg.Docker.Config)
	}
	if cfg.SSH.On || cfg.SSH.Config.Host != "" {
		b.names = append(b.names, "ssh")
		c := cfg.SSH.Config
		b.ssh = &c
	}
	if b.def == "" || (b.def == "docker" && b.docker == nil) || (b.def == "ssh" && b.ssh == nil) {
		b.def = "local"
	}
	return b
}

// agentOptions is what the agent needs to offer and check the backends.
func (b *backends) agentOptions() agent.TerminalBackends {
	return agent.TerminalBackends{Names: b.names, Default: b.def, Check: b.check, Describe: b.describe}
}

// describe says how a backend runs commands: for docker, where the
// daemon is and whether the workspace is mounted or copied.
func (b *backends) describe(name string) string {
	if name == "docker" && b.docker != nil {
		return b.docker.Mode()
	}
	return ""
}

// check reports why a backend cannot run commands now.
func (b *backends) check(ctx context.Context, name string) error {
	switch name {
	case "local":
		return nil
	case "docker":
		if b.docker == nil {
			return fmt.Errorf("docker is not configured (terminal.docker.image)")
		}
		return b.docker.Check(ctx)
	case "ssh":
		if b.ssh == nil || b.ssh.Host == "" {
			return fmt.Errorf("ssh is not configured (terminal.ssh.host)")
		}
		// Log in as the first command would: an unreachable host or an
		// unknown host key (with its fingerprint) is said here.
		return sshenv.Check(ctx, *b.ssh, sshenv.Options{})
	}
	return fmt.Errorf("terminal backend %q is not available in this build", name)
}

// start removes, in the background, the leftover containers of crashed
// agents when docker is offered.
func (b *backends) start() {
	if b.docker != nil {
		go b.removeLeftovers()
	}
}

// removeLeftovers removes the containers of hermes-acp processes that
// died without removing them (once: at start, or at the first docker
// command if that comes first).
func (b *backends) removeLeftovers() {
	b.cleanup.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		n, err := b.docker.RemoveLeftovers(ctx)
		if err != nil {
			b.log.Warn("remove leftover docker containers", "error", err)
		}
		if n > 0 {
			b.log.Info("removed leftover docker containers of exited agents", "count", n)
		}
	})
}

// forSession returns tools.Deps.TerminalBackend for env's session: the
// backend the session chose, its container created on first use and
// removed when the session closes.
func (b *backends) forSession(env *agent.Env) func() (tools.TerminalBackend, error) {
	var mu sync.Mutex
	var dockerEnv *docker.Env
	var sshEnv tools.TerminalBackend
	return func() (tools.TerminalBackend, error) {
		switch name := env.TerminalBackend(); name {
		case "local":
			return nil, nil
		case "docker":
			if b.docker == nil {
				return nil, fmt.Errorf("docker is not configured (terminal.docker.image)")
			}
			b.removeLeftovers()
			mu.Lock()
			defer mu.Unlock()
			if dockerEnv == nil {
				dockerEnv = b.docker.Session(env.SessionID(), env.Workspace().Roots())
				e := dockerEnv
				env.OnClose(func() {
					if err := e.Close(); err != nil {
						b.log.Warn("remove the session's docker container", "error", err)
					}
				})
			}
			return dockerEnv, nil
		case "ssh":
			if b.ssh == nil {
				return nil, fmt.Errorf("ssh is not configured (terminal.ssh.host)")
			}
			mu.Lock()
			defer mu.Unlock()
			if sshEnv == nil {
				e, err := newSSHBackend(*b.ssh, env, b.log)
				if err != nil {
					return nil, err
				}
				sshEnv = e
			}
			return sshEnv, nil
		default:
			return nil, fmt.Errorf("terminal backend %q is not available in this build", name)
		}
	}
}

// close removes every container still running (the agent exits).
func (b *backends) close() {
	if b.docker != nil {
		if err := b.docker.Close(); err != nil {
			b.log.Warn("remove docker containers", "error", err)
		}
	}
}

// status is `hermes-acp tools`'s line about the terminal backend.
func (b *backends) status(ctx context.Context) string {
	s := "Terminal backend: " + b.def
	if how := b.describe(b.def); how != "" {
		s += " [" + how + "]"
	}
	if len(b.names) > 1 {
		s += " (offered: " + strings.Join(b.names, ", ") + ")"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := b.check(ctx, b.def); err != nil {
		return s + "; unavailable: " + err.Error()
	}
	return s + "; available"
}
