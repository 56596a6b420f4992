package ssh

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testServer is a real sshd on a loopback port, started by the test with
// its own host key, user key and config, stopped at the end.
type testServer struct {
	dir        string
	port       int
	hostPub    string // the host public key line
	userKey    string // the user's private key file
	knownHosts string // a known_hosts file with the host key
	cmd        *exec.Cmd
	cfgFile    string
}

func startSSHD(t testing.TB) *testServer {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Fatalf("sshd is not installed (Debian: apt-get install openssh-server): %v", err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatalf("sshd needs /run/sshd: %v", err)
	}
	dir := t.TempDir()
	s := &testServer{dir: dir, userKey: filepath.Join(dir, "user_key")}
	keygen(t, filepath.Join(dir, "host_key"))
	keygen(t, s.userKey)
	pub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	s.hostPub = strings.TrimSpace(string(pub))
	upub, err := os.ReadFile(s.userKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), upub, 0o600); err != nil {
		t.Fatal(err)
	}
	s.port = freePort(t)
	s.knownHosts = filepath.Join(dir, "known_hosts")
	// The key's type and blob, without its comment.
	f := strings.Fields(s.hostPub)
	if err := os.WriteFile(s.knownHosts, fmt.Appendf(nil, "[127.0.0.1]:%d %s %s\n", s.port, f[0], f[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cfgFile = filepath.Join(dir, "sshd_config")
	// SHLVL=1 keeps bash from reading the test user's ~/.bashrc (bash
	// reads it for commands run by sshd at shell level 1), which on a
	// developer machine may do anything, slowly.
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
LogLevel FATAL
SetEnv SHLVL=1
`, s.port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"))
	if err := os.WriteFile(s.cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(sshd, "-D", "-e", "-f", s.cfgFile)
	s.start(t)
	t.Cleanup(s.stop)
	return s
}

func (s *testServer) start(t testing.TB) {
	t.Helper()
	s.cmd = exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
	s.cmd.Stderr = os.Stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // gone with the test
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", s.addr())
		if err == nil {
			c.Close()
			return
		}
		if i == 200 {
			t.Fatalf("sshd does not listen on %s: %v", s.addr(), err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (s *testServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
	}
}

func (s *testServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

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
	listener := s.cmd.Process.Pid
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

func keygen(t testing.TB, file string) {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

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
