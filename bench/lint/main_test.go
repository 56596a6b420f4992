package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := `goos: linux
BenchmarkCheck/go-2         	     100	  3000000 ns/op	   2.01 MB/s
BenchmarkCheck/go-2         	     100	  1000000 ns/op	   2.01 MB/s
BenchmarkCheck/go-2         	     100	  2000000 ns/op	   2.01 MB/s
BenchmarkCheck/go           	     100	  4000000 ns/op	   2.01 MB/s
BenchmarkDelta/json/clean-2 	      20	 10227960 ns/op	 102.51 MB/s	  1200 B/op
BenchmarkDeltaPreexisting 	      20	 5 ns/op
PASS
`
	got, err := parseBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[benchKey][]float64{
		{"BenchmarkCheck/go", 2}:         {3000000, 1000000, 2000000},
		{"BenchmarkCheck/go", 1}:         {4000000},
		{"BenchmarkDelta/json/clean", 2}: {10227960},
		{"BenchmarkDeltaPreexisting", 1}: {5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseBench (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 1}, procsOf(got)); diff != "" {
		t.Errorf("procsOf (-want +got):\n%s", diff)
	}
	if got := countRuns(want, 2); got != 3 {
		t.Errorf("countRuns(2) = %d, want 3", got)
	}
	if _, err := parseBench(strings.NewReader("PASS\n")); err == nil {
		t.Error("parseBench(no results) = nil error, want an error")
	}
}

func TestMedianAndFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{[]float64{1}, 1}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{9, 1, 5}, 5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for ns, want := range map[float64]string{1500: "2 µs", 2_500_000: "2.50 ms"} {
		if got := formatNs(ns); got != want {
			t.Errorf("formatNs(%v) = %q, want %q", ns, got, want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	rows := []row{
		{"Go check", "BenchmarkCheck/go", "go", []string{"a.go"}},
		{"Go delta adding an error", "BenchmarkDelta/go/error", "go", []string{"a_error.go", "a_before.go"}},
		{"YAML check", "BenchmarkCheck/yaml", "yaml", []string{"a.yaml"}},
	}
	inproc := map[benchKey][]float64{
		{"BenchmarkCheck/go", 2}:       {1e6, 3e6, 2e6},
		{"BenchmarkCheck/go", 1}:       {4e6},
		{"BenchmarkDelta/go/error", 2}: {3e6},
		{"BenchmarkDelta/go/error", 1}: {5e6},
		{"BenchmarkCheck/yaml", 2}:     {1e5},
	}
	tools := map[string]command{"go": {display: "gofmt -e"}}
	subTimes := map[string]time.Duration{"go a.go": 40 * time.Millisecond, "go a_error.go a_before.go": 75 * time.Millisecond}
	var b strings.Builder
	writeTable(&b, rows, inproc, []int{2, 1}, tools, subTimes, 20)
	want := `| check | in-process, GOMAXPROCS=2 (median of 3) | in-process, GOMAXPROCS=1 (median of 1) | subprocess commands (hermes-agent's delta lint) | subprocess (median of 20 rounds) | speed-up |
|---|---:|---:|---|---:|---:|
| Go check | 2.00 ms | 4.00 ms | ` + "`gofmt -e a.go`" + ` | 40.00 ms | 20× |
| Go delta adding an error | 3.00 ms | 5.00 ms | ` + "`gofmt -e a_error.go` + `gofmt -e a_before.go`" + ` | 75.00 ms | 25× |
| YAML check | 100 µs | n/a | not run | n/a | n/a |
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("writeTable (-want +got):\n%s", diff)
	}
}

// fakeLinterLog, when set in the environment, makes the test binary a fake
// linter: it appends the base name of its last argument to that file and
// fails, as a linter does on a broken file.
const fakeLinterLog = "BENCH_LINT_FAKE_LINTER_LOG"

func TestMain(m *testing.M) {
	if log := os.Getenv(fakeLinterLog); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(filepath.Base(os.Args[len(os.Args)-1]) + "\n")
			f.Close()
		}
		if err != nil {
			os.Exit(2)
		}
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestTimeCommandsRunsEachFileEveryRound(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	t.Setenv(fakeLinterLog, log)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The failure of the fake linter must not stop the timing.
	cmd := command{argv: []string{os.Args[0]}}
	if _, err := timeCommands(cmd, []string{a, b}, 3); err != nil {
		t.Fatalf("timeCommands = %v", err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), strings.Repeat("a\nb\n", 4); got != want {
		t.Errorf("commands ran as %q, want %q (a warm-up round and 3 rounds)", got, want)
	}
	if _, err := timeCommands(cmd, []string{filepath.Join(dir, "missing")}, 1); err == nil {
		t.Error("timeCommands(missing file) = nil error, want an error")
	}
}

// TestGoTypesChild: the type check benchmark's child measures a package
// that checks clean and an edit that adds exactly one error.
func TestGoTypesChild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := writeBenchModule(dir, 3); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := goTypesChildMain([]string{"gotypes", dir, "3"}, &out); err != nil {
		t.Fatalf("child: %v", err)
	}
	var r childReport
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatal(err)
	}
	if r.Introduced != 1 || len(r.Clean) != 3 || len(r.Error) != 3 || r.Cold <= 0 {
		t.Errorf("report %+v; want 3 clean and 3 error edits timed, the last introducing 1 error", r)
	}
}
