package compress

import "testing"

// BenchmarkCompressWork measures the work of one compression apart from
// the model call, on a 1 000-message conversation: choosing the middle,
// writing the summary request and building the compressed view.
func BenchmarkCompressWork(b *testing.B) {
	h := conversation(250)
	for range b.N {
		w, ok := Select(h, State{}, 16_000)
		if !ok {
			b.Fatal("nothing selected")
		}
		_ = Prompt(w.Middle, "")
		_ = State{Head: w.Head, Tail: w.Tail, Summary: "summary"}.View(h)
	}
}
