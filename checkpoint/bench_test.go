package checkpoint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/checkpoint"
)

// BenchmarkRecordOneFileChanged is a turn's checkpoint of a 10 000-file
// workspace after one file changed (bench/checkpoints has the full table).
func BenchmarkRecordOneFileChanged(b *testing.B) {
	root := b.TempDir()
	old := time.Now().Add(-time.Minute)
	line := strings.Repeat("func f() int { return 1 } // a generated line\n", 40)
	for i := range 10_000 {
		p := filepath.Join(root, fmt.Sprintf("pkg%03d/file%05d.go", i/50, i))
		if i%50 == 0 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		os.WriteFile(p, []byte(fmt.Sprintf("%d\n%s", i, line)), 0o644)
		os.Chtimes(p, old, old)
	}
	m := checkpoint.New(checkpoint.Options{Dir: b.TempDir()})
	r, err := m.Repo(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Record(ctx, checkpoint.Mark{Session: "sess_b", Turn: 1, Phase: checkpoint.Before}); err != nil {
		b.Fatal(err)
	}
	changed := filepath.Join(root, "pkg000/file00000.go")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		os.WriteFile(changed, []byte(fmt.Sprintf("changed %d\n", i)), 0o644)
		t := old.Add(time.Duration(i+1) * time.Millisecond)
		os.Chtimes(changed, t, t)
		b.StartTimer()
		if _, err := r.Record(ctx, checkpoint.Mark{Session: "sess_b", Turn: 2 + i, Phase: checkpoint.Before}); err != nil {
			b.Fatal(err)
		}
	}
}
