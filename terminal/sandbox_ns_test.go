//go:build linux

package terminal

import (
	"errors"
	"fmt"
	"io"
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

// The namespace sandbox tried as a hostile model would: each test runs
// commands through Local in a session's sandbox and checks what they could
// do. TestSandboxAsNobody runs the same tests again as an unprivileged user.

// nsBox is a sandboxed Local with its folders.
type nsBox struct {
	l                     *Local
	sb                    *Sandbox
	root, sibling, home   string
	hermesHome, credsFile string
}

// newNSBox returns a Local in a namespace sandbox (failing the test when
// the sandbox falls back although user namespaces are enabled here), with
// a workspace root, a sibling folder, a home with ~/.ssh/id_ed25519 and a
// HERMES_HOME, all outside the temporary directory. mod changes the
// sandbox before use.
func newNSBox(t *testing.T, mod func(*Sandbox)) *nsBox {
	t.Helper()
	if err := usernsUsable(); err != nil {
		t.Skipf("user namespaces are disabled on this machine: %v", err)
	}
	base := outsideTemp(t)
	b := &nsBox{root: filepath.Join(base, "ws"), sibling: filepath.Join(base, "sibling"), home: filepath.Join(base, "home"),
		hermesHome: filepath.Join(base, "hermes")}
	for _, d := range []string{b.root, b.sibling, filepath.Join(b.home, ".ssh"), b.hermesHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b.credsFile = filepath.Join(b.home, ".ssh", "id_ed25519")
	for p, text := range map[string]string{b.credsFile: "PRIVATE KEY\n", filepath.Join(b.hermesHome, "state.db"): "sessions\n",
		filepath.Join(b.sibling, "readme"): "readable\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.home, "LANG=C.UTF-8", "TMPDIR=" + os.TempDir(),
		"OPENAI_API_KEY=sk-secret", "GH_TOKEN=ghp_secret", "KEEP_ME=1"}
	b.sb = &Sandbox{Exe: exe, Home: b.home, HermesHome: b.hermesHome, Credentials: []string{"~/.ssh", "~/.netrc", "/etc/shadow"}, Getenv: func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}}
	if mod != nil {
		mod(b.sb)
	}
	ss := b.sb.NewSession([]string{b.root})
	t.Cleanup(func() { ss.Close() })
	b.l = &Local{Sandbox: ss, Environ: Environ{Base: env}}
	if c := ss.Confinement(); c.Kind != KindNamespaces && !b.sb.LandlockOnly && b.sb.userns == nil && b.sb.ptraceScope == nil {
		t.Fatalf("the sandbox fell back to %+v although user namespaces are enabled", c)
	}
	return b
}

func (b *nsBox) run(t *testing.T, s Spec) Result {
	t.Helper()
	if s.Dir == "" {
		s.Dir = b.root
	}
	res, err := Run(t.Context(), b.l, s, RunOptions{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("%s: %v", s.Command, err)
	}
	return res
}

func (b *nsBox) sh(t *testing.T, command string) Result {
	t.Helper()
	return b.run(t, Spec{Command: command})
}

// TestSandboxFiles: the world is read-only, metadata included, outside the
// workspace; the workspace, /tmp (private) and /dev/null are writable.
func TestSandboxFiles(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	outside := filepath.Join(b.sibling, "readme")
	before, err := os.Stat(outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"echo x > " + filepath.Join(b.sibling, "new"),
		"chmod 0777 " + outside,
		"chmod -R go+w " + b.sibling,
		"touch -d 2001-01-01 " + outside,
		"ln -s /etc/passwd " + filepath.Join(b.sibling, "link"),
		"mkdir " + filepath.Join(b.home, "made"),
		"rm " + outside,
	} {
		res := b.sh(t, cmd)
		if res.ExitCode == 0 || !strings.Contains(res.Output, "Read-only file system") {
			t.Errorf("%s = %+v, want it refused (read-only file system)", cmd, res)
		}
	}
	after, err := os.Stat(outside)
	if err != nil || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the file outside changed: %v → %v (%v)", before, after, err)
	}
	for _, p := range []string{filepath.Join(b.sibling, "new"), filepath.Join(b.sibling, "link"), filepath.Join(b.home, "made")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	res := b.sh(t, `cat `+outside+` && touch in-ws && chmod 600 in-ws && echo ok > /dev/null && f=$(mktemp) && echo "$f" && echo tmp > /tmp/mine && echo fine`)
	if res.ExitCode != 0 || !strings.HasPrefix(res.Output, "readable\n/tmp/") || !strings.HasSuffix(res.Output, "fine\n") {
		t.Errorf("reads outside and writes inside = %+v", res)
	}
	if _, err := os.Stat("/tmp/mine"); err == nil {
		t.Errorf("the private /tmp is the machine's")
	}
}

// TestSandboxDevices: /dev holds only the harmless devices; no raw disk,
// no device can be made, and /dev itself is read-only.
func TestSandboxDevices(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	res := b.sh(t, "ls /dev | tr '\\n' ' '")
	if got := res.Output; got != "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " {
		t.Errorf("ls /dev = %q, want the minimal /dev", got)
	}
	var disk string
	for _, d := range []string{"/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda"} {
		if _, err := os.Stat(d); err == nil {
			disk = d
			break
		}
	}
	if disk != "" {
		if res := b.sh(t, "echo x > "+disk); res.ExitCode == 0 {
			t.Errorf("writing %s from the sandbox = %+v", disk, res)
		}
	}
	for _, cmd := range []string{"mknod /dev/sdz b 8 0", "mknod sdz b 8 0", "mknod memx c 1 1", "touch /dev/x"} {
		if res := b.sh(t, cmd); res.ExitCode == 0 {
			t.Errorf("%s = %+v, want it refused", cmd, res)
		}
	}
	if _, err := os.Stat(filepath.Join(b.root, "sdz")); err == nil {
		t.Errorf("a block device was made in the workspace")
	}
	if res := b.sh(t, "head -c 3 /dev/zero | od -An -tx1 && echo hi > /dev/null && echo ok"); res.ExitCode != 0 || !strings.Contains(res.Output, "00 00 00") {
		t.Errorf("the harmless devices = %+v", res)
	}
}

// TestSandboxCapabilities: a command has no capability in any set and no
// way to gain one (no_new_privs), whoever the agent runs as, and a
// set-user-id program does not change that.
func TestSandboxCapabilities(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	for _, cmd := range []string{"grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status", "sh -c \"grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status\""} {
		res := b.sh(t, cmd)
		want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n"
		if res.Output != want {
			t.Errorf("%s = %q, want no capabilities and no_new_privs", cmd, res.Output)
		}
	}
	// Root inside cannot undo the view: no mount over the workspace, no
	// unmount of the command's /proc.
	if err := os.WriteFile(filepath.Join(b.root, "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := b.sh(t, "mount -t tmpfs none . 2>/dev/null && echo mounted; umount -l /proc 2>/dev/null && echo unmounted; ls; test -e /proc/self/status && echo proc")
	if res.Output != "marker\nproc\n" {
		t.Errorf("mount and umount in the sandbox = %q, want both refused", res.Output)
	}
}

// TestSandboxHidden: $HERMES_HOME and the credential places are not
// visible unless a command is granted credentials; the agent's secrets
// are not in the environment.
func TestSandboxHidden(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	res := b.sh(t, "ls -A "+b.hermesHome+"; cat "+b.credsFile+"; ls -A "+filepath.Dir(b.credsFile)+"; echo end")
	if strings.Contains(res.Output, "state.db") || strings.Contains(res.Output, "PRIVATE KEY") || strings.Contains(res.Output, "id_ed25519\n") {
		t.Errorf("hidden places seen: %q", res.Output)
	}
	res = b.run(t, Spec{Command: "cat " + b.credsFile, Credentials: true})
	if res.Output != "PRIVATE KEY\n" {
		t.Errorf("with credentials granted: %+v, want the key", res)
	}
	if res := b.sh(t, "ls -A "+b.hermesHome); res.Output != "" {
		t.Errorf("HERMES_HOME after a granted command: %q", res.Output)
	}
	res = b.sh(t, "env")
	if strings.Contains(res.Output, "sk-secret") || strings.Contains(res.Output, "ghp_secret") || !strings.Contains(res.Output, "KEEP_ME=1") {
		t.Errorf("environment = %q, want the secrets removed and the rest kept", res.Output)
	}
}

// TestSandboxProcesses: a command is PID 1 of its own namespace, sees only
// its own processes, cannot signal the agent, and nothing it started
// (setsid, double fork) outlives it.
func TestSandboxProcesses(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	marker := "hermes-survivor-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	script := filepath.Join(b.root, marker)
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 1000\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := b.sh(t, fmt.Sprintf(`echo $$; ls /proc | grep -c '^[0-9]'; kill -0 %d 2>&1; kill -9 %d 2>&1; setsid %s & (%s &) ; echo started`,
		os.Getpid(), os.Getpid(), script, script))
	if !strings.HasPrefix(res.Output, "1\n") || !strings.Contains(res.Output, "No such process") || !strings.HasSuffix(res.Output, "started\n") {
		t.Errorf("processes = %q, want PID 1, the agent out of reach", res.Output)
	}
	if left := processesWith(t, marker); len(left) > 0 {
		t.Errorf("processes %v outlived their command", left)
	}
}

// processesWith lists the live processes whose command line holds s.
func processesWith(t *testing.T, s string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(cmdline), s) && !strings.Contains(string(stat), ") Z ") {
			out = append(out, pid)
		}
	}
	return out
}

// TestSandboxNetwork: without the network a command reaches neither a
// loopback listener of the machine nor anything else, over TCP or UDP;
// granted, it reaches the listener. Two commands of a session meet on the
// session's own loopback.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "hello from outside\n")
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	got := make(chan string, 4)
	go func() {
		buf := make([]byte, 100)
		for {
			n, _, err := udp.ReadFrom(buf)
			if err != nil {
				return
			}
			got <- string(buf[:n])
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port)
	if res := b.sh(t, connect); res.ExitCode == 0 || strings.Contains(res.Output, "hello") {
		t.Errorf("TCP without network = %+v, want refused", res)
	}
	b.sh(t, fmt.Sprintf("echo datagram > /dev/udp/127.0.0.1/%d", udp.LocalAddr().(*net.UDPAddr).Port))
	if res := b.run(t, Spec{Command: connect, Network: true}); res.ExitCode != 0 || res.Output != "hello from outside\n" {
		t.Errorf("TCP with network = %+v, want the listener's greeting", res)
	}
	b.run(t, Spec{Command: fmt.Sprintf("echo granted > /dev/udp/127.0.0.1/%d", udp.LocalAddr().(*net.UDPAddr).Port), Network: true})
	select {
	case d := <-got:
		if d != "granted\n" {
			t.Errorf("a datagram without network arrived: %q", d)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the granted datagram did not arrive")
	}

	// A server in one command, a client in another: the session's
	// loopback. python3 -m http.server needs Python; bash's /dev/tcp is the
	// client, a tiny bash loop with a FIFO the server.
	if _, err := exec.LookPath("python3"); err == nil {
		srv, err := b.l.Start(t.Context(), Spec{Command: "exec python3 -m http.server 18777 --bind 127.0.0.1", Dir: b.root})
		if err != nil {
			t.Fatal(err)
		}
		go io.Copy(io.Discard, srv.Output())
		defer func() { srv.Kill(); srv.Wait() }()
		res := b.sh(t, `for i in $(seq 1 100); do c=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18777/); [ "$c" = 200 ] && { echo $c; exit 0; }; sleep 0.1; done; exit 1`)
		if res.Output != "200\n" {
			t.Errorf("the session's server from another command = %+v, want 200", res)
		}
	}
}

// TestSandboxAbstractSocket: a command granted the network (in the
// machine's network namespace) cannot connect to an abstract UNIX socket
// of the agent (Landlock's scoping).
func TestSandboxAbstractSocket(t *testing.T) {
	t.Parallel()
	if LandlockABI() < 6 {
		t.Skip("Landlock before ABI 6 cannot scope abstract sockets")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to connect with")
	}
	b := newNSBox(t, nil)
	name := fmt.Sprintf("hermes-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "agent secrets\n")
			c.Close()
		}
	}()
	py := fmt.Sprintf(`python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0%s"); print(s.recv(100))'`, name)
	if res := b.run(t, Spec{Command: py, Network: true}); res.ExitCode == 0 || strings.Contains(res.Output, "agent secrets") {
		t.Errorf("abstract socket from the sandbox = %+v, want refused", res)
	}
}

// TestSandboxLimits: a process limit stops a fork bomb; a file size limit
// stops a runaway write.
func TestSandboxLimits(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, func(s *Sandbox) { s.Limits = Limits{Processes: 400, FileSize: 1 << 20} })
	// dash gives up at the first failed fork (bash retries for seconds).
	res := b.sh(t, `sh -c 'n=0; while [ $n -lt 1000 ]; do sleep 30 & n=$((n+1)); echo $n > count; done'`)
	data, _ := os.ReadFile(filepath.Join(b.root, "count"))
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if res.ExitCode == 0 || !strings.Contains(res.Output, "fork") || n == 0 || n >= 400 {
		t.Errorf("fork loop = %+v after %d processes, want it stopped below the 400 allowed", res, n)
	}
	res = b.sh(t, "head -c 2000000 /dev/zero > big; ls -l big | awk '{print $5}'")
	if !strings.Contains(res.Output, "1048576") {
		t.Errorf("2 MB write under a 1 MiB limit = %+v, want it cut at 1 MiB", res)
	}
}

// TestSandboxToolchains: the default limits and the view do not break the
// programs commands run most: node, and a headless Chromium rendering a
// page. Chromium runs with --no-sandbox: its own sandbox needs to write
// the uid_map of a user namespace of its own, which Landlock refuses in
// ours (docs/tools.md says so), and root needs the flag anyway.
func TestSandboxToolchains(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	if _, err := exec.LookPath("node"); err == nil {
		if res := b.sh(t, `node -e 'require("fs").writeFileSync("n.txt", "node-ok"); console.log(require("fs").readFileSync("n.txt", "utf8"))'`); res.Output != "node-ok\n" {
			t.Errorf("node in the sandbox = %+v", res)
		}
	}
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		return
	}
	flags := "--headless=new --disable-gpu --no-sandbox --user-data-dir=$PWD/.chrome"
	res, err := Run(t.Context(), b.l, Spec{Command: chromium + " " + flags + " --dump-dom 'data:text/html,<p>rendered-in-the-sandbox</p>' 2>&1", Dir: b.root},
		RunOptions{Timeout: 2 * time.Minute})
	if err != nil || !strings.Contains(res.Output, "<p>rendered-in-the-sandbox</p>") {
		t.Errorf("chromium in the sandbox = %+v (%v)", res, err)
	}
}

// TestSandboxKill: killing a command ends everything it started, within
// the grace, whatever it does with SIGTERM.
func TestSandboxKill(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	marker := "hermes-kill-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	script := filepath.Join(b.root, marker)
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntrap '' TERM\nsleep 1000\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b.l.KillGrace = 200 * time.Millisecond
	p, err := b.l.Start(t.Context(), Spec{Command: "setsid " + script + " & " + script + "; wait", Dir: b.root})
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, p.Output())
	for i := 0; i < 100 && len(processesWith(t, marker)) < 2; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(processesWith(t, marker)); n < 2 {
		t.Fatalf("%d processes started, want 2", n)
	}
	if p.PID() <= 1 {
		t.Errorf("PID() = %d, want the command's process id here", p.PID())
	}
	p.Kill()
	st := p.Wait()
	if st.Signal == "" {
		t.Errorf("exit after kill = %+v, want a signal", st)
	}
	if left := processesWith(t, marker); len(left) > 0 {
		t.Errorf("processes %v survived the kill", left)
	}
}

// TestSandboxPTY: a PTY command has the session's terminal as its
// controlling terminal.
func TestSandboxPTY(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	res := b.run(t, Spec{Command: "tty; test -t 0 && echo interactive", PTY: true})
	if !strings.Contains(res.Output, "/dev/pts/") || !strings.Contains(res.Output, "interactive") {
		t.Errorf("PTY command = %+v", res)
	}
}

// TestSandboxFallback: where user namespaces do not work, commands run
// under Landlock alone, which the session reports, once; TCP needs the
// network grant there too.
func TestSandboxFallback(t *testing.T) {
	t.Parallel()
	if LandlockABI() < 4 {
		t.Skip("this kernel's Landlock cannot refuse TCP")
	}
	b := newNSBox(t, func(s *Sandbox) { s.userns = func() error { return errors.New("forced by the test") } })
	ss := b.l.Sandbox
	c := ss.Confinement()
	if c.Kind != KindLandlock || !strings.Contains(c.Reason, "forced by the test") || len(c.Gaps) == 0 {
		t.Fatalf("Confinement = %+v, want the Landlock fallback with its reason", c)
	}
	if n := ss.Note(); !strings.Contains(n, "weaker sandbox (landlock)") || !strings.Contains(n, "forced by the test") {
		t.Errorf("first Note = %q, want the fallback explained", n)
	}
	if n := ss.Note(); n != "" {
		t.Errorf("second Note = %q, want it said once", n)
	}
	if res := b.sh(t, "touch "+filepath.Join(b.sibling, "x")); res.ExitCode == 0 {
		t.Errorf("write outside under Landlock = %+v", res)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "hi\n")
			c.Close()
		}
	}()
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", ln.Addr().(*net.TCPAddr).Port)
	if res := b.sh(t, connect); res.ExitCode == 0 {
		t.Errorf("TCP without network under Landlock = %+v, want refused", res)
	}
	if res := b.run(t, Spec{Command: connect, Network: true}); res.Output != "hi\n" {
		t.Errorf("TCP with network under Landlock = %+v", res)
	}
	if LandlockABI() >= 6 {
		// A process of the agent's (signal 0 is not a signal: Landlock lets
		// it through, so a real one is sent).
		victim := exec.Command("sleep", "60")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		defer victim.Process.Kill()
		res := b.sh(t, fmt.Sprintf("kill -KILL %d", victim.Process.Pid))
		if res.ExitCode == 0 || !strings.Contains(res.Output, "Operation not permitted") {
			t.Errorf("SIGKILL to a process of the agent under Landlock = %+v, want refused", res)
		}
		if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("the agent's process died: %v", err)
		}
	}
}

// TestSandboxFallbackNoPtrace: where Yama forbids ptrace
// (kernel.yama.ptrace_scope 3, forced here), commands cannot be stopped at
// their exec, which the namespace sandbox needs: they run under Landlock
// alone, the reason and the late limits are said, and the limits still
// apply.
func TestSandboxFallbackNoPtrace(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, func(s *Sandbox) {
		s.ptraceScope = func() int { return 3 }
		s.Limits = Limits{FileSize: 1 << 20}
	})
	c := b.l.Sandbox.Confinement()
	if c.Kind != KindLandlock || !strings.Contains(c.Reason, "kernel.yama.ptrace_scope is 3") ||
		!strings.Contains(strings.Join(c.Gaps, "; "), "before its resource limits are set") {
		t.Fatalf("Confinement = %+v, want the Landlock fallback naming ptrace_scope and the late limits", c)
	}
	if res := b.sh(t, "touch "+filepath.Join(b.sibling, "x")); res.ExitCode == 0 {
		t.Errorf("write outside = %+v, want it refused", res)
	}
	// The limit is set just after the start: ask once it surely is.
	if res := b.sh(t, "sleep 0.5; ulimit -f"); res.Output != "1024\n" {
		t.Errorf("ulimit -f = %+v, want 1024 (1 MiB)", res)
	}
}

// TestSandboxAsNobody runs the sandbox tests again as an unprivileged user
// (65534) in a copy of the test binary that user can run.
func TestSandboxAsNobody(t *testing.T) {
	if os.Getenv("HERMES_SANDBOX_NOBODY") != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Getuid() != 0 {
		t.Skip("switching users needs root; this run is already unprivileged")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/var/tmp", "hermes-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "terminal.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	home := filepath.Join(dir, "home")
	for _, d := range []string{tmp, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run", "^TestSandbox(Files|Devices|Capabilities|Hidden|Processes|Network|Limits|Toolchains|Kill|PTY|Fallback|FallbackNoPtrace)$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home,
		"TMPDIR=" + tmp, "HERMES_SANDBOX_NOBODY=1", "LANG=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the sandbox tests as user 65534: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestSandboxFiles") || strings.Contains(string(out), "--- SKIP") {
		t.Errorf("as user 65534, not every test ran:\n%s", out)
	}
	t.Logf("%s", out)
}
