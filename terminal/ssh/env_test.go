package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newEnv starts sshd and returns an Env on a fresh workspace and remote
// folder.
func newEnv(t *testing.T, files map[string]string) (*Env, *testServer, string, string) {
	t.Helper()
	srv := startSSHD(t)
	ws := t.TempDir()
	remote := filepath.Join(t.TempDir(), "remote")
	writeFiles(t, ws, files)
	e, err := New(srv.config(remote), ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, srv, ws, remote
}

func run(t *testing.T, e *Env, dir, command string) terminal.Result {
	t.Helper()
	res, err := terminal.Run(context.Background(), e, terminal.Spec{Command: command, Dir: dir}, terminal.RunOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("run %q: %v", command, err)
	}
	return res
}

func TestCommandSeesAndEditsTheWorkspaceWithoutSecrets(t *testing.T) {
	e, _, ws, remote := newEnv(t, map[string]string{
		"a.txt":           "hello\n",
		"sub/b.txt":       "b\n",
		".env":            "API_KEY=secret\n",
		".env.local":      "X=1\n",
		"keys/id_rsa":     "PRIVATE\n",
		"keys/id_rsa.pub": "public\n",
		".gitignore":      "build/\n*.log\n",
		"build/out.bin":   "big\n",
		"debug.log":       "log\n",
	})
	res := run(t, e, filepath.Join(ws, "sub"), `pwd; cat b.txt ../a.txt; echo changed > ../a.txt; mkdir -p ../new && echo fresh > ../new/c.txt; echo leaked > ../.env.production; echo x > ../trace.log`)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Output)
	}
	if !strings.Contains(res.Output, remote+"/sub\n") || !strings.Contains(res.Output, "b\nhello\n") {
		t.Fatalf("the command did not run in the remote copy of sub/ with the files: %q", res.Output)
	}
	// What the command changed is back.
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "changed\n" {
		t.Errorf("a.txt after the command = %q, want the remote change", got)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "new", "c.txt")); string(got) != "fresh\n" {
		t.Errorf("new/c.txt after the command = %q, want the file created remotely", got)
	}
	// Secrets never went there; ignored files neither; nothing secret or
	// ignored came back.
	for _, name := range []string{".env", ".env.local", "keys/id_rsa", "build/out.bin", "debug.log"} {
		if _, err := os.Stat(filepath.Join(remote, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was copied to the remote (stat: %v)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(remote, "keys/id_rsa.pub")); err != nil {
		t.Errorf("the public key was not copied: %v", err)
	}
	for _, name := range []string{".env.production", "trace.log"} {
		if _, err := os.Stat(filepath.Join(ws, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was brought back from the remote (stat: %v)", name, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(ws, ".env")); string(got) != "API_KEY=secret\n" {
		t.Errorf(".env changed: %q", got)
	}

	// Incremental: a local edit and a local delete reach the remote.
	writeFiles(t, ws, map[string]string{"sub/b.txt": "b2\n"})
	if err := os.Remove(filepath.Join(ws, "new", "c.txt")); err != nil {
		t.Fatal(err)
	}
	res = run(t, e, ws, `cat sub/b.txt; test -e new/c.txt && echo still-there || echo removed`)
	if res.Output != "b2\nremoved\n" {
		t.Errorf("second command saw %q, want the edited file and the deletion", res.Output)
	}
}

func TestExitStatusEnvAndStdin(t *testing.T) {
	e, _, ws, _ := newEnv(t, map[string]string{"f": "x"})
	res, err := terminal.Run(context.Background(), e, terminal.Spec{Command: `echo "$GREETING"; echo err >&2; exit 3`, Dir: ws, Env: map[string]string{"GREETING": "it's me"}}, terminal.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Output != "it's me\nerr\n" {
		t.Fatalf("got exit %d output %q, want 3 and both streams", res.ExitCode, res.Output)
	}
	p, err := e.Start(context.Background(), terminal.Spec{Command: "tr a-z A-Z", Dir: ws, Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("remote\n")); err != nil {
		t.Fatal(err)
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	out := make(chan string)
	go func() {
		var b strings.Builder
		buf := make([]byte, 1024)
		for {
			n, err := p.Output().Read(buf)
			b.Write(buf[:n])
			if err != nil {
				out <- b.String()
				return
			}
		}
	}()
	if got := <-out; got != "REMOTE\n" {
		t.Errorf("stdin round trip = %q", got)
	}
	if ex := p.Wait(); ex.Code != 0 {
		t.Errorf("exit %+v", ex)
	}
}

func TestCancelKillsTheRemoteProcessGroup(t *testing.T) {
	e, _, ws, _ := newEnv(t, map[string]string{"f": "x"})
	marker := fmt.Sprintf("4242%d.5", time.Now().UnixNano()%100000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan terminal.Result)
	go func() {
		res, err := terminal.Run(ctx, e, terminal.Spec{Command: "sleep " + marker + " & sleep " + marker + "; echo never", Dir: ws}, terminal.RunOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for !sshdtest.Running("sleep\x00" + marker) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	res := <-done
	if !res.Cancelled || res.ExitCode != terminal.ExitInterrupted || strings.Contains(res.Output, "never") {
		t.Fatalf("cancelled command: %+v", res)
	}
	if !sshdtest.Gone(marker) {
		t.Fatalf("a process of the cancelled command (sleep %s) is still running", marker)
	}
}

func TestBackgroundProcessListedAndKilled(t *testing.T) {
	e, _, ws, _ := newEnv(t, map[string]string{"f": "x"})
	marker := fmt.Sprintf("4343%d.5", time.Now().UnixNano()%100000)
	tab := terminal.NewTable(terminal.TableOptions{})
	defer tab.Close()
	b, err := tab.Start(context.Background(), e, terminal.Spec{Command: "echo started; sleep " + marker, Dir: ws, Stdin: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	for !sshdtest.Running("sleep\x00" + marker) {
		time.Sleep(20 * time.Millisecond)
	}
	list := tab.List()
	if len(list) != 1 || !list[0].Running || list[0].PID != b.PID || b.PID <= 1 {
		t.Fatalf("table lists %+v", list)
	}
	if !b.Kill() {
		t.Fatal("Kill reported nothing to kill")
	}
	<-b.Done()
	snap := b.Snapshot()
	if snap.Running || !snap.Killed || !strings.Contains(snap.Output, "started") {
		t.Errorf("after kill: %+v", snap)
	}
	if snap.Exit.Code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit = %+v, want terminated (143)", snap.Exit)
	}
	if !sshdtest.Gone(marker) {
		t.Fatalf("the killed background process (sleep %s) is still running", marker)
	}
}

func TestUnknownHostKeyIsRefusedWithItsFingerprint(t *testing.T) {
	srv := startSSHD(t)
	ws := t.TempDir()
	cfg := srv.config(filepath.Join(t.TempDir(), "remote"))
	cfg.KnownHosts = filepath.Join(t.TempDir(), "known_hosts") // missing: nothing is known
	e, err := New(cfg, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Start(context.Background(), terminal.Spec{Command: "true", Dir: ws})
	var he *HostKeyError
	if !errors.As(err, &he) || he.Changed {
		t.Fatalf("Start with an unknown host key: %v, want a refused unknown key", err)
	}
	out, kerr := exec.Command("ssh-keygen", "-lf", filepath.Join(srv.Dir, "host_key.pub")).Output()
	if kerr != nil {
		t.Fatal(kerr)
	}
	fp := strings.Fields(string(out))[1]
	if he.Fingerprint != fp || !strings.Contains(err.Error(), fp) {
		t.Errorf("refusal names %q (%v), want the host key's fingerprint %s", he.Fingerprint, err, fp)
	}
	// The line offered, once added, makes the host known.
	if err := os.WriteFile(cfg.KnownHosts, []byte(he.Line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2, err := New(cfg, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if res := run(t, e2, ws, "echo ok"); res.Output != "ok\n" {
		t.Errorf("after adding the offered line: %q", res.Output)
	}

	// A changed key is refused too, and says so.
	sshdtest.Keygen(t, filepath.Join(t.TempDir(), "other"))
	other := filepath.Join(t.TempDir(), "other2")
	sshdtest.Keygen(t, other)
	pub, _ := os.ReadFile(other + ".pub")
	f := strings.Fields(string(pub))
	if err := os.WriteFile(cfg.KnownHosts, fmt.Appendf(nil, "[127.0.0.1]:%d %s %s\n", srv.Port, f[0], f[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	e3, err := New(cfg, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e3.Close()
	_, err = e3.Start(context.Background(), terminal.Spec{Command: "true", Dir: ws})
	if !errors.As(err, &he) || !he.Changed || !strings.Contains(err.Error(), "CHANGED") {
		t.Fatalf("Start with a changed host key: %v, want a loud refusal", err)
	}
}

func TestDroppedConnectionIsReportedAndTheNextCommandReconnects(t *testing.T) {
	e, srv, ws, _ := newEnv(t, map[string]string{"f": "x"})
	if res := run(t, e, ws, "echo one"); res.Output != "one\n" {
		t.Fatalf("first command: %q", res.Output)
	}
	// A command running when the connection drops.
	marker := fmt.Sprintf("4444%d.5", time.Now().UnixNano()%100000)
	done := make(chan terminal.Result)
	go func() { done <- run(t, e, ws, "sleep "+marker) }()
	for !sshdtest.Running("sleep\x00" + marker) {
		time.Sleep(20 * time.Millisecond)
	}
	srv.DropConnections()
	res := <-done
	if res.ExitCode != 255 || !strings.Contains(res.Output, "connection to "+srv.Addr()+" was lost") {
		t.Fatalf("command whose connection dropped: exit %d, %q", res.ExitCode, res.Output)
	}
	defer sshdtest.KillMarked(marker) // should the next command not
	res = run(t, e, ws, "echo two")
	if !strings.HasSuffix(res.Output, "two\n") || res.ExitCode != 0 {
		t.Fatalf("the next command did not reconnect: exit %d, %q", res.ExitCode, res.Output)
	}
	// The command the lost connection left running was killed, and said.
	if !strings.Contains(res.Output, "killed the command(s) left running by the lost connection") {
		t.Errorf("the next command's output %q does not say the lost command was killed", res.Output)
	}
	if !sshdtest.Gone(marker) {
		t.Errorf("the command of the lost connection (sleep %s) still runs after the next command", marker)
	}

	// The connection dropped between commands, and sshd restarted; the
	// workspace changed meanwhile (the next command copies it first).
	srv.DropConnections()
	srv.Stop()
	srv.Restart(t)
	writeFiles(t, ws, map[string]string{"f": "changed"})
	res = run(t, e, ws, "echo three")
	if !strings.Contains(res.Output, "was lost") || !strings.HasSuffix(res.Output, "three\n") {
		t.Fatalf("after an sshd restart: %q, want the lost connection reported and the command run", res.Output)
	}
}

func TestDenied(t *testing.T) {
	for rel, want := range map[string]bool{
		".env": true, "app/.env.production": true, ".envrc": true, "id_ed25519": true, "x/id_rsa.pub": false,
		"certs/server.pem": true, "tls.key": true, ".ssh/config": true, ".git/config": true, ".aws/credentials": true,
		"main.go": false, "environment.txt": false, "docs/keys.md": false, "Env.go": false,
	} {
		if got := Denied(rel); got != want {
			t.Errorf("Denied(%q) = %v, want %v", rel, got, want)
		}
	}
}

func TestResolveAppliesSSHConfigAliases(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".ssh/config": `# comment
Host other
  HostName wrong.example
Host build box !nope
  HostName 127.0.0.5
  Port=2222
  User builder
  IdentityFile ~/.ssh/build_key
Host *
  User fallback
  Port 22
`})
	r, err := resolve(Config{Host: "box"}, home, "/w/proj", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if r.hostName != "127.0.0.5" || r.port != 2222 || r.user != "builder" || len(r.identities) != 1 || r.identities[0] != filepath.Join(home, ".ssh/build_key") {
		t.Errorf("resolved %+v", r)
	}
	if r.remoteDir != "~/.hermes-acp/workspaces/proj" || r.knownHosts != filepath.Join(home, ".ssh/known_hosts") {
		t.Errorf("defaults: remote %q known_hosts %q", r.remoteDir, r.knownHosts)
	}
	r, err = resolve(Config{Host: "plain", Port: 2200, RemoteDir: "/srv/x/"}, home, "/w/proj", func(string) string { return "" })
	if err != nil || r.hostName != "plain" || r.port != 2200 || r.user != "fallback" || r.remoteDir != "/srv/x" {
		t.Errorf("resolved %+v, %v", r, err)
	}
	if _, err := resolve(Config{Host: "h", RemoteDir: "relative"}, home, "/w", func(string) string { return "" }); err == nil {
		t.Error("a relative remote_dir was accepted")
	}
}

// TestRemoteDeletionIsBroughtBack: a file the command deletes on the ssh
// host is deleted in the workspace too (as it would be had the command run
// here), unless it changed here meanwhile; files never copied (.env) are
// untouched.
func TestRemoteDeletionIsBroughtBack(t *testing.T) {
	e, _, ws, remote := newEnv(t, map[string]string{
		"keep.txt": "k\n", "old.txt": "o\n", "dir/x.txt": "x\n", "edited.txt": "e\n", ".env": "S=1\n",
	})
	res := run(t, e, ws, "rm old.txt dir/x.txt .env 2>/dev/null; ls -A")
	if res.ExitCode != 0 || strings.Contains(res.Output, "old.txt") {
		t.Fatalf("exit %d: %q", res.ExitCode, res.Output)
	}
	for _, name := range []string{"old.txt", "dir/x.txt"} {
		if _, err := os.Stat(filepath.Join(ws, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, deleted by the command, is still in the workspace (stat: %v)", name, err)
		}
	}
	for name, want := range map[string]string{"keep.txt": "k\n", ".env": "S=1\n", "edited.txt": "e\n"} {
		if got, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(got) != want {
			t.Errorf("%s after the command = %q, %v; want it untouched", name, got, err)
		}
	}
	// Deleted there while it was edited here: the local edit is kept, said,
	// and copied again before the next command.
	p, err := e.Start(context.Background(), terminal.Spec{Command: "rm edited.txt; read x", Dir: ws, Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(remote, "edited.txt")); errors.Is(err, os.ErrNotExist) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	writeFiles(t, ws, map[string]string{"edited.txt": "edited here, meanwhile\n"})
	if _, err := p.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Output())
	if ex := p.Wait(); ex.Code != 0 {
		t.Fatalf("exit %+v: %s", ex, out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "edited.txt")); string(got) != "edited here, meanwhile\n" {
		t.Errorf("edited.txt = %q, want the local edit kept", got)
	}
	if !strings.Contains(string(out), "kept the local version of edited.txt") {
		t.Errorf("output %q does not say the local version was kept", out)
	}
	if res := run(t, e, ws, "cat edited.txt"); res.Output != "edited here, meanwhile\n" {
		t.Errorf("the next command saw %q, want the local edit copied again", res.Output)
	}
}

// TestCloseKillsRunningCommands: closing the environment (the session
// ends, the agent exits) kills the commands still running on the remote,
// whatever closes first: the environment or the process table.
func TestCloseKillsRunningCommands(t *testing.T) {
	e, _, ws, _ := newEnv(t, map[string]string{"f": "x"})
	marker := fmt.Sprintf("4545%d.5", time.Now().UnixNano()%100000)
	tab := terminal.NewTable(terminal.TableOptions{})
	if _, err := tab.Start(context.Background(), e, terminal.Spec{Command: "sleep " + marker + " & sleep " + marker, Dir: ws}, false); err != nil {
		t.Fatal(err)
	}
	for !sshdtest.Running("sleep\x00" + marker) {
		time.Sleep(20 * time.Millisecond)
	}
	defer sshdtest.KillMarked(marker) // should Close not
	if err := e.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	tab.Close()
	if !sshdtest.Gone(marker) {
		t.Fatalf("a command running when the environment closed (sleep %s) still runs", marker)
	}
}
