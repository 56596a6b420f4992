// Package backend chooses where a session's terminal commands run: this
// machine, a Docker container (terminal/docker) or an SSH host
// (terminal/ssh). A [Set] is the agent's offer — the backends configured,
// the default, and the shared connection of each (the docker daemon) — and
// [Set.ForSession] gives a session the environment it chose, created on
// first use and closed with the session. The composition root owns the Set
// and calls Close when the agent exits.
package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/docker"
	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Options say which backends are offered. The zero value offers this
// machine alone.
type Options struct {
	// Default is terminal.backend, a new session's choice: "local",
	// "docker" or "ssh"; one not offered (or "") is "local".
	Default string
	// Docker is the docker backend's settings; nil: docker is not offered.
	Docker *docker.Config
	// SSH is the ssh backend's settings; nil: ssh is not offered.
	SSH *sshenv.Config
	// Log receives the clean-up and connection notes; nil discards.
	Log *slog.Logger
}

// Backend is an environment other than this machine that runs a
// session's commands (a Docker container, an SSH host).
type Backend interface {
	terminal.Environment
	// Name is the backend's config name ("docker", "ssh").
	Name() string
	// Describe says where commands run, for the editor.
	Describe() string
}

// Session is what ForSession needs of a session (agent.Env has it).
type Session interface {
	SessionID() string
	Workspace() *workspace.Workspace
	// TerminalBackend is the session's current choice ("local", …).
	TerminalBackend() string
	// OnClose runs f when the session closes.
	OnClose(f func())
}

// Supported are the terminal backends hermes-acp has.
var Supported = []string{"local", "docker", "ssh"}

// hermesBackends are hermes-agent's terminal backends that hermes-acp does
// not have, with what they are, for the refusal's words.
var hermesBackends = map[string]string{
	"modal":          "hermes-agent's Modal cloud sandbox",
	"managed_modal":  "hermes-agent's managed Modal sandbox",
	"singularity":    "hermes-agent's Singularity/Apptainer container",
	"daytona":        "hermes-agent's Daytona workspace",
	"vercel_sandbox": "hermes-agent's Vercel sandbox",
}

// Unsupported is why commands and scripts are refused when the configured
// terminal.backend is not one hermes-acp has: they must not run on this
// machine instead of where the user asked.
func Unsupported(name string) error {
	what := "not a terminal backend hermes-acp knows"
	if w, ok := hermesBackends[name]; ok {
		what = w + ", which hermes-acp does not support"
	}
	return fmt.Errorf("the terminal backend %q is %s, so commands and scripts are refused rather than run on this machine; "+
		"set terminal.backend to local, docker or ssh in config.yaml (or choose another Terminal option in the session)", name, what)
}

// Set is the agent's terminal backends: the names offered and the shared
// connection of each (the docker daemon). It is safe for concurrent use.
type Set struct {
	names   []string
	def     string
	docker  *docker.Manager // nil when docker is not offered
	ssh     *sshenv.Config  // nil when ssh is not offered
	log     *slog.Logger
	cleanup sync.Once
}

// New offers local, plus docker and ssh when o has their settings, plus
// o.Default when it is a backend hermes-acp does not have (it refuses every
// command, see [Unsupported]).
// Nothing is contacted before a check or a command.
func New(o Options) *Set {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Set{names: []string{"local"}, def: o.Default, log: log}
	if o.Docker != nil {
		b.names = append(b.names, "docker")
		b.docker = docker.NewManager(*o.Docker)
	}
	if o.SSH != nil {
		b.names = append(b.names, "ssh")
		c := *o.SSH
		b.ssh = &c
	}
	switch {
	case b.def == "" || (b.def == "docker" && b.docker == nil) || (b.def == "ssh" && b.ssh == nil):
		b.def = "local"
	case !slices.Contains(Supported, b.def):
		// Offered, so that the session's Terminal option shows it (and
		// the user can switch away from it); it refuses every command.
		b.names = append(b.names, b.def)
	}
	return b
}

// Names are the offered backends, "local" first.
func (b *Set) Names() []string { return b.names }

// Default is a new session's backend.
func (b *Set) Default() string { return b.def }

// Describe says how a backend runs commands: for docker, where the
// daemon is and whether the workspace is mounted or copied.
func (b *Set) Describe(name string) string {
	if name == "docker" && b.docker != nil {
		return b.docker.Mode()
	}
	return ""
}

// Check reports why a backend cannot run commands now.
func (b *Set) Check(ctx context.Context, name string) error {
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
	return Unsupported(name)
}

// Start removes, in the background, the leftover containers of crashed
// agents when docker is offered.
func (b *Set) Start() {
	if b.docker != nil {
		go b.removeLeftovers()
	}
}

// removeLeftovers removes the containers of hermes-acp processes that
// died without removing them (once: at start, or at the first docker
// command if that comes first).
func (b *Set) removeLeftovers() {
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

// ForSession returns the environment of env's session: called before
// every command, it gives the backend the session chose now (nil, nil for
// this machine), the container created on first use and removed, like the
// ssh connection, when the session closes.
func (b *Set) ForSession(env Session) func() (Backend, error) {
	var mu sync.Mutex
	var dockerEnv *docker.Env
	var sshEnv Backend
	return func() (Backend, error) {
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
			return nil, Unsupported(name)
		}
	}
}

// Close removes every container still running (the agent exits).
func (b *Set) Close() {
	if b.docker != nil {
		if err := b.docker.Close(); err != nil {
			b.log.Warn("remove docker containers", "error", err)
		}
	}
}

// Status is `hermes-acp tools`'s line about the terminal backend.
func (b *Set) Status(ctx context.Context) string {
	s := "Terminal backend: " + b.def
	if how := b.Describe(b.def); how != "" {
		s += " [" + how + "]"
	}
	if len(b.names) > 1 {
		s += " (offered: " + strings.Join(b.names, ", ") + ")"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := b.Check(ctx, b.def); err != nil {
		return s + "; unavailable: " + err.Error()
	}
	return s + "; available"
}

// sshBackend is the ssh terminal backend of a session.
type sshBackend struct{ *sshenv.Env }

func (sshBackend) Name() string { return "ssh" }

// newSSHBackend opens (lazily: no connection before the first command)
// the ssh environment of env's session, closed with the session.
func newSSHBackend(cfg sshenv.Config, env Session, log *slog.Logger) (Backend, error) {
	if cfg.Host == "" {
		return nil, errors.New("ssh is not configured: set terminal.ssh.host")
	}
	roots := env.Workspace().Roots()
	if len(roots) == 0 {
		return nil, errors.New("the session has no workspace folder to copy to the ssh host")
	}
	e, err := sshenv.New(cfg, roots[0], sshenv.Options{Log: log})
	if err != nil {
		return nil, err
	}
	env.OnClose(func() { _ = e.Close() })
	log.Info("terminal commands run over ssh", "where", e.Describe())
	return sshBackend{e}, nil
}
