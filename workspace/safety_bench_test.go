package workspace

import "testing"

// BenchmarkNewSafety measures resolving the safety places (once per agent).
func BenchmarkNewSafety(b *testing.B) {
	for b.Loop() {
		NewSafety(Options{})
	}
}

// BenchmarkCheckRead measures the read guards on an ordinary file (every
// list is walked to the end) and on a credential file, with the workspace
// at $HOME.
func BenchmarkCheckRead(b *testing.B) {
	home := realTempDir(b)
	w := openWS(b, home, nil, Options{Home: home})
	for _, in := range []string{"proj/src/main.go", ".ssh/id_rsa"} {
		p := mustResolve(b, w, in)
		b.Run(in, func(b *testing.B) {
			for b.Loop() {
				w.CheckRead(p)
			}
		})
	}
}
