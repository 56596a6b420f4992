package docker_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/docker"
	"github.com/hermes-acp/hermes-acp/terminal/docker/dockertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dockertest.Stop()
	os.Exit(code)
}

// daemon starts the private dockerd; a daemon that cannot start fails
// the test with its log.
func daemon(t *testing.T) *dockertest.Daemon {
	t.Helper()
	d, err := dockertest.Start()
	if err != nil {
		t.Fatalf("private dockerd: %v", err)
	}
	return d
}

func newManager(t *testing.T, d *dockertest.Daemon) *docker.Manager { return newManagerB(t, d) }

func newManagerB(t testing.TB, d *dockertest.Daemon) *docker.Manager {
	m := docker.NewManager(docker.Config{Image: dockertest.Image, Host: d.Host})
	t.Cleanup(func() { m.Close() })
	return m
}

func run(t *testing.T, env terminal.Environment, dir, cmd string) terminal.Result {
	t.Helper()
	res, err := terminal.Run(context.Background(), env, terminal.Spec{Command: cmd, Dir: dir}, terminal.RunOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("run %q: %v", cmd, err)
	}
	return res
}

func TestCommandSeesAndEditsWorkspace(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "in.txt"), []byte("from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := newManager(t, d).Session("s1", []string{ws})
	res := run(t, env, ws, "cat in.txt; echo made in the container > out.txt; echo to stderr >&2; exit 3")
	if res.ExitCode != 3 {
		t.Errorf("exit code = %d, want 3 (output %q)", res.ExitCode, res.Output)
	}
	for _, want := range []string{"from the host", "to stderr"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output %q lacks %q", res.Output, want)
		}
	}
	got, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	if err != nil || string(got) != "made in the container\n" {
		t.Fatalf("out.txt in the workspace = %q, %v; want the container's write", got, err)
	}
	fi, _ := os.Stat(filepath.Join(ws, "out.txt"))
	if st, ok := fi.Sys().(interface{ Uid() uint32 }); ok && int(st.Uid()) != os.Getuid() {
		t.Errorf("out.txt owned by %d, want the user's uid %d", st.Uid(), os.Getuid())
	}
	if !strings.Contains(env.Describe(), "docker container") {
		t.Errorf("Describe = %q, want the container named", env.Describe())
	}
}

// psCount counts the container's processes running cmd (not zombies).
func psCount(t *testing.T, env terminal.Environment, dir, needle string) int {
	t.Helper()
	script := `n=0; for d in /proc/[0-9]*; do s=$(cat $d/stat 2>/dev/null) || continue; case "$s" in *") Z "*) continue;; esac; if tr '\0' ' ' < $d/cmdline | grep -q "[` + needle[:1] + `]` + needle[1:] + `"; then n=$((n+1)); fi; done; echo count=$n`
	res := run(t, env, dir, script)
	i := strings.Index(res.Output, "count=")
	if i < 0 {
		t.Fatalf("process count: %q", res.Output)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(res.Output[i+6:]))
	return n
}

func TestCancelStopsCommandInContainer(t *testing.T) {
	testCancel(t, newManager(t, daemon(t)))
}

// testCancel: a cancel stops the command and what it started inside the
// container.
func testCancel(t *testing.T, m *docker.Manager) {
	ws := t.TempDir()
	env := m.Session("s2", []string{ws})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan terminal.Result)
	go func() {
		res, _ := terminal.Run(ctx, env, terminal.Spec{Command: "(sleep 4242 &) ; sleep 4243; echo not reached", Dir: ws},
			terminal.RunOptions{Timeout: time.Minute, Sink: func([]byte) {}})
		done <- res
	}()
	// Wait until both sleeps run in the container.
	go func() {
		for psCount(t, env, ws, "sleep 424") < 2 {
			time.Sleep(50 * time.Millisecond)
		}
		close(started)
	}()
	<-started
	cancel()
	res := <-done
	if strings.Contains(res.Output, "not reached") {
		t.Errorf("the command went on after the cancel: %q", res.Output)
	}
	if n := psCount(t, env, ws, "sleep 424"); n != 0 {
		t.Errorf("%d processes of the cancelled command still run in the container", n)
	}
}

func TestBackgroundProcessListedAndKilled(t *testing.T) {
	testBackground(t, newManager(t, daemon(t)))
}

// testBackground: a background process is listed, and killed in the
// container.
func testBackground(t *testing.T, m *docker.Manager) {
	ws := t.TempDir()
	env := m.Session("s3", []string{ws})
	table := terminal.NewTable(terminal.TableOptions{})
	defer table.Close()
	b, err := table.Start(context.Background(), env, terminal.Spec{Command: "echo ready; sleep 4300", Dir: ws, Stdin: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	list := table.List()
	if len(list) != 1 || list[0].ID != b.ID || list[0].Command != "echo ready; sleep 4300" {
		t.Fatalf("process list = %+v, want the background command", list)
	}
	for psCount(t, env, ws, "sleep 4300") == 0 {
		time.Sleep(50 * time.Millisecond)
	}
	if !table.Get(b.ID).Kill() {
		t.Fatalf("kill %s: not found", b.ID)
	}
	if snap := table.Get(b.ID).Snapshot(); snap.Running || !snap.Killed {
		t.Fatalf("process still running after kill")
	}
	if n := psCount(t, env, ws, "sleep 4300"); n != 0 {
		t.Errorf("%d processes of the killed command left in the container", n)
	}
}

func containerGone(t *testing.T, cli *client.Client, id string) bool {
	_, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "no such container")
}

func TestContainerRemovedWhenSessionCloses(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	m := newManager(t, d)
	env := m.Session("s4", []string{ws})
	run(t, env, ws, "true")
	id := env.ContainerID()
	if id == "" {
		t.Fatal("no container after a command")
	}
	cli, _ := d.Client()
	defer cli.Close()
	in, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Container.Config.Labels[docker.LabelSession] != "s4" || in.Container.Config.Labels[docker.LabelPID] != strconv.Itoa(os.Getpid()) {
		t.Errorf("labels = %v", in.Container.Config.Labels)
	}
	if in.Container.HostConfig.NetworkMode != "none" {
		t.Errorf("network = %q, want none", in.Container.HostConfig.NetworkMode)
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if !containerGone(t, cli, id) {
		t.Errorf("container %.12s still exists after the session closed", id)
	}
	if _, err := env.Start(context.Background(), terminal.Spec{Command: "true", Dir: ws}); err == nil {
		t.Error("a closed session's environment started a command")
	}
}

func TestLeftoverOfDeadAgentRemoved(t *testing.T) {
	d := daemon(t)
	cli, _ := d.Client()
	defer cli.Close()
	host, _ := os.Hostname()
	// A pid that no process has: a finished child's.
	dead := deadPID(t)
	mk := func(pid int) string {
		c, err := cli.ContainerCreate(context.Background(), client.ContainerCreateOptions{
			Config: &container.Config{Image: dockertest.Image, Cmd: []string{"true"},
				Labels: map[string]string{docker.LabelSession: "old", docker.LabelPID: strconv.Itoa(pid), docker.LabelHost: host}},
			HostConfig: &container.HostConfig{NetworkMode: "none"},
		})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	leftover, alive := mk(dead), mk(os.Getpid())
	defer cli.ContainerRemove(context.Background(), alive, client.ContainerRemoveOptions{Force: true})
	n, err := newManager(t, d).RemoveLeftovers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || !containerGone(t, cli, leftover) {
		t.Errorf("removed %d; leftover of the dead agent gone = %v", n, containerGone(t, cli, leftover))
	}
	if containerGone(t, cli, alive) {
		t.Error("the container of a running agent was removed")
	}
}

func deadPID(t *testing.T) int {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

func TestStdinAndUnavailableDaemon(t *testing.T) {
	d := daemon(t)
	ws := t.TempDir()
	env := newManager(t, d).Session("s5", []string{ws})
	p, err := env.Start(context.Background(), terminal.Spec{Command: "read x; echo got $x", Dir: ws, Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(writer{p}, "hello")
	_ = p.CloseStdin()
	out, _ := io.ReadAll(p.Output())
	if ex := p.Wait(); ex.Code != 0 || strings.TrimSpace(string(out)) != "got hello" {
		t.Errorf("stdin round trip: %q, %+v", out, ex)
	}
	bad := docker.NewManager(docker.Config{Image: dockertest.Image, Host: "unix:///nonexistent/docker.sock"})
	defer bad.Close()
	if err := bad.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "/nonexistent/docker.sock") {
		t.Errorf("Check of an absent daemon = %v, want the error naming it", err)
	}
}

type writer struct{ p terminal.Process }

func (w writer) Write(b []byte) (int, error) { return w.p.Write(b) }
