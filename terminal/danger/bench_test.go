package danger

import "testing"

// BenchmarkCheck measures the classification of commands a coding agent
// typically runs: a plain one, a compound one, and one carrying a script.
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct{ name, cmd string }{
		{"typical", "go test ./... -run TestAllowed -count=1"},
		{"compound", `cd web && npm ci && npm run build 2>&1 | tail -n 40 && git commit -am "build: rm -rf dist"`},
		{"carried", `find . -name '*.tmp' -print0 | xargs -0 sudo bash -c 'rm -f "$@"' _`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Check(bc.cmd)
			}
		})
	}
}
