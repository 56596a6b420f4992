// Package sshdtest starts a real sshd (Debian's openssh-server) for tests,
// on a loopback port with its own generated host key, user key and config,
// and stops it when the test ends. Commands it runs run on this machine as
// the current user, so tests can check the remote side on disk and in
// /proc.
package sshdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a running sshd on 127.0.0.1.
type Server struct {
	Dir        string // the server's files (keys, config, pid file)
	Port       int
	HostPub    string // the host public key line
	HostPubKey string // the host public key file
	UserKey    string // the user's private key file (no passphrase)
	KnownHosts string // a known_hosts file with the host key
	cmd        *exec.Cmd
	cfgFile    string
}

// Start starts sshd for t, stopped when t ends. It fails t when sshd or
// ssh-keygen is missing.
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
	s := &Server{Dir: dir, UserKey: filepath.Join(dir, "user_key"), HostPubKey: filepath.Join(dir, "host_key.pub")}
	Keygen(t, filepath.Join(dir, "host_key"))
	Keygen(t, s.UserKey)
	pub, err := os.ReadFile(s.HostPubKey)
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
	s.Port = freePort(t)
	s.KnownHosts = filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(s.KnownHosts, []byte(s.KnownHostsLine()+"\n"), 0o600); err != nil {
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
`, s.Port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"))
	if err := os.WriteFile(s.cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(sshd, "-D", "-e", "-f", s.cfgFile)
	s.Restart(t)
	t.Cleanup(s.Stop)
	return s
}

// KnownHostsLine is the known_hosts line of the server's host key.
func (s *Server) KnownHostsLine() string {
	f := strings.Fields(s.HostPub) // the key's type and blob, without its comment
	return fmt.Sprintf("[127.0.0.1]:%d %s %s", s.Port, f[0], f[1])
}

// Restart starts sshd again after [Server.Stop] (Start starts it the
// first time) and waits until it listens.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.cmd = exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
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

// Stop stops the listening sshd (connections it already accepted live on
// in their own processes; see [Server.DropConnections]).
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
	}
}

// PID is the listening sshd's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Addr is host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// DropConnections kills sshd's per-connection processes (the monitor and
// its unprivileged child of every connection): the clients' connections
// drop; the commands they ran are orphaned.
func (s *Server) DropConnections() {
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

// Keygen writes a new ed25519 key pair without a passphrase to file and
// file.pub.
func Keygen(t testing.TB, file string) {
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

// KillMarked kills, by pid, the processes with marker in their command
// line (the test's own).
func KillMarked(marker string) {
	for _, pid := range pidsWith(marker, false) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Running reports whether a live (not zombie) process has marker in its
// command line.
func Running(marker string) bool { return len(pidsWith(marker, true)) > 0 }

// Gone waits (up to a few seconds, for the kernel to reap) until no live
// process has marker in its command line.
func Gone(marker string) bool {
	for range 100 {
		if !Running(marker) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// pidsWith lists the processes with marker in their command line, other
// than this one; live only skips zombies.
func pidsWith(marker string, live bool) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		if live {
			st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			s := string(st)
			if fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]); len(fields) > 0 && fields[0] == "Z" {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}
