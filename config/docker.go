package config

// terminal backends (issue 18): terminal.backend and terminal.docker.*.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-acp/hermes-acp/terminal/backend"
	"github.com/hermes-acp/hermes-acp/terminal/docker"
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

// DockerSettings are the docker backend's settings after defaults.
type DockerSettings struct {
	Configured bool // any terminal.docker key was set
	Config     docker.Config
}

// terminalBackendConfig reads terminal.backend and terminal.docker.*. A
// backend hermes-acp does not have is kept (lower-cased): the session's
// commands and scripts are refused with backend.Unsupported, never run
// here instead.
func terminalBackendConfig(c *Config, fc *fileConfig) {
	t := fc.Terminal
	switch b := strings.ToLower(strings.TrimSpace(t.Backend)); b {
	case "", "local":
		c.TerminalBackend = "local"
	case "docker", "ssh":
		c.TerminalBackend = b
	default:
		c.problem("terminal.backend: " + backend.Unsupported(b).Error())
		c.TerminalBackend = b
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

// Backends are the terminal backends this configuration offers: local,
// plus docker when it is terminal.backend or configured, and ssh when it is
// terminal.backend or terminal.ssh.host is set. Log is left for the caller.
func (c *Config) Backends() backend.Options {
	o := backend.Options{Default: c.TerminalBackend}
	if c.TerminalBackend == "docker" || c.Docker.Configured {
		d := c.Docker.Config
		o.Docker = &d
	}
	if c.SSH.On || c.SSH.Config.Host != "" {
		s := c.SSH.Config
		o.SSH = &s
	}
	return o
}
