package terminal

import (
	"os"
	"os/exec"
	"sort"
	"time"
)

// DefaultKillGrace is how long a killed command has between SIGTERM and
// SIGKILL.
const DefaultKillGrace = time.Second

// drainDelay is how long the output of an exited command may stay open
// (held by something that left its process group) before it is closed.
const drainDelay = 2 * time.Second

// Local runs commands on this machine with bash (sh when there is no bash),
// each in its own process group. The zero value is ready to use; its
// fields must not change once it is in use.
type Local struct {
	// Shell is the shell's path; "" finds bash, then sh, on PATH.
	Shell string
	// Sandbox, when set, runs every command under it, with Roots (the
	// workspace roots) writable.
	Sandbox *Sandbox
	Roots   []string
	// Env is the base environment ("KEY=value"); nil uses os.Environ().
	Env []string
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

// Argv returns the program and arguments that run command: the shell,
// wrapped in the sandbox helper when the environment has a sandbox. Editor
// terminals run the same argv.
func (l *Local) Argv(command string) []string {
	argv := []string{l.shell(), "-c", command}
	if l.Sandbox != nil {
		return l.Sandbox.Wrap(argv, l.Roots)
	}
	return argv
}

// environ returns the base environment with add applied.
func (l *Local) environ(add map[string]string) []string {
	base := l.Env
	if base == nil {
		base = os.Environ()
	}
	if len(add) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := cutEnv(kv)
		if _, ok := add[k]; !ok {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(add))
	for k := range add {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+add[k])
	}
	return out
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
