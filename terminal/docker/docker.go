// Package docker runs the terminal tool's commands in a Docker container:
// one container per session, created on first use from the configured
// image and removed when the session closes or the agent exits. With a
// local daemon (a unix socket) the workspace is bind-mounted at the same
// path; with a remote one (tcp://, ssh://) it is copied into the
// container at the same path before each command and the files the
// command changed, created or deleted are copied back after it
// (terminal/wsync: .gitignore and the deny list respected). It talks to
// the daemon over the Engine API with the standard library (engine.go:
// DOCKER_HOST and the CLI's TLS variables honoured, the API version
// negotiated); an ssh:// daemon is reached through terminal/ssh's
// connection (known_hosts checked).
package docker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/terminal/wsync"
)

// Labels put on every container the agent creates.
const (
	LabelSession = "hermes-acp.session" // the ACP session id
	LabelPID     = "hermes-acp.pid"     // the agent's process id
	LabelHost    = "hermes-acp.host"    // the agent's host name
)

// Config is terminal.docker.* of config.yaml.
type Config struct {
	// Image is the image the session's container runs.
	Image string
	// Network is the container's network mode ("" → "none").
	Network string
	// CPUs limits the container's CPUs (0: no limit).
	CPUs float64
	// Memory limits the container's memory in bytes (0: no limit).
	Memory int64
	// User runs commands as this user ("uid:gid" or a name); "" is the
	// agent's own uid:gid, so files written in the workspace stay the
	// user's.
	User string
	// Host is the daemon's address; "" uses DOCKER_HOST, else the local
	// socket. Anything but unix://… is a remote daemon: tcp://host:port,
	// or ssh://[user@]host[:port][/path/to/docker.sock] (the socket
	// defaults to /var/run/docker.sock).
	Host string
	// SSH are the ssh settings for an ssh:// Host beyond the URL's user,
	// host and port (identity file, known_hosts, ssh config, agent); zero
	// values are the user's ~/.ssh defaults.
	SSH sshenv.Config
}

// defaultHost is the daemon when neither Host nor DOCKER_HOST names one.
const defaultHost = "unix:///var/run/docker.sock"

// Manager holds the agent's connection to the daemon and the containers
// it created. It is safe for concurrent use.
type Manager struct {
	cfg    Config
	host   string // the daemon's address (Host, DOCKER_HOST or the default)
	remote bool   // not a unix socket: the workspace is copied, not mounted

	once   sync.Once
	cli    *engine
	tunnel *sshenv.Tunnel // an ssh:// daemon's connection
	err    error

	mu       sync.Mutex
	sessions map[*Env]struct{}
	closed   bool
}

// NewManager returns a Manager; nothing is contacted until first use.
func NewManager(cfg Config) *Manager {
	host := strings.TrimSpace(cfg.Host)
	if host == "" {
		host = strings.TrimSpace(os.Getenv(envHost))
	}
	if host == "" {
		host = defaultHost
	}
	return &Manager{cfg: cfg, host: host, remote: !isLocal(host), sessions: map[*Env]struct{}{}}
}

// Remote reports whether the daemon is remote (tcp://, ssh://): the
// workspace is copied into the container around each command rather
// than bind-mounted.
func (m *Manager) Remote() bool { return m.remote }

// Mode says where the daemon is and how the workspace reaches the
// container: "local daemon unix:///var/run/docker.sock, workspace
// mounted" or "remote daemon tcp://build:2375, workspace copied".
func (m *Manager) Mode() string {
	if m.remote {
		return "remote daemon " + m.host + ", workspace copied"
	}
	return "local daemon " + m.host + ", workspace mounted"
}

// Image is the configured image.
func (m *Manager) Image() string { return m.cfg.Image }

// client connects to the daemon (once) and negotiates the API version.
func (m *Manager) client(ctx context.Context) (*engine, error) {
	m.once.Do(func() {
		var dial func(context.Context) (net.Conn, error)
		if strings.HasPrefix(m.host, "ssh://") {
			dial, m.err = m.sshDial()
			if m.err != nil {
				return
			}
		}
		m.cli, m.err = newEngine(m.host, dial)
		if m.err != nil {
			m.err = fmt.Errorf("docker client: %w", m.err)
		}
	})
	if m.err != nil {
		return nil, m.err
	}
	return m.cli, nil
}

// Check reports why the backend cannot be used: no image configured, or
// no daemon reachable (for an ssh:// daemon: the ssh connection refused,
// an unknown host key with its fingerprint).
func (m *Manager) Check(ctx context.Context) error {
	if m.cfg.Image == "" {
		return errors.New("terminal.docker.image is not set")
	}
	cli, err := m.client(ctx)
	if err != nil {
		return err
	}
	if err := cli.ping(ctx); err != nil {
		return fmt.Errorf("docker daemon %s: %w", m.host, err)
	}
	return nil
}

// isLocal reports whether host is a socket on this machine (unix://, or
// a Windows named pipe): the workspace can be bind-mounted.
func isLocal(host string) bool {
	return strings.HasPrefix(host, "unix://") || strings.HasPrefix(host, "npipe://")
}

// RemoveLeftovers removes the containers that a hermes-acp process on this
// host created and that outlived it (the process no longer exists). It
// returns how many it removed.
func (m *Manager) RemoveLeftovers(ctx context.Context) (int, error) {
	cli, err := m.client(ctx)
	if err != nil {
		return 0, err
	}
	host, _ := os.Hostname()
	list, err := cli.containerList(ctx, LabelPID)
	if err != nil {
		return 0, fmt.Errorf("list docker containers: %w", err)
	}
	n := 0
	var errs []error
	for _, c := range list {
		if c.Labels[LabelHost] != host {
			continue
		}
		pid, err := strconv.Atoi(c.Labels[LabelPID])
		if err != nil || pid <= 0 || processExists(pid) {
			continue
		}
		if err := cli.containerRemove(ctx, c.ID); err != nil {
			errs = append(errs, fmt.Errorf("remove leftover container %.12s: %w", c.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Session returns the environment of one session: its container is
// created on the first command. roots are the workspace roots, mounted at
// the same paths.
func (m *Manager) Session(id string, roots []string) *Env {
	e := &Env{m: m, session: id, roots: roots}
	m.mu.Lock()
	if !m.closed {
		m.sessions[e] = struct{}{}
	}
	m.mu.Unlock()
	return e
}

// Close removes every container the Manager created (the agent exits).
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	envs := make([]*Env, 0, len(m.sessions))
	for e := range m.sessions {
		envs = append(envs, e)
	}
	m.mu.Unlock()
	var errs []error
	for _, e := range envs {
		errs = append(errs, e.Close())
	}
	// Wait for a connection being made; none is made after this.
	m.once.Do(func() { m.err = errors.New("docker: the agent is shutting down") })
	if m.cli != nil {
		m.cli.close()
	}
	if m.tunnel != nil {
		m.tunnel.Close()
	}
	return errors.Join(errs...)
}

// Env is one session's container. It implements terminal.Environment.
type Env struct {
	m       *Manager
	session string
	roots   []string

	mu     sync.Mutex
	id     string // the container, once created
	closed bool

	// remote daemon: the workspace roots' copies in the container.
	trees []*wsync.Tree
	seq   atomic.Int64 // numbers the commands' sync markers
}

// Describe names where commands run, for the editor: "docker container
// 1a2b3c4d5e6f (image busybox)"; before the first command only the image.
func (e *Env) Describe() string {
	e.mu.Lock()
	id := e.id
	e.mu.Unlock()
	where := ""
	if e.m.remote {
		where = ", " + e.m.Mode()
	}
	if id == "" {
		return fmt.Sprintf("docker (image %s%s)", e.m.cfg.Image, where)
	}
	return fmt.Sprintf("docker container %.12s (image %s%s)", id, e.m.cfg.Image, where)
}

// ContainerID is the session's container, "" before the first command.
func (e *Env) ContainerID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.id
}

// container returns the session's running container, creating it first.
func (e *Env) container(ctx context.Context) (*engine, string, error) {
	cli, err := e.m.client(ctx)
	if err != nil {
		return nil, "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, "", errors.New("the session's docker container was removed (the session closed)")
	}
	if e.id != "" {
		return cli, e.id, nil
	}
	if err := e.m.Check(ctx); err != nil {
		return nil, "", err
	}
	cfg := e.m.cfg
	network := cfg.Network
	if network == "" {
		network = "none"
	}
	host, _ := os.Hostname()
	init := true
	hc := hostConfig{
		NetworkMode: network,
		Init:        &init,
		NanoCPUs:    int64(cfg.CPUs * 1e9),
		Memory:      cfg.Memory,
	}
	if !e.m.remote {
		for _, r := range e.roots {
			hc.Mounts = append(hc.Mounts, mount{Type: "bind", Source: r, Target: r})
		}
	}
	created, err := cli.containerCreate(ctx, createRequest{
		Image:      cfg.Image,
		Entrypoint: []string{"sh", "-c", "while :; do sleep 3600; done"},
		Labels:     map[string]string{LabelSession: e.session, LabelPID: strconv.Itoa(os.Getpid()), LabelHost: host},
		WorkingDir: firstRoot(e.roots),
		HostConfig: hc,
	})
	if err != nil {
		return nil, "", fmt.Errorf("create docker container from %s: %w", cfg.Image, err)
	}
	if err := cli.containerStart(ctx, created); err != nil {
		_ = cli.containerRemove(context.WithoutCancel(ctx), created)
		return nil, "", fmt.Errorf("start docker container from %s: %w", cfg.Image, err)
	}
	if e.m.remote {
		if err := e.prepare(ctx, cli, created); err != nil {
			_ = cli.containerRemove(context.WithoutCancel(ctx), created)
			return nil, "", err
		}
	}
	e.id = created
	return cli, e.id, nil
}

func firstRoot(roots []string) string {
	if len(roots) > 0 {
		return roots[0]
	}
	return "/"
}

// user is the user commands run as.
func (e *Env) user() string {
	if e.m.cfg.User != "" {
		return e.m.cfg.User
	}
	return fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
}

// Close removes the session's container (and everything running in it).
func (e *Env) Close() error {
	e.mu.Lock()
	id := e.id
	e.closed = true
	e.id = ""
	e.mu.Unlock()
	e.m.mu.Lock()
	delete(e.m.sessions, e)
	e.m.mu.Unlock()
	if id == "" {
		return nil
	}
	cli, err := e.m.client(context.Background())
	if err != nil {
		return err
	}
	if err := cli.containerRemove(context.Background(), id); err != nil {
		return fmt.Errorf("remove docker container %.12s: %w", id, err)
	}
	return nil
}

// Name is the backend's config name.
func (e *Env) Name() string { return "docker" }
