// Command lint compares the in-process delta lint of package lint with the
// same checks run as subprocesses, and prints a Markdown table. It is run by
// bench/lint/run.sh, which first runs the lint benchmarks with -fixtures so
// that both sides check the very same files.
//
// Usage:
//
//	go run ./bench/lint -bench BENCH_OUTPUT -fixtures DIR [-runs N]
//
// The in-process times are medians of the go test -bench runs in
// BENCH_OUTPUT; each subprocess is started N times (after one warm-up run)
// and its median wall time is reported.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lint:", err)
		os.Exit(1)
	}
}

// row is one line of the table: an in-process benchmark next to the
// subprocess that does the same check.
type row struct {
	check     string // what is checked
	benchmark string // benchmark name without the -GOMAXPROCS suffix
	file      string // fixture file the subprocess checks
	tool      string // key into the subprocess commands
}

var rows = []row{
	{"Go, 5 000 lines: one check", "BenchmarkCheck/go", "bench.go", "go"},
	{"Go: delta of a clean one-line edit", "BenchmarkDelta/go/clean", "bench.go", "go"},
	{"Go: delta of an edit adding an error", "BenchmarkDelta/go/error", "bench_error.go", "go"},
	{"JSON, 1 MB: one check", "BenchmarkCheck/json", "bench.json", "json"},
	{"JSON: delta of a clean one-line edit", "BenchmarkDelta/json/clean", "bench.json", "json"},
	{"JSON: delta of an edit adding an error", "BenchmarkDelta/json/error", "bench_error.json", "json"},
	{"YAML, 5 000 lines: one check", "BenchmarkCheck/yaml", "bench.yaml", "yaml"},
	{"YAML: delta of a clean one-line edit", "BenchmarkDelta/yaml/clean", "bench.yaml", "yaml"},
	{"YAML: delta of an edit adding an error", "BenchmarkDelta/yaml/error", "bench_error.yaml", "yaml"},
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	benchFile := fs.String("bench", "", "output of go test -bench for package lint")
	fixtures := fs.String("fixtures", "", "folder holding the fixtures written by the benchmarks")
	runs := fs.Int("runs", 20, "subprocess runs per check")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *benchFile == "" || *fixtures == "" || *runs < 1 {
		fs.Usage()
		return errors.New("-bench and -fixtures are required and -runs must be positive")
	}
	f, err := os.Open(*benchFile)
	if err != nil {
		return err
	}
	defer f.Close()
	inproc, err := parseBench(f)
	if err != nil {
		return err
	}

	tools, notes := subprocessTools()
	subTimes := map[string]time.Duration{}
	for _, r := range rows {
		cmd, ok := tools[r.tool]
		if !ok {
			continue
		}
		key := r.tool + " " + r.file
		if _, done := subTimes[key]; done {
			continue
		}
		d, err := timeCommand(cmd, filepath.Join(*fixtures, r.file), *runs)
		if err != nil {
			return fmt.Errorf("time %s: %w", key, err)
		}
		subTimes[key] = d
	}

	fmt.Fprintf(stdout, "| check | in-process (median of %d) | subprocess | subprocess (median of %d runs) | speed-up |\n", countRuns(inproc), *runs)
	fmt.Fprintln(stdout, "|---|---:|---|---:|---:|")
	for _, r := range rows {
		samples := inproc[r.benchmark]
		in := "n/a"
		var inMedian float64
		if len(samples) > 0 {
			inMedian = median(samples)
			in = formatNs(inMedian)
		}
		cmd, ok := tools[r.tool]
		if !ok {
			fmt.Fprintf(stdout, "| %s | %s | %s | n/a | n/a |\n", r.check, in, notes[r.tool])
			continue
		}
		sub := subTimes[r.tool+" "+r.file]
		ratio := "n/a"
		if inMedian > 0 {
			ratio = fmt.Sprintf("%.0f×", float64(sub.Nanoseconds())/inMedian)
		}
		fmt.Fprintf(stdout, "| %s | %s | `%s %s` | %s | %s |\n",
			r.check, in, cmd.display, r.file, formatNs(float64(sub.Nanoseconds())), ratio)
	}
	for _, tool := range []string{"go", "json", "yaml"} {
		if note, ok := notes[tool]; ok {
			fmt.Fprintf(stdout, "\nNote: %s\n", note)
		}
	}
	return nil
}

// command is a subprocess linter: argv before the file name.
type command struct {
	argv    []string
	display string
}

// subprocessTools finds the subprocess linters on this machine; notes says
// why one is missing.
func subprocessTools() (map[string]command, map[string]string) {
	tools := map[string]command{}
	notes := map[string]string{}
	if gofmt, err := findGofmt(); err == nil {
		tools["go"] = command{argv: []string{gofmt, "-e"}, display: "gofmt -e"}
	} else {
		notes["go"] = "gofmt not found: " + err.Error()
	}
	python, err := realPython()
	if err != nil {
		notes["json"] = "python3 not found, so the JSON and YAML subprocess checks were not run"
		notes["yaml"] = notes["json"]
		return tools, notes
	}
	tools["json"] = command{argv: []string{python, "-m", "json.tool"}, display: "python3 -m json.tool"}
	if exec.Command(python, "-c", "import yaml").Run() == nil {
		// hermes-agent's YAML lint: an event-level parse, no values built.
		tools["yaml"] = command{
			argv:    []string{python, "-c", "import sys, yaml\nfor _ in yaml.parse(open(sys.argv[1])): pass"},
			display: "python3 -c 'import yaml; yaml.parse(…)'",
		}
	} else {
		notes["yaml"] = "PyYAML is not installed (python3 -c 'import yaml' fails), so the YAML subprocess check was not run"
	}
	return tools, notes
}

// findGofmt returns gofmt from PATH or from the Go toolchain's GOROOT.
func findGofmt() (string, error) {
	if p, err := exec.LookPath("gofmt"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", err
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gofmt")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// realPython returns the python3 interpreter itself, not a version manager's
// shim script, so that the subprocess side is not charged for the shim.
func realPython() (string, error) {
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(p, "-c", "import sys; print(sys.executable)").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return p, nil
	}
	return strings.TrimSpace(string(out)), nil
}

// timeCommand runs cmd on file runs times after one warm-up run and returns
// the median wall time. The linter's verdict (exit status) is irrelevant: a
// broken fixture makes it fail on purpose.
func timeCommand(cmd command, file string, runs int) (time.Duration, error) {
	if _, err := os.Stat(file); err != nil {
		return 0, err
	}
	once := func() (time.Duration, error) {
		c := exec.Command(cmd.argv[0], append(cmd.argv[1:], file)...)
		start := time.Now()
		err := c.Run()
		d := time.Since(start)
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return 0, err
		}
		return d, nil
	}
	if _, err := once(); err != nil {
		return 0, err
	}
	samples := make([]float64, 0, runs)
	for range runs {
		d, err := once()
		if err != nil {
			return 0, err
		}
		samples = append(samples, float64(d.Nanoseconds()))
	}
	return time.Duration(median(samples)), nil
}

// parseBench reads go test -bench output and returns the ns/op samples of
// each benchmark, keyed by name without the -GOMAXPROCS suffix.
func parseBench(r io.Reader) (map[string][]float64, error) {
	out := map[string][]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		for i := 2; i+1 < len(fields); i++ {
			if fields[i+1] != "ns/op" {
				continue
			}
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("parse %q: %w", sc.Text(), err)
			}
			name := fields[0]
			if i := strings.LastIndexByte(name, '-'); i > 0 {
				if _, err := strconv.Atoi(name[i+1:]); err == nil {
					name = name[:i]
				}
			}
			out[name] = append(out[name], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no benchmark results in the go test output")
	}
	return out, nil
}

// countRuns returns the most samples any benchmark has.
func countRuns(m map[string][]float64) int {
	n := 0
	for _, s := range m {
		n = max(n, len(s))
	}
	return n
}

// median returns the median of samples (not empty).
func median(samples []float64) float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// formatNs renders nanoseconds as µs or ms.
func formatNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	default:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
}
