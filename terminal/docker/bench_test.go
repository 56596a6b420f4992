package docker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/terminal/docker/dockertest"
)

// workspace10k makes a workspace of 100 folders of 100 small files.
func workspace10k(b *testing.B) string {
	ws := b.TempDir()
	for i := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", j)), []byte("x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return ws
}

// BenchmarkCommand measures one command end to end (start, output, exit)
// on this machine, in a session's container with the workspace mounted
// (local daemon), and in one with the workspace copied (the same daemon
// reached over tcp, as a remote one is: copy in, command, copy back), for
// `true`, `ls -R` of a 10 000-file workspace and a command that changes
// one file. The container is created and the workspace copied before the
// timer.
//
//	go test ./terminal/docker/ -run '^$' -bench Command -count 5
func BenchmarkCommand(b *testing.B) {
	d, err := dockertest.Start()
	if err != nil {
		b.Fatalf("private dockerd: %v", err)
	}
	ws := workspace10k(b)
	m := newManagerB(b, d)
	remote := newRemoteManager(b, d)
	envs := map[string]terminal.Environment{
		"local": &terminal.Local{}, "docker": m.Session("bench", []string{ws}),
		"docker-remote": remote.Session("bench-remote", []string{ws}),
	}
	for _, backend := range []string{"local", "docker", "docker-remote"} {
		for _, cmd := range []struct{ name, line string }{
			{"true", "true"}, {"ls-R-10k", "ls -R > /dev/null"}, {"edit-one", "date +%N > d042/f042.txt"},
		} {
			b.Run(backend+"/"+cmd.name, func(b *testing.B) {
				env := envs[backend]
				run := func() {
					res, err := terminal.Run(context.Background(), env, terminal.Spec{Command: cmd.line, Dir: ws}, terminal.RunOptions{Timeout: time.Minute})
					if err != nil || res.ExitCode != 0 {
						b.Fatalf("%s: %v %+v", cmd.line, err, res)
					}
				}
				run() // the container is created outside the timer
				b.ResetTimer()
				for b.Loop() {
					run()
				}
			})
		}
	}
}

// BenchmarkRemoteSync10k measures copying the 10 000-file workspace's
// changes into the container of a remote (tcp) daemon: with nothing
// changed (the local scan alone) and with one file changed.
//
//	go test ./terminal/docker/ -run '^$' -bench RemoteSync10k -count 5
func BenchmarkRemoteSync10k(b *testing.B) {
	d, err := dockertest.Start()
	if err != nil {
		b.Fatalf("private dockerd: %v", err)
	}
	ws := workspace10k(b)
	env := newRemoteManager(b, d).Session("bench-sync", []string{ws})
	st, err := env.Sync(context.Background())
	if err != nil || st.Sent != 10000 {
		b.Fatalf("first sync: %+v %v", st, err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if st, err := env.Sync(context.Background()); err != nil || st.Sent != 0 {
				b.Fatalf("%+v %v", st, err)
			}
		}
	})
	b.Run("one-changed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if err := os.WriteFile(filepath.Join(ws, "d007", "f007.txt"), fmt.Appendf(nil, "%d\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
			if st, err := env.Sync(context.Background()); err != nil || st.Sent != 1 {
				b.Fatalf("%+v %v", st, err)
			}
		}
	})
}
