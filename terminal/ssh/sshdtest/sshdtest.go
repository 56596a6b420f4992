//go:build linux

// Package sshdtest starts a real sshd (Debian's openssh-server) for tests
// on a loopback port, with a generated host key and user key, a
// known_hosts file holding the host key and its own config; it is
// stopped when the test ends.
package sshdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a running sshd on 127.0.0.1.
type Server struct {
	Dir        string // its files
	Port       int
	HostPub    string // the host public key line
	UserKey    string // the user's private key file (authorized)
	KnownHosts string // a known_hosts file with the host key
	CfgFile    string // sshd_config
	cmd        *exec.Cmd
	bin        string
}

// Start starts an sshd; it fails the test when sshd is not installed.
func Start(t testing.TB) *Server {
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
	s := &Server{Dir: dir, UserKey: filepath.Join(dir, "user_key"), bin: sshd}
	Keygen(t, filepath.Join(dir, "host_key"))
	Keygen(t, s.UserKey)
	pub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	s.HostPub = strings.TrimSpace(string(pub))
	upub, err := os.ReadFile(s.UserKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), upub, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Port = FreePort(t)
	s.KnownHosts = filepath.Join(dir, "known_hosts")
	// The key's type and blob, without its comment.
	f := strings.Fields(s.HostPub)
	if err := os.WriteFile(s.KnownHosts, fmt.Appendf(nil, "[127.0.0.1]:%d %s %s\n", s.Port, f[0], f[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	s.CfgFile = filepath.Join(dir, "sshd_config")
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
`, s.Port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"))
	if err := os.WriteFile(s.CfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Restart(t)
	t.Cleanup(s.Stop)
	return s
}

// Restart starts sshd again (after Stop) and waits until it listens.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "-D", "-e", "-f", s.CfgFile)
	s.cmd.Stderr = os.Stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // gone with the test
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", s.Addr())
		if err == nil {
			c.Close()
			return
		}
		if i == 200 {
			t.Fatalf("sshd does not listen on %s: %v", s.Addr(), err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Stop stops sshd (its connections' processes stay until they end).
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
	}
}

// Pid is the listening sshd's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Addr is 127.0.0.1:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// Keygen writes a new ed25519 key pair without passphrase to file and
// file.pub.
func Keygen(t testing.TB, file string) {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
}

// FreePort is a loopback TCP port nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
