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

// BenchmarkCommand measures one command end to end (start, output, exit)
// on this machine and in a session's container (created before the
// timer), for `true` and `ls -R` of a 10 000-file workspace.
//
//	go test ./terminal/docker/ -run '^$' -bench Command -count 5
func BenchmarkCommand(b *testing.B) {
	d, err := dockertest.Start()
	if err != nil {
		b.Fatalf("private dockerd: %v", err)
	}
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
	m := newManagerB(b, d)
	envs := map[string]terminal.Environment{"local": &terminal.Local{}, "docker": m.Session("bench", []string{ws})}
	for _, backend := range []string{"local", "docker"} {
		for _, cmd := range []struct{ name, line string }{{"true", "true"}, {"ls-R-10k", "ls -R > /dev/null"}} {
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
