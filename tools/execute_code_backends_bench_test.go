//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal/docker"
	"github.com/hermes-acp/hermes-acp/terminal/docker/dockertest"
	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// Run: go test -run '^$' -bench 'BenchmarkExecuteCode(Socket|Relay|SSH|Docker)50' -benchtime 5x -count 5 ./tools/
// (docs/benchmarks.md, "execute_code on terminal backends"): benchScript
// with calls answered at once, so that what is measured is the transport
// — this machine's socket, the relay on this machine, over SSH (loopback
// sshd) and in a container (a private dockerd) — and the script's start.

// instantCalls makes e's CallTool answer at once.
func instantCalls(e *codeEnv) {
	d := e.sess.Deps
	d.CallTool = func(context.Context, string, string, json.RawMessage) (string, error) {
		return `{"content":"1|x","total_lines":1}`, nil
	}
	e.sess = newSession(d)
}

// withBackend makes b e's terminal backend.
func withBackend(e *codeEnv, b TerminalBackend) {
	d := e.sess.Deps
	d.TerminalBackend = func() (TerminalBackend, error) { return b, nil }
	e.sess = newSession(d)
}

// BenchmarkExecuteCodeRelay50: the relay on this machine (a backend that
// runs helpers here): the relay's own cost over the socket.
func BenchmarkExecuteCodeRelay50(b *testing.B) {
	e, _, _ := newBackendCodeEnv(b, nil, "")
	instantCalls(e)
	runBench(b, e)
}

type benchSSH struct{ *sshenv.Env }

func (benchSSH) Name() string { return "ssh" }

// BenchmarkExecuteCodeSSH50: the script on an SSH host (loopback sshd),
// its calls through the relay over the connection.
func BenchmarkExecuteCodeSSH50(b *testing.B) {
	srv := sshdtest.Start(b)
	u, err := user.Current()
	if err != nil {
		b.Fatal(err)
	}
	e := newCodeEnv(b, codeEnvOptions{})
	env, err := sshenv.New(sshenv.Config{Host: "127.0.0.1", Port: srv.Port, User: u.Username, IdentityFile: srv.UserKey,
		KnownHosts: srv.KnownHosts, SSHConfig: "none", AgentSocket: "none", RemoteDir: filepath.Join(b.TempDir(), "remote")}, e.Root, sshenv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	instantCalls(e)
	withBackend(e, benchSSH{env})
	runBench(b, e)
}

// BenchmarkExecuteCodeDocker50: the script in a container (a private
// dockerd, local socket, the workspace mounted).
func BenchmarkExecuteCodeDocker50(b *testing.B) {
	if os.Getuid() != 0 {
		b.Skip("the private dockerd needs root")
	}
	d, err := dockertest.New()
	if err != nil {
		b.Fatal(err)
	}
	defer d.Stop()
	image, err := d.PythonImageIn(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	e := newCodeEnv(b, codeEnvOptions{})
	m := docker.NewManager(docker.Config{Image: image, Host: d.Host})
	defer m.Close()
	instantCalls(e)
	withBackend(e, m.Session("bench", []string{e.Root}))
	runBench(b, e)
}
