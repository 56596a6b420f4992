package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSessionIndex measures what a new session pays for its skill
// index: discovering 200 skills in 10 category folders (each with a
// references/ file) and rendering the system prompt's index.
func BenchmarkSessionIndex(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{}
	for i := range 200 {
		cat := fmt.Sprintf("cat%02d", i%10)
		name := fmt.Sprintf("skill-%03d", i)
		files[cat+"/"+name+"/SKILL.md"] = "---\nname: " + name + "\ndescription: " + strings.Repeat("does things ", 10) +
			"\ntags: [a, b]\n---\n\n# " + name + "\n\n" + strings.Repeat("Step.\n", 200)
		files[cat+"/"+name+"/references/api.md"] = "# API\n"
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		writeBench(b, p, content)
	}
	l := New(Options{UserDir: dir})
	b.ReportAllocs()
	for b.Loop() {
		all, _ := l.List()
		if len(all) != 200 {
			b.Fatalf("listed %d skills", len(all))
		}
		if Index(all, "list", "view", "manage") == "" {
			b.Fatal("empty index")
		}
	}
}

func writeBench(b *testing.B, p, content string) {
	b.Helper()
	if err := mkdirAllFile(p, content); err != nil {
		b.Fatal(err)
	}
}

func mkdirAllFile(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}
