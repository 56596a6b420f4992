// Package ssh runs the terminal tools' commands on a remote machine over
// SSH (issue 18): one connection per session, host keys checked against
// known_hosts (an unknown or changed key is refused, never accepted), the
// workspace copied to a remote folder before each command and the files
// the command changed brought back after it. It implements
// terminal.Environment.
package ssh

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is where and how to reach the remote machine (terminal.ssh.*).
type Config struct {
	// Host is the host name, address or ~/.ssh/config alias (required).
	Host string
	// Port is the TCP port (0: the ssh config's Port, else 22).
	Port int
	// User is the remote user ("": the ssh config's User, else the local
	// user's name).
	User string
	// IdentityFile is a private key file; "" uses the ssh config's
	// IdentityFile entries, else ~/.ssh/id_ed25519, id_ecdsa and id_rsa.
	// The ssh-agent (SSH_AUTH_SOCK) is always tried after the files.
	IdentityFile string
	// RemoteDir is the remote folder the workspace is copied to and
	// commands run in ("~/…" is the remote home). "" is
	// ~/.hermes-acp/workspaces/<name of the local folder>.
	RemoteDir string
	// KnownHosts is the known_hosts file host keys are checked against
	// ("": ~/.ssh/known_hosts).
	KnownHosts string
	// SSHConfig is the ssh client config whose Host aliases apply
	// ("": ~/.ssh/config; "none": no file).
	SSHConfig string
	// AgentSocket is the ssh-agent's socket ("": $SSH_AUTH_SOCK; "none":
	// no agent).
	AgentSocket string
	// ConnectTimeout bounds dialing and the handshake (0: 15 s).
	ConnectTimeout time.Duration
	// KillGrace is the time a killed command has between SIGTERM and
	// SIGKILL (0: one second).
	KillGrace time.Duration
}

// resolved is a Config with the ssh config applied and defaults filled.
type resolved struct {
	alias      string // the name the user gave
	hostName   string // what is dialed
	port       int
	user       string
	identities []string // explicit identity files (must exist)
	defaults   []string // default identity files (used when present)
	remoteDir  string
	knownHosts string
	agent      string
	timeout    time.Duration
	grace      time.Duration
}

func (r *resolved) addr() string {
	return joinHostPort(r.hostName, r.port)
}

func joinHostPort(host string, port int) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// resolve applies the ssh config file and the defaults to c. home is the
// local home folder; root the local workspace folder.
func resolve(c Config, home, root string, getenv func(string) string) (*resolved, error) {
	if strings.TrimSpace(c.Host) == "" {
		return nil, errors.New("terminal.ssh.host is not set")
	}
	r := &resolved{alias: c.Host, hostName: c.Host, port: c.Port, user: c.User}
	var hc hostConfig
	cfgPath := c.SSHConfig
	if cfgPath == "" {
		cfgPath = filepath.Join(home, ".ssh", "config")
	}
	if cfgPath != "none" {
		var err error
		hc, err = readHostConfig(cfgPath, c.Host)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read ssh config %s: %w", cfgPath, err)
		}
	}
	if hc.hostName != "" {
		r.hostName = strings.ReplaceAll(hc.hostName, "%h", c.Host)
	}
	if r.port == 0 && hc.port != "" {
		p, err := strconv.Atoi(hc.port)
		if err != nil || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("ssh config %s: Port %q of host %s is not a port number", cfgPath, hc.port, c.Host)
		}
		r.port = p
	}
	if r.port == 0 {
		r.port = 22
	}
	if r.port < 0 || r.port > 65535 {
		return nil, fmt.Errorf("terminal.ssh.port %d is not a port number", r.port)
	}
	if r.user == "" {
		r.user = hc.user
	}
	if r.user == "" {
		if u, err := user.Current(); err == nil {
			r.user = u.Username
		} else if v := getenv("USER"); v != "" {
			r.user = v
		} else {
			return nil, errors.New("terminal.ssh.user is not set and the local user name is unknown")
		}
	}
	expand := func(p string) string {
		p = strings.NewReplacer("%d", home, "%u", getenv("USER"), "%r", r.user, "%h", r.hostName, "%%", "%").Replace(p)
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[1:])
		}
		return p
	}
	if c.IdentityFile != "" {
		r.identities = []string{expand(c.IdentityFile)}
	} else if len(hc.identities) > 0 {
		for _, f := range hc.identities {
			r.identities = append(r.identities, expand(f))
		}
	} else {
		for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			r.defaults = append(r.defaults, filepath.Join(home, ".ssh", n))
		}
	}
	r.knownHosts = expand(c.KnownHosts)
	if r.knownHosts == "" {
		r.knownHosts = filepath.Join(home, ".ssh", "known_hosts")
	}
	r.agent = c.AgentSocket
	if r.agent == "" {
		r.agent = getenv("SSH_AUTH_SOCK")
	}
	if r.agent == "none" {
		r.agent = ""
	}
	r.remoteDir = strings.TrimRight(c.RemoteDir, "/")
	if c.RemoteDir == "/" {
		return nil, errors.New("terminal.ssh.remote_dir: / cannot be the workspace copy")
	}
	if r.remoteDir == "" || r.remoteDir == "~" {
		r.remoteDir = "~/.hermes-acp/workspaces/" + filepath.Base(root)
	}
	if !strings.HasPrefix(r.remoteDir, "/") && !strings.HasPrefix(r.remoteDir, "~/") {
		return nil, fmt.Errorf("terminal.ssh.remote_dir %q is not an absolute path or ~/…", c.RemoteDir)
	}
	r.remoteDir = cleanRemote(r.remoteDir)
	r.timeout = c.ConnectTimeout
	if r.timeout <= 0 {
		r.timeout = 15 * time.Second
	}
	r.grace = c.KillGrace
	if r.grace <= 0 {
		r.grace = time.Second
	}
	return r, nil
}

// cleanRemote cleans a remote path, keeping a leading "~/".
func cleanRemote(p string) string {
	if strings.HasPrefix(p, "~/") {
		return "~/" + strings.TrimPrefix(path.Clean("/"+p[2:]), "/")
	}
	return path.Clean(p)
}

// hostConfig is what ~/.ssh/config says of one host (first value wins,
// as in ssh_config(5)).
type hostConfig struct {
	hostName, port, user string
	identities           []string
}

// readHostConfig reads the HostName, Port, User and IdentityFile that
// apply to host from the ssh config file at p (Host blocks with *, ? and
// ! patterns; Match blocks and Include are not supported and skipped).
func readHostConfig(p, host string) (hostConfig, error) {
	f, err := os.Open(p)
	if err != nil {
		return hostConfig{}, err
	}
	defer f.Close()
	var hc hostConfig
	applies := true // before the first Host line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val := splitConfigLine(line)
		switch strings.ToLower(key) {
		case "host":
			applies = hostMatches(strings.Fields(val), host)
		case "match":
			applies = false
		case "hostname":
			if applies && hc.hostName == "" {
				hc.hostName = val
			}
		case "port":
			if applies && hc.port == "" {
				hc.port = val
			}
		case "user":
			if applies && hc.user == "" {
				hc.user = val
			}
		case "identityfile":
			if applies {
				hc.identities = append(hc.identities, val)
			}
		}
	}
	return hc, sc.Err()
}

// splitConfigLine splits "Key value", "Key=value" and "Key = value"; the
// value loses surrounding double quotes.
func splitConfigLine(line string) (key, val string) {
	i := strings.IndexAny(line, " \t=")
	if i < 0 {
		return line, ""
	}
	key = line[:i]
	val = strings.TrimSpace(line[i:])
	val = strings.TrimSpace(strings.TrimPrefix(val, "="))
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
		val = val[1 : len(val)-1]
	}
	return key, val
}

// hostMatches applies a Host line's patterns: some pattern matches and no
// negated one does.
func hostMatches(patterns []string, host string) bool {
	ok := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		if m, _ := path.Match(strings.ToLower(p), strings.ToLower(host)); m {
			if neg {
				return false
			}
			ok = true
		}
	}
	return ok
}
