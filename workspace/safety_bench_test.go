package workspace

import "testing"

// BenchmarkNewSafety measures resolving the safety places (once per agent).
func BenchmarkNewSafety(b *testing.B) {
	for b.Loop() {
		NewSafety(Options{})
	}
}
