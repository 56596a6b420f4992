package gotypes_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/lint/gotypes"
)

// module writes a module example.com/m with files into a new folder and
// returns it.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"))
	for name, data := range files {
		writeFile(t, filepath.Join(root, name), []byte(data))
	}
	return root
}

// countingGo returns a go command that counts its runs in a file, and
// that file.
func countingGo(t *testing.T) (string, string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	script := filepath.Join(dir, "go")
	writeFile(t, script, fmt.Appendf(nil, "#!/bin/sh\necho \"$1\" >> %q\nexec %q \"$@\"\n", log, real))
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	return script, log
}

func runs(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// check runs one Check of a proposal of content for file and returns the
// introduced errors as "FILE:LINE MSG".
func check(t *testing.T, c *gotypes.Checker, root, file, content string) []string {
	t.Helper()
	p := filepath.Join(root, file)
	r, err := c.Check(context.Background(), gotypes.Edit{File: p, After: map[string][]byte{p: []byte(content)}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped {
		t.Fatalf("Check skipped: %s", r.Reason)
	}
	var out []string
	for _, f := range r.Files {
		rel, _ := filepath.Rel(root, f.Path)
		for _, d := range f.Findings {
			if d.Introduced {
				out = append(out, fmt.Sprintf("%s:%d %s", rel, d.Diagnostic.Range.Start.Line+1, d.Diagnostic.Message))
			}
		}
	}
	return out
}

// TestWarmCheckRunsNoGoCommand: once a package was checked, checking
// another edit of it that keeps its imports and build constraints runs
// the go command not at all; a new import lists only that package.
func TestWarmCheckRunsNoGoCommand(t *testing.T) {
	t.Parallel()
	root := module(t, map[string]string{
		"a.go": "package m\n\nimport \"strings\"\n\nfunc A() string { return strings.ToUpper(\"a\") }\n",
		"b.go": "package m\n\nfunc B() int { return 2 }\n",
	})
	goCmd, log := countingGo(t)
	c := gotypes.New(gotypes.Options{Go: goCmd, Env: baseEnv()})
	if got := check(t, c, root, "b.go", "package m\n\nfunc B() int { return 3 }\n"); len(got) != 0 {
		t.Fatalf("clean edit: introduced %v", got)
	}
	cold := len(runs(t, log))
	if cold == 0 {
		t.Fatal("the first check ran no go command; the counting wrapper is not used")
	}
	got := check(t, c, root, "b.go", "package m\n\nfunc B() int { return B2() }\n")
	if want := []string{"b.go:3 undefined: B2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("second edit: introduced %v, want %v", got, want)
	}
	if warm := runs(t, log)[cold:]; len(warm) != 0 {
		t.Errorf("a warm check ran the go command: %v", warm)
	}
	got = check(t, c, root, "b.go", "package m\n\nimport \"strconv\"\n\nfunc B() int { n, _ := strconv.Atoi(\"x\"); return n }\n")
	if len(got) != 0 {
		t.Errorf("edit importing strconv: introduced %v", got)
	}
	if more := runs(t, log)[cold:]; len(more) != 1 || more[0] != "list" {
		t.Errorf("a new import ran %v, want one go list", more)
	}
}

// TestDependencyChangeIsSeen: when another package of the module, which
// the checked one imports, changes on disk, the next check uses its new
// API.
func TestDependencyChangeIsSeen(t *testing.T) {
	t.Parallel()
	root := module(t, map[string]string{
		"lib/lib.go": "package lib\n\nfunc Get() int { return 1 }\n",
		"app/app.go": "package app\n\nimport \"example.com/m/lib\"\n\nvar V = lib.Get()\n",
	})
	c := gotypes.New(gotypes.Options{Env: baseEnv()})
	const edit = "package app\n\nimport \"example.com/m/lib\"\n\nvar V = lib.Get() + 1\n"
	if got := check(t, c, root, "app/app.go", edit); len(got) != 0 {
		t.Fatalf("clean edit: introduced %v", got)
	}
	writeFile(t, filepath.Join(root, "lib", "lib.go"), []byte("package lib\n\nfunc Get(n int) int { return n }\n"))
	// Before and after both call Get(): the error is there in both, so
	// it is not introduced; adding a second call is.
	got := check(t, c, root, "app/app.go", edit+"\nvar W = lib.Get()\n")
	want := []string{"app/app.go:7 not enough arguments in call to lib.Get have () want (int)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after lib changed: introduced %v, want %v", got, want)
	}
}

// TestSkips: the reasons a check does not run.
func TestSkips(t *testing.T) {
	t.Parallel()
	root := module(t, map[string]string{"a.go": "package m\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint()\n"})
	for _, tc := range []struct {
		name string
		opts gotypes.Options
		want string
	}{
		{"no toolchain", gotypes.Options{Go: filepath.Join(t.TempDir(), "go")}, "no Go toolchain found"},
		{"package too large", gotypes.Options{MaxPackageBytes: 10}, "the package is larger than"},
		{"memory budget", gotypes.Options{MaxMemory: 1}, "memory budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Env = baseEnv()
			c := gotypes.New(tc.opts)
			p := filepath.Join(root, "a.go")
			r, err := c.Check(context.Background(), gotypes.Edit{File: p, After: map[string][]byte{p: []byte("package m\n")}})
			if err != nil || !r.Skipped || !strings.Contains(r.Reason, tc.want) {
				t.Errorf("Check = %+v, %v; want skipped with a reason containing %q", r, err, tc.want)
			}
		})
	}
	if err := gotypes.New(gotypes.Options{Go: filepath.Join(t.TempDir(), "go")}).Available(); !errors.Is(err, gotypes.ErrNoToolchain) {
		t.Errorf("Available() = %v, want ErrNoToolchain", err)
	}
}

// TestCancelled: a cancelled check returns the context's error.
func TestCancelled(t *testing.T) {
	t.Parallel()
	root := module(t, map[string]string{"a.go": "package m\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := filepath.Join(root, "a.go")
	_, err := gotypes.New(gotypes.Options{Env: baseEnv()}).Check(ctx, gotypes.Edit{File: p, After: map[string][]byte{p: []byte("package m\n")}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Check with a cancelled context = %v, want context.Canceled", err)
	}
}

// TestManyEditsStayBounded: a long series of edits of one file does not
// grow what the checker keeps.
func TestManyEditsStayBounded(t *testing.T) {
	t.Parallel()
	root := module(t, map[string]string{"a.go": "package m\n\nimport \"strings\"\n\nvar A = strings.ToUpper(\"a\")\n"})
	c := gotypes.New(gotypes.Options{Env: baseEnv()})
	p := filepath.Join(root, "a.go")
	edit := func(i int) int64 {
		content := fmt.Sprintf("package m\n\nimport \"strings\"\n\nvar A = strings.ToUpper(\"a\") + \"%s%04d\"\n", strings.Repeat("x", 1000), i)
		check(t, c, root, "a.go", content)
		writeFile(t, p, []byte(content))
		mem, _ := c.Memory()
		return mem
	}
	var early, late int64
	for i := range 40 {
		early = max(early, edit(i))
	}
	for i := 40; i < 200; i++ {
		late = max(late, edit(i))
	}
	if late > early+early/4 {
		t.Errorf("over 160 more edits the checker kept up to ~%d bytes; over the first 40, up to %d", late, early)
	}
}
