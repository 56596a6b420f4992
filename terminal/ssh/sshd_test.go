package ssh

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// testServer is a real sshd on a loopback port (sshdtest), started by
// the test with its own host key, user key and config, stopped at the end.
type testServer struct {
	*sshdtest.Server
	dir        string
	port       int
	userKey    string // the user's private key file
	knownHosts string // a known_hosts file with the host key
}

func startSSHD(t testing.TB) *testServer {
	t.Helper()
	s := sshdtest.Start(t)
	return &testServer{Server: s, dir: s.Dir, port: s.Port, userKey: s.UserKey, knownHosts: s.KnownHosts}
}

func (s *testServer) start(t testing.TB) { s.Restart(t) }
func (s *testServer) stop()              { s.Stop() }
func (s *testServer) addr() string       { return s.Addr() }

// config is a Config that reaches s as the current user.
func (s *testServer) config(remoteDir string) Config {
	u, _ := user.Current()
	return Config{
		Host: "127.0.0.1", Port: s.port, User: u.Username, IdentityFile: s.userKey,
		KnownHosts: s.knownHosts, SSHConfig: "none", AgentSocket: "none", RemoteDir: remoteDir,
	}
}

// dropConnections kills sshd's per-connection processes (the monitor and
// its unprivileged child of every connection): the clients' connections
// drop; the commands they ran are orphaned.
func (s *testServer) dropConnections() {
	parent := map[int]int{}
	comm := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		st := string(data)
		fields := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
		if len(fields) > 1 {
			parent[pid], _ = strconv.Atoi(fields[1])
			comm[pid] = st[strings.IndexByte(st, '(')+1 : strings.LastIndexByte(st, ')')]
		}
	}
	listener := s.Pid()
	for pid, pp := range parent {
		if pp == listener {
			for child, cp := range parent {
				if cp == pid && strings.HasPrefix(comm[child], "sshd") {
					_ = syscall.Kill(child, syscall.SIGKILL)
				}
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func keygen(t testing.TB, file string) { sshdtest.Keygen(t, file) }

// killMarked kills, by pid, the processes with marker in their command
// line (the test's own).
func killMarked(marker string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(cmdline), marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// running reports whether a live (not zombie) process has marker in its
// command line.
func running(marker string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(st)
		if fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]); len(fields) > 0 && fields[0] == "Z" {
			continue
		}
		return true
	}
	return false
}

// gone waits (up to a few seconds, for the kernel to reap) until no live
// process has marker in its command line.
func gone(marker string) bool {
	for range 100 {
		if !running(marker) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
