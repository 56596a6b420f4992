package terminal

import (
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// outsideTemp returns a new folder that is not under the temporary
// directory (the sandbox allows that one): under /var/tmp, else under the
// package's testdata. It is removed when the test ends.
func outsideTemp(t *testing.T) string {
	t.Helper()
	tmp, _ := filepath.EvalSymlinks(os.TempDir())
	wd, _ := os.Getwd()
	for _, parent := range []string{"/var/tmp", filepath.Join(wd, "testdata")} {
		real, err := filepath.EvalSymlinks(parent)
		if err != nil || real == tmp || strings.HasPrefix(real, tmp+string(filepath.Separator)) {
			continue
		}
		dir, err := os.MkdirTemp(real, "hermes-sandbox-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	t.Fatal("no folder outside the temporary directory to test the sandbox in")
	return ""
}

// sandboxEnv returns a Local running commands under the sandbox (the test
// binary is the helper, see TestMain) with HOME set to a test home; the
// workspace root, its sibling and the home are outside the temp dir.
func sandboxEnv(t *testing.T) (l *Local, root, sibling, home string) {
	t.Helper()
	if LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	base := outsideTemp(t)
	root, sibling, home = filepath.Join(base, "ws"), filepath.Join(base, "sibling"), filepath.Join(base, "home")
	for _, d := range []string{root, sibling, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CACHE_HOME=")
	})
	env = append(env, "HOME="+home, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	// The real Go caches, so the build below reuses them; the sandbox
	// allows them (it reads them from the environment commands get).
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			env = append(env, "GOCACHE="+f[0], "GOMODCACHE="+f[1])
		}
	}
	sb := &Sandbox{Exe: exe, Home: home, Getenv: func(k string) string {
		// The environment the commands run with.
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}}
	ss := sb.NewSession([]string{root})
	t.Cleanup(func() { ss.Close() })
	return &Local{Sandbox: ss, Environ: Environ{Base: env}}, root, sibling, home
}

// TestSandboxRestrictsWrites: a sandboxed command can write in the
// workspace, the temp directory and /dev/null, and not in $HOME or in a
// sibling of the workspace.
func TestSandboxRestrictsWrites(t *testing.T) {
	t.Parallel()
	l, root, sibling, home := sandboxEnv(t)
	run := func(cmd string) Result {
		t.Helper()
		res, err := Run(t.Context(), l, Spec{Command: cmd, Dir: root}, RunOptions{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(`touch in-workspace && mkdir -p sub/deeper && mv in-workspace sub/deeper/ && echo ok > /dev/null && f=$(mktemp) && rm "$f" && echo fine`)
	if res.ExitCode != 0 || res.Output != "fine\n" {
		t.Errorf("writes inside the sandbox = %+v, want them to work", res)
	}
	if _, err := os.Stat(filepath.Join(root, "sub/deeper/in-workspace")); err != nil {
		t.Errorf("the workspace file was not written: %v", err)
	}
	for _, tc := range []struct{ cmd, target string }{
		{"touch $HOME/x", filepath.Join(home, "x")},
		{"echo data > " + filepath.Join(sibling, "y"), filepath.Join(sibling, "y")},
		{"mkdir " + filepath.Join(sibling, "d"), filepath.Join(sibling, "d")},
	} {
		res := run(tc.cmd)
		if res.ExitCode == 0 || !LooksRefused(res.Output) {
			t.Errorf("%s = %+v, want a refused write", tc.cmd, res)
		}
		if _, err := os.Stat(tc.target); err == nil {
			t.Errorf("%s wrote %s", tc.cmd, tc.target)
		}
	}
	// Reading outside stays allowed.
	if err := os.WriteFile(filepath.Join(sibling, "readme"), []byte("readable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := run("cat " + filepath.Join(sibling, "readme")); res.Output != "readable\n" {
		t.Errorf("reading outside the workspace = %+v, want it allowed", res)
	}
}

// TestSandboxGoBuildAndTest: go build and go test of a module in the
// workspace work under the sandbox: Go's build cache is writable (the
// build adds entries to it), and the network is off (the module's test
// cannot reach a loopback listener of this process).
func TestSandboxGoBuildAndTest(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	l, root, _, _ := sandboxEnv(t)
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
			c.Close()
		}
	}()
	// A source the build has never seen, so that it writes to the cache.
	seed := strconv.FormatInt(time.Now().UnixNano(), 36)
	files := map[string]string{
		"go.mod":  "module example.com/tiny\n\ngo 1.21\n",
		"tiny.go": "package tiny\n\n// Seed: " + seed + "\nfunc Double(n int) int { return 2 * n }\n",
		"tiny_test.go": "package tiny\n\nimport (\n\t\"net\"\n\t\"testing\"\n)\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\n" +
			"func TestOffline(t *testing.T) {\n\tif c, err := net.Dial(\"tcp\", \"" + ln.Addr().String() + "\"); err == nil {\n\t\tc.Close()\n\t\tt.Fatal(\"reached the listener outside\")\n\t}\n}\n",
		"cmd/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/tiny\"\n)\n\nfunc main() { fmt.Println(tiny.Double(21)) }\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gocache := ""
	for _, kv := range l.Environ.Base {
		if v, ok := strings.CutPrefix(kv, "GOCACHE="); ok {
			gocache = v
		}
	}
	t0 := time.Now()
	res, err := Run(t.Context(), l, Spec{Command: "go build ./... && go build -o bin/tiny ./cmd && ./bin/tiny && go test -count=1 -v ./...", Dir: root},
		RunOptions{Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.Contains(res.Output, "42\n") || !strings.Contains(res.Output, "--- PASS: TestOffline") || !strings.Contains(res.Output, "ok  \texample.com/tiny") {
		t.Errorf("go build and go test under the sandbox = %+v", res)
	}
	if gocache != "" {
		written := 0
		_ = filepath.WalkDir(gocache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil && fi.ModTime().After(t0) {
					written++
				}
			}
			return nil
		})
		if written == 0 {
			t.Errorf("the sandboxed build wrote nothing to %s", gocache)
		}
	}
}

// TestRunDirLeavesRoomForSockets: the sessions' folder is under the
// temporary directory only when a socket ScratchSocketRoom bytes below a
// session's scratch folder still fits sun_path; else under /tmp.
func TestRunDirLeavesRoomForSockets(t *testing.T) {
	long := "/var/tmp/hermes-nobody-187122973/own/tmp" // a TMPDIR that made execute_code's socket too long
	s := &Sandbox{Getenv: func(string) string { return "" }}
	t.Setenv("TMPDIR", long)
	if got, want := s.runDir(), "/tmp/hermes-acp-"+uidString(); got != want {
		t.Errorf("runDir with TMPDIR=%s = %s, want %s", long, got, want)
	}
	t.Setenv("TMPDIR", "/var/tmp")
	got := s.runDir()
	if want := "/var/tmp/hermes-acp-" + uidString(); got != want {
		t.Errorf("runDir with TMPDIR=/var/tmp = %s, want %s", got, want)
	}
	sock := filepath.Join(got, "s-4294967295", "scratch", "hermes-exec-4294967295", "rpc.sock")
	if len(sock) > 107 || len(sock)-len(filepath.Join(got, "s-4294967295", "scratch")) > ScratchSocketRoom {
		t.Errorf("%s (%d bytes) does not fit a socket address", sock, len(sock))
	}
	xdg := &Sandbox{Getenv: func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return "/" + strings.Repeat("x", 60)
		}
		return ""
	}}
	if got := xdg.runDir(); strings.Contains(got, "xxx") {
		t.Errorf("runDir with a long XDG_RUNTIME_DIR = %s, want it passed over", got)
	}
}
