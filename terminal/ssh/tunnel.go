package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	gossh "golang.org/x/crypto/ssh"
)

// Tunnel is an ssh connection used to reach unix sockets on the remote
// host (direct-streamlocal, as `ssh -L local:/remote.sock` does): the
// docker environment reaches a daemon given as DOCKER_HOST=ssh://… this
// way. The host is resolved and checked as for the ssh environment
// (~/.ssh/config aliases, known_hosts, identity files, ssh-agent). The
// connection is opened on first use and reopened after it drops. It is
// safe for concurrent use.
type Tunnel struct {
	r *resolved

	mu     sync.Mutex
	client *gossh.Client
	closed bool
}

// NewTunnel resolves cfg (Host, Port, User, IdentityFile, KnownHosts,
// SSHConfig, AgentSocket, ConnectTimeout; RemoteDir is unused) without
// connecting.
func NewTunnel(cfg Config, o Options) (*Tunnel, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("ssh tunnel: %w", err)
	}
	cfg.RemoteDir = ""
	r, err := resolve(cfg, o.Home, "/tunnel", o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("ssh tunnel: %w", err)
	}
	return &Tunnel{r: r}, nil
}

// Addr is user@host:port as dialed.
func (t *Tunnel) Addr() string { return t.r.user + "@" + t.r.addr() }

// DialUnix connects to the unix socket at path on the remote host,
// reconnecting once when the connection turns out to be gone. An
// unknown or changed host key fails with a *HostKeyError.
func (t *Tunnel) DialUnix(ctx context.Context, path string) (net.Conn, error) {
	for attempt := 0; ; attempt++ {
		c, err := t.conn(ctx)
		if err != nil {
			return nil, err
		}
		nc, err := c.DialContext(ctx, "unix", path)
		if err == nil {
			return nc, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		var oe *gossh.OpenChannelError
		if errors.As(err, &oe) || attempt == 1 {
			// The server refused the socket (absent, not allowed).
			return nil, fmt.Errorf("ssh %s: connect to %s: %w", t.r.addr(), path, err)
		}
		t.drop(c)
	}
}

func (t *Tunnel) conn(ctx context.Context) (*gossh.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("the ssh tunnel is closed")
	}
	if t.client != nil {
		return t.client, nil
	}
	c, err := dial(ctx, t.r)
	if err != nil {
		return nil, err
	}
	t.client = c
	go func() {
		_ = c.Wait()
		t.drop(c)
	}()
	return c, nil
}

func (t *Tunnel) drop(c *gossh.Client) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client == c {
		t.client = nil
	}
	c.Close()
}

// Close closes the connection; dials fail after it.
func (t *Tunnel) Close() error {
	t.mu.Lock()
	c := t.client
	t.client, t.closed = nil, true
	t.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}
