//go:build unix

package terminal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary be the sandbox helper: Sandbox.Exe is
// os.Args[0] in the sandbox tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SandboxCommand {
		os.Exit(SandboxMain(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}

// groupMembers returns the live (not zombie) processes whose process
// group is pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	m, err := GroupMembers(pgid)
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return m
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// recordingEnv wraps Local and remembers the process it started.
type recordingEnv struct {
	Local
	mu   sync.Mutex
	pids []int
}

func (e *recordingEnv) Start(ctx context.Context, s Spec) (Process, error) {
	p, err := e.Local.Start(ctx, s)
	if err == nil {
		e.mu.Lock()
		e.pids = append(e.pids, p.PID())
		e.mu.Unlock()
	}
	return p, err
}

func TestRunOutputAndExitCode(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), &Local{}, Spec{Command: "echo out; echo err >&2; exit 3", Dir: t.TempDir()}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "out\nerr\n" || res.ExitCode != 3 || res.TimedOut || res.Cancelled {
		t.Errorf("Run = %+v, want output \"out\\nerr\\n\" and exit 3", res)
	}
}

func TestRunDirAndEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res, err := Run(t.Context(), &Local{}, Spec{Command: `pwd; echo "$HERMES_TEST_X"`, Dir: dir, Env: map[string]string{"HERMES_TEST_X": "x1"}}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := strings.Fields(res.Output); len(got) != 2 || (got[0] != dir && got[0] != real) || got[1] != "x1" {
		t.Errorf("output = %q, want the dir and x1", res.Output)
	}
}

// TestRunTimeoutKillsGroup: a command that leaves a child behind and waits
// is killed at the timeout, child included.
func TestRunTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	env := &recordingEnv{}
	res, err := Run(t.Context(), env, Spec{Command: "sleep 100 & echo child $!; wait", Dir: t.TempDir()}, RunOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != ExitTimedOut || !strings.HasSuffix(res.Output, "\n[Command timed out after 1s]") {
		t.Fatalf("Run = %+v, want a timeout (124, marker)", res)
	}
	child, _ := strconv.Atoi(strings.Fields(strings.TrimPrefix(res.Output, "child "))[0])
	if child == 0 || alive(child) {
		st, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "stat"))
		t.Errorf("the background child %d is still alive: %s", child, st)
	}
	if left := groupMembers(t, env.pids[0]); len(left) > 0 {
		t.Errorf("processes of group %d left: %v", env.pids[0], left)
	}
}

// TestRunCancel: cancelling during sleep 30 ends the command with hermes's
// interrupt marker and leaves no process of its group.
func TestRunCancel(t *testing.T) {
	t.Parallel()
	env := &recordingEnv{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res, err := Run(ctx, env, Spec{Command: "echo started; sleep 30", Dir: t.TempDir()}, RunOptions{
		Timeout: time.Minute,
		Sink: func(b []byte) {
			if bytes.Contains(b, []byte("started")) {
				cancel()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.ExitCode != ExitInterrupted || res.Output != "started\n\n[Command interrupted]" {
		t.Fatalf("Run = %+v, want cancelled with 130", res)
	}
	if left := groupMembers(t, env.pids[0]); len(left) > 0 {
		t.Errorf("processes of group %d left: %v", env.pids[0], left)
	}
}

// TestRunLeftoverChildrenReaped: a foreground command that exits while a
// child it started keeps the output open returns, and the child is gone.
func TestRunLeftoverChildrenReaped(t *testing.T) {
	t.Parallel()
	env := &recordingEnv{}
	res, err := Run(t.Context(), env, Spec{Command: "(sleep 100; echo never) & echo child $!", Dir: t.TempDir()}, RunOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.ExitCode != 0 || strings.Contains(res.Output, "never") {
		t.Fatalf("Run = %+v, want exit 0 without the child's output", res)
	}
	if left := groupMembers(t, env.pids[0]); len(left) > 0 {
		t.Errorf("processes of group %d left: %v", env.pids[0], left)
	}
}

func TestRunSinkGetsEverythingWhileResultIsCapped(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen int
	res, err := Run(t.Context(), &Local{}, Spec{Command: "seq 1 35000", Dir: t.TempDir()}, RunOptions{
		MaxChars: 1000,
		Sink: func(b []byte) {
			mu.Lock()
			seen += len(b)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// seq 1 35000 prints 18+270+3600+45000+150006 = 198894 bytes.
	const total = 198894
	if seen != total || res.TotalChars != total || !res.Truncated {
		t.Errorf("sink saw %d bytes, TotalChars %d, Truncated %v; want %d, %d, true", seen, res.TotalChars, res.Truncated, total, total)
	}
	want := "1\n2\n3\n"
	marker := "\n\n... [OUTPUT TRUNCATED - 197894 chars omitted out of 198894 total] ...\n\n"
	if !strings.HasPrefix(res.Output, want) || !strings.Contains(res.Output, marker) || !strings.HasSuffix(res.Output, "34999\n35000\n") {
		t.Errorf("output = %q…, want head, marker %q and tail", res.Output[:80], marker)
	}
	if n := len([]rune(res.Output)); n != 1000+len(marker) {
		t.Errorf("output has %d characters, want %d", n, 1000+len(marker))
	}
}

func TestPTY(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), &Local{}, Spec{Command: "tty; test -t 1 && echo term", Dir: t.TempDir(), PTY: true}, RunOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "/dev/pts/") || !strings.Contains(res.Output, "term") {
		t.Errorf("PTY output = %q, want a /dev/pts terminal", res.Output)
	}
	res, err = Run(t.Context(), &Local{}, Spec{Command: "test -t 1 || echo pipe", Dir: t.TempDir()}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "pipe\n" {
		t.Errorf("output without PTY = %q, want pipe", res.Output)
	}
}

func TestStdinWriteAndClose(t *testing.T) {
	t.Parallel()
	p, err := (&Local{}).Start(t.Context(), Spec{Command: "cat; echo done", Dir: t.TempDir(), Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		out.ReadFrom(p.Output())
		close(done)
	}()
	if _, err := p.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	ex := p.Wait()
	<-done
	if out.String() != "hello\ndone\n" || ex.Code != 0 {
		t.Errorf("output %q exit %+v, want hello, done, 0", out.String(), ex)
	}
	if _, err := p.Write([]byte("x")); err == nil {
		t.Error("Write after exit succeeded, want an error")
	}
}

func TestKillSignalled(t *testing.T) {
	t.Parallel()
	p, err := (&Local{}).Start(t.Context(), Spec{Command: "exec sleep 30", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	ex := p.Wait()
	if ex.Signal == "" || ex.Code != 128+15 {
		t.Errorf("Wait after Kill = %+v, want terminated (143)", ex)
	}
	if left := groupMembers(t, p.PID()); len(left) > 0 {
		t.Errorf("processes of group %d left: %v", p.PID(), left)
	}
}

// TestRunEscapedDaemonDoesNotHang: a process that leaves the command's
// process group while holding its output (setsid) does not keep Run from
// returning once the command has exited.
func TestRunEscapedDaemonDoesNotHang(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	res, err := Run(t.Context(), &Local{}, Spec{Command: `setsid -f sh -c 'echo daemon $$; exec sleep 100'; sleep 0.2; echo main done`, Dir: t.TempDir()}, RunOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var daemon int
	if i := strings.Index(res.Output, "daemon "); i >= 0 {
		fmt.Sscanf(res.Output[i:], "daemon %d", &daemon)
	}
	if daemon > 0 {
		syscall.Kill(daemon, syscall.SIGKILL)
	}
	if res.TimedOut || res.ExitCode != 0 || !strings.Contains(res.Output, "main done") || daemon == 0 {
		t.Errorf("Run = %+v, want the command's own end", res)
	}
}
