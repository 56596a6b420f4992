package danger

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

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

// BenchmarkCorpus checks every command of the corpora (testdata: the
// disguised, the ordinary and the workload commands) and reports the
// median, the 90th percentile and the slowest time of one Check, each
// command's time being the fastest of the loop's rounds.
func BenchmarkCorpus(b *testing.B) {
	var cmds []string
	for _, f := range []string{"disguised.txtar", "ordinary.txtar"} {
		for _, c := range readCorpus(b, f) {
			cmds = append(cmds, c.cmd)
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "workload.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
			cmds = append(cmds, line)
		}
	}
	best := make([]time.Duration, len(cmds))
	for i := range best {
		best[i] = time.Hour
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range cmds {
			start := time.Now()
			Check(c)
			best[i] = min(best[i], time.Since(start))
		}
	}
	sorted := slices.Clone(best)
	slices.Sort(sorted)
	b.ReportMetric(float64(len(cmds)), "commands")
	b.ReportMetric(float64(sorted[len(sorted)/2].Nanoseconds())/1e3, "median-µs/cmd")
	b.ReportMetric(float64(sorted[len(sorted)*9/10].Nanoseconds())/1e3, "p90-µs/cmd")
	b.ReportMetric(float64(sorted[len(sorted)-1].Nanoseconds())/1e3, "max-µs/cmd")
}
