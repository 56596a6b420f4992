package ssh

import (
	"os/user"
	"testing"

	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// testServer is a real sshd on a loopback port (sshdtest), started by the
// test with its own host key, user key and config, stopped at the end.
type testServer struct{ *sshdtest.Server }

func startSSHD(t testing.TB) *testServer { return &testServer{sshdtest.Start(t)} }

// config is a Config that reaches s as the current user.
func (s *testServer) config(remoteDir string) Config {
	u, _ := user.Current()
	return Config{
		Host: "127.0.0.1", Port: s.Port, User: u.Username, IdentityFile: s.UserKey,
		KnownHosts: s.KnownHosts, SSHConfig: "none", AgentSocket: "none", RemoteDir: remoteDir,
	}
}
