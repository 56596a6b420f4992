package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Sandbox is the sandbox every command on this machine runs in
// (terminal.Sandbox decides, at a session's first command, how:
// namespaces, or Landlock alone, reported in the session; with
// terminal.sandbox: off, unconfined but with its environment built). exe
// finds the agent's own binary, without which neither the namespace
// sandbox nor the editor-terminal helper can run: notice then says so, for
// the chat.
func (c Config) Sandbox(exe func() (string, error)) (sb *terminal.Sandbox, notice string) {
	sb = &terminal.Sandbox{Writable: c.SandboxWritable, Hidden: slices.Clone(c.SandboxHidden), HermesHome: c.Home,
		Unconfined: c.SandboxOff, LandlockOnly: c.SandboxLandlock, SharedTmp: c.SharedTmp, Limits: c.Limits}
	// The user's credential places a command may be granted; the
	// system's (/etc/shadow, the sudoers files) are never shown.
	home, _ := os.UserHomeDir()
	for _, p := range workspace.CredentialPlaces(home) {
		if home != "" && strings.HasPrefix(p.Path, home+string(os.PathSeparator)) {
			sb.Credentials = append(sb.Credentials, p.Path)
		} else {
			sb.Hidden = append(sb.Hidden, p.Path)
		}
	}
	path, err := exe()
	if err != nil {
		return sb, fmt.Sprintf("The agent cannot find its own binary (%v): commands run under Landlock alone, and never in editor terminals.", err)
	}
	sb.Exe = path
	return sb, ""
}

// Environ is how a command's environment is built: the configured API
// key's variable (and hermes's list) removed, terminal.env_passthrough
// kept.
func (c Config) Environ() terminal.Environ {
	var block []string
	if c.APIKeySource != "" {
		block = []string{c.APIKeySource}
	}
	return terminal.Environ{Block: block, Passthrough: c.EnvPassthrough}
}

// sandboxConfig reads the sandbox's terminal.* keys beside
// terminal.sandbox: sandbox_hidden, private_tmp, env_passthrough, network,
// credentials and limits. A bad value is a problem that keeps the default.
func sandboxConfig(c *Config, fc *fileConfig) {
	t := fc.Terminal
	for _, d := range t.SandboxHidden {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if d != "~" && !strings.HasPrefix(d, "~/") && !filepath.IsAbs(d) {
			c.problem(fmt.Sprintf("terminal.sandbox_hidden: %q is not an absolute path (or ~/…); it is ignored", d))
			continue
		}
		c.SandboxHidden = append(c.SandboxHidden, d)
	}
	if t.PrivateTmp != nil && !*t.PrivateTmp {
		c.SharedTmp = true
	}
	for _, n := range t.EnvPassthrough {
		if n = strings.TrimSpace(n); n != "" {
			c.EnvPassthrough = append(c.EnvPassthrough, n)
		}
	}
	grant := func(key, v string) string {
		switch v = strings.ToLower(strings.TrimSpace(v)); v {
		case "", "ask":
			return "ask"
		case "on", "off":
			return v
		case "true", "yes":
			return "on"
		case "false", "no":
			return "off"
		}
		c.problem(fmt.Sprintf("terminal.%s: %q is not ask, on or off; using ask", key, v))
		return "ask"
	}
	c.TerminalNetwork = grant("network", t.Network)
	c.TerminalCredentials = grant("credentials", t.Credentials)
	l := t.Limits
	if p := l.Processes; p != nil {
		switch {
		case *p < 0:
			c.Limits.Processes = -1
		case *p > 0 && *p < 301:
			c.problem(fmt.Sprintf("terminal.limits.processes: %d is below 301, the least the kernel allows; using 301", *p))
			c.Limits.Processes = 301
		default:
			c.Limits.Processes = *p
		}
	}
	if p := l.CPUTime; p != nil {
		if *p < 0 {
			c.Limits.CPUTime = -1
		} else {
			c.Limits.CPUTime = int64(*p)
		}
	}
	size := func(key, v string, dst *int64) {
		if strings.TrimSpace(v) == "" {
			return
		}
		n, err := parseSize(v)
		if err != nil {
			c.problem(fmt.Sprintf("terminal.limits.%s: %q is not a size (bytes, or a number with K, M, G or T, or unlimited); using the default", key, v))
			return
		}
		*dst = n
	}
	size("address_space", l.AddressSpace, &c.Limits.AddressSpace)
	size("file_size", l.FileSize, &c.Limits.FileSize)
}

// parseSize reads a size: bytes, or a number followed by K, M, G or T
// (powers of 1024, an optional B or iB after), or unlimited (-1).
func parseSize(v string) (int64, error) {
	v = strings.ToUpper(strings.TrimSpace(v))
	if v == "UNLIMITED" || v == "-1" {
		return -1, nil
	}
	v = strings.TrimSuffix(strings.TrimSuffix(v, "B"), "I")
	mult := int64(1)
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			v = strings.TrimSpace(v[:n-1])
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", v)
	}
	return n * mult, nil
}
