package config

// ssh (issue 18): the terminal.ssh.* settings and, TEMPORARILY until the
// backend selection (terminal.backend, the docker helper's work) lands, the
// choice of the SSH environment for terminal.backend: ssh.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal/backend"
	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
)

// sshFileConfig is the terminal.ssh section of config.yaml.
type sshFileConfig struct {
	Host         string `yaml:"host"`
	Port         int    `yaml:"port"`
	User         string `yaml:"user"`
	IdentityFile string `yaml:"identity_file"`
	RemoteDir    string `yaml:"remote_dir"`
	KnownHosts   string `yaml:"known_hosts"`
	SSHConfig    string `yaml:"ssh_config"`
	// ConnectTimeout is seconds (0: 15).
	ConnectTimeout int `yaml:"connect_timeout"`
}

// SSHSettings is what the configuration says of the SSH environment.
type SSHSettings struct {
	// On is terminal.backend: ssh (TEMPORARY: read here until the backend
	// selection lands).
	On     bool
	Config sshenv.Config
}

// sshConfig reads terminal.ssh.* (and hermes-agent's flat names
// terminal.ssh_host, ssh_port, ssh_user, ssh_key, and its TERMINAL_SSH_HOST,
// TERMINAL_SSH_PORT, TERMINAL_SSH_USER, TERMINAL_SSH_KEY variables, which
// fill what the file leaves unset) into c.SSH; bad values are problems.
func sshConfig(c *Config, fc *fileConfig, env func(string) string) {
	t := fc.Terminal
	s := t.SSH
	port := s.Port
	if port == 0 {
		port = t.SSHPort
	}
	if port == 0 && env("TERMINAL_SSH_PORT") != "" {
		p, err := strconv.Atoi(env("TERMINAL_SSH_PORT"))
		if err != nil {
			c.problem(fmt.Sprintf("TERMINAL_SSH_PORT: %q is not a port number; using 22", env("TERMINAL_SSH_PORT")))
		}
		port = p
	}
	if port < 0 || port > 65535 {
		c.problem(fmt.Sprintf("terminal.ssh.port: %d is not a port number; using 22", port))
		port = 0
	}
	c.SSH.Config = sshenv.Config{
		Host:         firstNonEmpty(s.Host, t.SSHHost, env("TERMINAL_SSH_HOST")),
		Port:         port,
		User:         firstNonEmpty(s.User, t.SSHUser, env("TERMINAL_SSH_USER")),
		IdentityFile: firstNonEmpty(s.IdentityFile, t.SSHKey, env("TERMINAL_SSH_KEY")),
		RemoteDir:    s.RemoteDir,
		KnownHosts:   s.KnownHosts,
		SSHConfig:    s.SSHConfig,
	}
	if s.ConnectTimeout > 0 {
		c.SSH.Config.ConnectTimeout = time.Duration(s.ConnectTimeout) * time.Second
	}
	if d := s.RemoteDir; d != "" && d != "~" && !strings.HasPrefix(d, "/") && !strings.HasPrefix(d, "~/") {
		c.problem(fmt.Sprintf("terminal.ssh.remote_dir: %q is not an absolute path (or ~/…) on the ssh host", d))
	}
	// hermes-agent's TERMINAL_ENV chooses the backend when the file does
	// not; one hermes-acp does not have refuses commands, as in the file.
	if te := strings.ToLower(strings.TrimSpace(env("TERMINAL_ENV"))); strings.TrimSpace(fc.Terminal.Backend) == "" && te != "" {
		switch {
		case slices.Contains(backend.Supported, te):
			c.TerminalBackend = te
		default:
			c.problem("TERMINAL_ENV: " + backend.Unsupported(te).Error())
			c.TerminalBackend = te
		}
	}
	c.SSH.On = c.TerminalBackend == "ssh"
	if c.SSH.On && c.SSH.Config.Host == "" {
		c.problem("terminal.backend is ssh but terminal.ssh.host is not set; commands will be refused until it is")
	}
}
