package ssh

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// Run: go test -run '^$' -bench . -benchtime 10x -count 5 ./terminal/ssh/
// (docs/benchmarks.md, "Terminal over SSH"). sshd is local (loopback), so
// the numbers are the protocol's and the sync's own cost, without network
// latency.

// bigWorkspace makes a workspace of 10 000 small files in 100 folders.
func bigWorkspace(b *testing.B) string {
	b.Helper()
	ws := b.TempDir()
	for d := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte("package p\n\nfunc F() {}\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return ws
}

func benchRun(b *testing.B, env terminal.Environment, dir, command string) {
	b.Helper()
	for b.Loop() {
		res, err := terminal.Run(context.Background(), env, terminal.Spec{Command: command, Dir: dir}, terminal.RunOptions{MaxChars: 1 << 20})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%s: %v %d %s", command, err, res.ExitCode, res.Output)
		}
	}
}

func BenchmarkCommand(b *testing.B) {
	srv := startSSHD(b)
	ws := bigWorkspace(b)
	e, err := New(srv.config(filepath.Join(b.TempDir(), "remote")), ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	local := &terminal.Local{}
	for _, c := range []struct{ name, cmd string }{{"true", "true"}, {"ls-R-10k", "ls -R"}} {
		b.Run(c.name+"/local", func(b *testing.B) { benchRun(b, local, ws, c.cmd) })
		b.Run(c.name+"/ssh", func(b *testing.B) { benchRun(b, e, ws, c.cmd) })
	}
}

func BenchmarkSync10k(b *testing.B) {
	srv := startSSHD(b)
	ws := bigWorkspace(b)
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			e, err := New(srv.config(filepath.Join(b.TempDir(), "remote")), ws, Options{})
			if err != nil {
				b.Fatal(err)
			}
			st, err := e.Sync(context.Background())
			if err != nil || st.Sent != 10_000 {
				b.Fatalf("sync: %+v %v", st, err)
			}
			e.Close()
		}
	})
	b.Run("one-changed", func(b *testing.B) {
		e, err := New(srv.config(filepath.Join(b.TempDir(), "remote")), ws, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		f := filepath.Join(ws, "pkg050", "file050.go")
		i := 0
		for b.Loop() {
			i++
			if err := os.WriteFile(f, fmt.Appendf(nil, "package p\n\n// %d\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
			_ = os.Chtimes(f, time.Now(), time.Now().Add(time.Duration(i)*time.Second))
			st, err := e.Sync(context.Background())
			if err != nil || st.Sent != 1 {
				b.Fatalf("sync: %+v %v", st, err)
			}
		}
	})
}
