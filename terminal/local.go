package terminal

import (
	"os/exec"
	"time"
)

// DefaultKillGrace is how long a killed command has between SIGTERM and
// SIGKILL.
const DefaultKillGrace = time.Second

// drainDelay is how long the output of an exited command may stay open
// (held by something outside it) before it is closed.
const drainDelay = 2 * time.Second

// Local runs commands on this machine with bash (sh when there is no bash),
// each in its own session and process group, in its session's sandbox
// when it has one. The zero value is ready to use; its fields must not
// change once it is in use.
type Local struct {
	// Shell is the shell's path; "" finds bash, then sh, on PATH.
	Shell string
	// Sandbox, when set, runs every command in the session's sandbox
	// (and editor terminals through its helper, see EditorArgv).
	Sandbox *SandboxSession
	// Environ builds the commands' environment from this process's, the
	// agent's secrets removed (its zero value strips hermes's list).
	Environ Environ
	// KillGrace is the time between SIGTERM and SIGKILL (0: DefaultKillGrace).
	KillGrace time.Duration
}

var _ Environment = (*Local)(nil)

// shell returns the shell to run commands with.
func (l *Local) shell() string {
	if l.Shell != "" {
		return l.Shell
	}
	for _, s := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(s); err == nil {
			return p
		}
	}
	return "/bin/sh"
}

// Argv returns the program and arguments that run command: the shell.
func (l *Local) Argv(command string) []string {
	return []string{l.shell(), "-c", command}
}

// exec is the sandbox's Exec of s (without its standard files).
func (l *Local) exec(s Spec) Exec {
	env := l.Environ.Build(s.Env)
	if s.PTY && !hasEnv(env, "TERM") {
		env = append(env, "TERM=xterm-256color")
	}
	return Exec{Argv: l.Argv(s.Command), Env: env, Dir: s.Dir, PTY: s.PTY, Network: s.Network, Credentials: s.Credentials, KillGrace: l.KillGrace}
}

func cutEnv(kv string) (k, v string, ok bool) {
	for i := 1; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if k, _, _ := cutEnv(kv); k == key {
			return true
		}
	}
	return false
}
