package threat

import (
	"strings"
	"testing"
)

// BenchmarkScan measures the scan of a typical SKILL.md (1.6 KB: front
// matter, a heading and 200 short steps) in the context scope, and of a
// memory entry (200 characters) in the strict scope.
func BenchmarkScan(b *testing.B) {
	skill := "---\nname: deploy\ndescription: " + strings.Repeat("does things ", 10) + "\n---\n\n# deploy\n\n" + strings.Repeat("Step.\n", 200)
	entry := strings.Repeat("User prefers tabs; ", 10)
	b.Run("skill", func(b *testing.B) {
		b.SetBytes(int64(len(skill)))
		for b.Loop() {
			if Scan(skill, Context) != nil {
				b.Fatal("finding")
			}
		}
	})
	b.Run("memory", func(b *testing.B) {
		b.SetBytes(int64(len(entry)))
		for b.Loop() {
			if Scan(entry, Strict) != nil {
				b.Fatal("finding")
			}
		}
	})
}
