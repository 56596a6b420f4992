package docker_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/docker"
	"github.com/hermes-acp/hermes-acp/terminal/docker/dockertest"
	sshenv "github.com/hermes-acp/hermes-acp/terminal/ssh"
	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// remote daemon (issue 18): the private dockerd reached over tcp (and
// over ssh), as a daemon on another machine is: no bind mount, the
// workspace copied in and back.

func newRemoteManager(t testing.TB, d *dockertest.Daemon) *docker.Manager {
	m := docker.NewManager(docker.Config{Image: dockertest.Image, Host: d.TCP})
	t.Cleanup(func() { m.Close() })
	return m
}

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

func exists(dir, rel string) bool {
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
	return err == nil
}

func TestRemoteDaemonCopiesWorkspaceInAndBack(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	write(t, ws, "in.txt", "from the host\n")
	write(t, ws, "edit.txt", "before\n")
	write(t, ws, "del.txt", "delete me\n")
	write(t, ws, "sub/keep.txt", "kept\n")
	write(t, ws, ".env", "SECRET=hunter2\n")
	write(t, ws, ".gitignore", "build/\n")
	write(t, ws, "build/out.bin", "ignored\n")
	m := newRemoteManager(t, d)
	if !m.Remote() || !strings.Contains(m.Mode(), "workspace copied") {
		t.Fatalf("Mode = %q, want a remote daemon with the workspace copied", m.Mode())
	}
	if err := m.Check(context.Background()); err != nil {
		t.Fatalf("Check of the tcp daemon: %v", err)
	}
	env := m.Session("r1", []string{ws})
	res := run(t, env, ws, "cat in.txt sub/keep.txt; test -e .env && echo ENV-IN-CONTAINER; test -e build/out.bin && echo IGNORED-IN-CONTAINER; "+
		"echo after > edit.txt; mkdir -p sub/new && echo created > sub/new/file.txt; rm del.txt; echo CONTAINER=1 > .env; mkdir -p build && echo built > build/out.bin")
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %q", res.ExitCode, res.Output)
	}
	for _, want := range []string{"from the host", "kept"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output %q lacks %q: the workspace was not copied in", res.Output, want)
		}
	}
	for _, bad := range []string{"ENV-IN-CONTAINER", "IGNORED-IN-CONTAINER"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("output %q: %s (the deny list or .gitignore was not respected)", res.Output, bad)
		}
	}
	if got := read(t, ws, "edit.txt"); got != "after\n" {
		t.Errorf("edit.txt = %q, want the container's edit", got)
	}
	if got := read(t, ws, "sub/new/file.txt"); got != "created\n" {
		t.Errorf("sub/new/file.txt = %q, want the file the container created", got)
	}
	if exists(ws, "del.txt") {
		t.Error("del.txt, deleted in the container, is still in the workspace")
	}
	if got := read(t, ws, ".env"); got != "SECRET=hunter2\n" {
		t.Errorf(".env = %q: the container's .env was copied back", got)
	}
	if got := read(t, ws, "build/out.bin"); got != "ignored\n" {
		t.Errorf("build/out.bin = %q: an ignored file was copied back", got)
	}
	if !strings.Contains(env.Describe(), "workspace copied") || !strings.Contains(env.Describe(), d.TCP) {
		t.Errorf("Describe = %q, want the remote daemon and the copy named", env.Describe())
	}
	cli, _ := d.Client()
	defer cli.Close()
	in, err := cli.ContainerInspect(context.Background(), env.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Container.Mounts) != 0 {
		t.Errorf("the container of a remote daemon has mounts %+v, want none", in.Container.Mounts)
	}

	// Local changes between commands reach the container: an edit, a new
	// file, a deletion.
	write(t, ws, "in.txt", "edited here\n")
	write(t, ws, "here.txt", "new here\n")
	if err := os.Remove(filepath.Join(ws, "sub/keep.txt")); err != nil {
		t.Fatal(err)
	}
	res = run(t, env, ws, "cat in.txt here.txt; test -e sub/keep.txt && echo STALE; ls sub/new")
	for _, want := range []string{"edited here", "new here", "file.txt"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("second command's output %q lacks %q", res.Output, want)
		}
	}
	if strings.Contains(res.Output, "STALE") {
		t.Errorf("a file deleted here is still in the container: %q", res.Output)
	}
	if !exists(ws, "here.txt") || !exists(ws, "in.txt") {
		t.Error("files the second command only read were deleted in the workspace")
	}

	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if !containerGone(t, cli, in.Container.ID) {
		t.Errorf("container %.12s still exists after the session closed", in.Container.ID)
	}
}

func TestRemoteDaemonKeepsFileChangedOnBothSides(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	write(t, ws, "both.txt", "original\n")
	env := newRemoteManager(t, d).Session("r2", []string{ws})
	p, err := env.Start(context.Background(), terminal.Spec{Command: "read x; echo container > both.txt; echo container > only.txt", Dir: ws, Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	// Changed here after the copy in, while the command runs.
	write(t, ws, "both.txt", "changed here meanwhile\n")
	fmt.Fprintln(writer{p}, "go")
	_ = p.CloseStdin()
	out, _ := io.ReadAll(p.Output())
	if ex := p.Wait(); ex.Code != 0 {
		t.Fatalf("exit %+v: %q", ex, out)
	}
	if got := read(t, ws, "both.txt"); got != "changed here meanwhile\n" {
		t.Errorf("both.txt = %q, want the local version kept", got)
	}
	if !strings.Contains(string(out), "kept the local version of both.txt") {
		t.Errorf("output %q does not report the kept file", out)
	}
	if got := read(t, ws, "only.txt"); got != "container\n" {
		t.Errorf("only.txt = %q, want the container's file", got)
	}
}

func TestRemoteDaemonCancelStopsCommand(t *testing.T) {
	testCancel(t, newRemoteManager(t, daemon(t)))
}

func TestRemoteDaemonBackgroundProcessListedAndKilled(t *testing.T) {
	testBackground(t, newRemoteManager(t, daemon(t)))
}

func TestRemoteDaemonBackgroundChangesComeBackWhenItEnds(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	env := newRemoteManager(t, d).Session("r3", []string{ws})
	table := terminal.NewTable(terminal.TableOptions{})
	defer table.Close()
	b, err := table.Start(context.Background(), env, terminal.Spec{Command: "read x; echo from background > bg.txt", Dir: ws, Stdin: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	run(t, env, ws, "true")
	if exists(ws, "bg.txt") {
		t.Fatal("bg.txt exists before the background process wrote it")
	}
	if _, err := fmt.Fprintln(b, "go"); err != nil {
		t.Fatal(err)
	}
	<-b.Done()
	if got := read(t, ws, "bg.txt"); got != "from background\n" {
		t.Errorf("bg.txt = %q after the background process ended, want its write", got)
	}
}

// TestSSHDockerHost reaches the private dockerd's socket through a real
// sshd on loopback: DOCKER_HOST=ssh://user@127.0.0.1:port/path/to/socket.
func TestSSHDockerHost(t *testing.T) {
	d := daemon(t)
	srv := sshdtest.Start(t)
	u, _ := user.Current()
	sock := strings.TrimPrefix(d.Host, "unix://")
	host := fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", u.Username, srv.Port, sock)
	sshCfg := sshenv.Config{IdentityFile: srv.UserKey, KnownHosts: srv.KnownHosts, SSHConfig: "none", AgentSocket: "none"}
	m := docker.NewManager(docker.Config{Image: dockertest.Image, Host: host, SSH: sshCfg})
	defer m.Close()
	if !m.Remote() {
		t.Fatalf("an ssh:// daemon is not remote: %q", m.Mode())
	}
	ws := t.TempDir()
	write(t, ws, "in.txt", "over ssh\n")
	env := m.Session("ssh1", []string{ws})
	res := run(t, env, ws, "cat in.txt; echo back > out.txt")
	if !strings.Contains(res.Output, "over ssh") || res.ExitCode != 0 {
		t.Fatalf("output %q exit %d", res.Output, res.ExitCode)
	}
	if got := read(t, ws, "out.txt"); got != "back\n" {
		t.Errorf("out.txt = %q, want the container's file", got)
	}

	// A host key known_hosts does not have is refused, with its
	// fingerprint.
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sshCfg.KnownHosts = empty
	bad := docker.NewManager(docker.Config{Image: dockertest.Image, Host: host, SSH: sshCfg})
	defer bad.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := bad.Check(ctx)
	var he *sshenv.HostKeyError
	if !errors.As(err, &he) {
		t.Fatalf("Check with an unknown host key = %v, want a host key error", err)
	}
	fp, kerr := exec.Command("ssh-keygen", "-lf", filepath.Join(srv.Dir, "host_key.pub")).Output()
	if kerr != nil {
		t.Fatal(kerr)
	}
	if want := strings.Fields(string(fp))[1]; !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not carry the fingerprint %s", err, want)
	}
	if _, err := bad.Session("ssh2", []string{ws}).Start(ctx, terminal.Spec{Command: "true", Dir: ws}); err == nil {
		t.Error("a command ran on a daemon whose ssh host key is unknown")
	}
}

// TestRemoteDaemonCopyBackPaths: what a cancelled command wrote comes
// back; with two workspace folders (a copy-back exec per folder) and with
// a terminal (PTY) the files come back too.
func TestRemoteDaemonCopyBackPaths(t *testing.T) {
	d := daemon(t)
	m := newRemoteManager(t, d)
	ws, other := t.TempDir(), t.TempDir()
	write(t, other, "there.txt", "second folder\n")

	env := m.Session("r4", []string{ws})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan terminal.Result)
	go func() {
		res, _ := terminal.Run(ctx, env, terminal.Spec{Command: "echo partial > partial.txt; sleep 4400", Dir: ws}, terminal.RunOptions{Timeout: time.Minute})
		done <- res
	}()
	for psCount(t, env, ws, "sleep 4400") == 0 {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
	if got := read(t, ws, "partial.txt"); got != "partial\n" {
		t.Errorf("partial.txt = %q, want what the cancelled command wrote", got)
	}

	res, err := terminal.Run(context.Background(), env, terminal.Spec{Command: "echo in a terminal > tty.txt; tty", Dir: ws, PTY: true}, terminal.RunOptions{Timeout: time.Minute})
	if err != nil || !strings.Contains(res.Output, "/dev/pts/") {
		t.Fatalf("PTY command: %v %q", err, res.Output)
	}
	if got := read(t, ws, "tty.txt"); got != "in a terminal\n" {
		t.Errorf("tty.txt = %q, want the PTY command's file", got)
	}

	two := m.Session("r5", []string{ws, other})
	res = run(t, two, ws, "cat "+other+"/there.txt; echo one > "+ws+"/one.txt; echo two > "+other+"/two.txt; rm "+other+"/there.txt")
	if !strings.Contains(res.Output, "second folder") {
		t.Errorf("output %q: the second folder was not copied in", res.Output)
	}
	if read(t, ws, "one.txt") != "one\n" || read(t, other, "two.txt") != "two\n" || exists(other, "there.txt") {
		t.Error("with two folders, the files written or deleted did not come back to both")
	}
}

// TestRemoteDaemonUnlistableFolderDeletesNothing: when the container's
// copy cannot be listed whole (a folder the command made unreadable),
// nothing is taken as deleted: the files in that folder stay here.
func TestRemoteDaemonUnlistableFolderDeletesNothing(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	write(t, ws, "sub/precious.txt", "keep me\n")
	write(t, ws, "other.txt", "x\n")
	m := docker.NewManager(docker.Config{Image: dockertest.Image, Host: d.TCP, User: "65534:65534"})
	defer m.Close()
	env := m.Session("r6", []string{ws})
	res := run(t, env, ws, "chmod 000 sub && echo new > new.txt && id -u")
	if !strings.Contains(res.Output, "65534") {
		t.Fatalf("the command did not run as 65534: %q", res.Output)
	}
	if got := read(t, ws, "sub/precious.txt"); got != "keep me\n" {
		t.Errorf("sub/precious.txt = %q: a file the container could not list was deleted here", got)
	}
	if got := read(t, ws, "new.txt"); got != "new\n" {
		t.Errorf("new.txt = %q, want the new file copied back", got)
	}
}

// TestRemoteDaemonCopyBackStreams: a command that writes a 1.5 GB file in
// the container of a remote daemon gets it copied back whole, and the copy
// back streams it to disk: the process (the agent) stays under 100 MB of
// resident memory, also when it compares an unchanged copy (touched in the
// container) with the local file.
func TestRemoteDaemonCopyBackStreams(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	write(t, ws, "small.txt", "small\n")
	env := newRemoteManager(t, d).Session("big", []string{ws})
	t.Cleanup(func() { env.Close() })
	const size = 1536 << 20
	resetPeakRSS(t)
	for _, cmd := range []string{
		fmt.Sprintf("dd if=/dev/zero of=big.bin bs=1M count=%d 2>/dev/null && echo END >> big.bin", size>>20),
		"sleep 1; touch big.bin", // copied back, compared, found the same
	} {
		res, err := terminal.Run(context.Background(), env, terminal.Spec{Command: cmd, Dir: ws}, terminal.RunOptions{Timeout: 5 * time.Minute})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run %q: %v, exit %d: %q", cmd, err, res.ExitCode, res.Output)
		}
		if strings.Contains(res.Output, "could not be copied back") {
			t.Fatalf("copy back failed: %q", res.Output)
		}
		peak := peakRSS(t)
		t.Logf("after %q: peak RSS %.1f MiB", cmd, float64(peak)/(1<<20))
		if peak > 100<<20 {
			t.Errorf("after %q the process's peak RSS is %d MiB, want under 100 MB", cmd, peak>>20)
		}
	}
	f, err := os.Open(filepath.Join(ws, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	tail := make([]byte, 4)
	if _, err := f.ReadAt(tail, fi.Size()-4); err != nil || fi.Size() != size+4 || string(tail) != "END\n" {
		t.Errorf("big.bin is %d bytes ending %q, want %d bytes ending END", fi.Size(), tail, size+4)
	}
	if matches, _ := filepath.Glob(filepath.Join(ws, ".hermes-acp-sync-*")); len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// resetPeakRSS starts the process's peak resident set size (VmHWM) again
// from its current size.
func resetPeakRSS(t *testing.T) {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak RSS: %v", err)
	}
}

// peakRSS is the process's peak resident set size (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
