// Command lint compares the in-process delta lint of package lint with the
// same checks run as subprocesses, like for like, and prints a Markdown
// table. It is run by bench/lint/run.sh, which first runs the lint
// benchmarks with -fixtures so that both sides check the very same files.
//
// Usage:
//
//	go run ./bench/lint -bench BENCH_OUTPUT -fixtures DIR [-runs N] [-load LOAD]
//	go run ./bench/lint gotypes [-edits N] [-files N]
//
// The second form measures the Go type check of package lint/gotypes
// (gotypes.go).
//
// The in-process times are medians of the go test -bench runs in
// BENCH_OUTPUT, per GOMAXPROCS (go test -cpu). The subprocess side does what
// hermes-agent does after a write: lint the new content and, only when it
// has errors, the old content too. So the delta of a clean edit costs one
// run of the linter and the delta of an edit that adds an error costs two
// (the broken new file, then the old one). Each row's commands are run one
// after the other N times, after one warm-up round, and the median of the
// rounds' wall times is reported.
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	run := run
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "gotypes": // the Go type check (gotypes.go)
			run = func(args []string, stdout, stderr io.Writer) error { return runGoTypes(args[1:], stdout, stderr) }
		case goTypesChild:
			run = func(args []string, stdout, _ io.Writer) error { return goTypesChildMain(args[1:], stdout) }
		}
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lint:", err)
		os.Exit(1)
	}
}

// row is one line of the table: an in-process benchmark next to the
// subprocess runs that do the same check.
type row struct {
	check     string   // what is checked
	benchmark string   // benchmark name without the -GOMAXPROCS suffix
	tool      string   // key into the subprocess commands
	files     []string // fixture files the subprocess checks, in order
}

// rows are the table's lines. A delta whose new content has errors lints the
// old content too, as hermes-agent does. "File learned" rows lint with a
// lint.Linter that has seen the old content, as the agent's has every file
// the model read or wrote; a subprocess linter has no such memory, so its
// side is the same.
var rows = []row{
	{"Go, 5 000 lines: one check", "BenchmarkCheck/go", "go", []string{"bench.go"}},
	{"Go: delta of a clean one-line edit", "BenchmarkDelta/go/clean", "go", []string{"bench.go"}},
	{"Go: delta of an edit adding an error", "BenchmarkDelta/go/error", "go", []string{"bench_error.go", "bench_before.go"}},
	{"Go, file learned: delta of a clean one-line edit", "BenchmarkDelta/go/clean-learned", "go", []string{"bench.go"}},
	{"Go, file learned: delta of an edit adding an error", "BenchmarkDelta/go/error-learned", "go", []string{"bench_error.go", "bench_before.go"}},
	{"JSON, 1 MB: one check", "BenchmarkCheck/json", "json", []string{"bench.json"}},
	{"JSON: delta of a clean one-line edit", "BenchmarkDelta/json/clean", "json", []string{"bench.json"}},
	{"JSON: delta of an edit adding an error", "BenchmarkDelta/json/error", "json", []string{"bench_error.json", "bench_before.json"}},
	{"YAML, 5 000 lines: one check", "BenchmarkCheck/yaml", "yaml", []string{"bench.yaml"}},
	{"YAML: delta of a clean one-line edit", "BenchmarkDelta/yaml/clean", "yaml", []string{"bench.yaml"}},
	{"YAML: delta of an edit adding an error", "BenchmarkDelta/yaml/error", "yaml", []string{"bench_error.yaml", "bench_before.yaml"}},
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	benchFile := fs.String("bench", "", "output of go test -bench for package lint")
	fixtures := fs.String("fixtures", "", "folder holding the fixtures written by the benchmarks")
	runs := fs.Int("runs", 20, "subprocess rounds per row (at least 20 for the published table)")
	loadStart := fs.String("load", "", "the load average when the benchmarks started, for the report")
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
	loadBefore := loadAverage()

	tools, notes := subprocessTools()
	subTimes := map[string]time.Duration{}
	for _, r := range rows {
		cmd, ok := tools[r.tool]
		if !ok {
			continue
		}
		key := r.tool + " " + strings.Join(r.files, " ")
		if _, done := subTimes[key]; done {
			continue
		}
		paths := make([]string, len(r.files))
		for i, file := range r.files {
			paths[i] = filepath.Join(*fixtures, file)
		}
		d, err := timeCommands(cmd, paths, *runs)
		if err != nil {
			return fmt.Errorf("time %s: %w", key, err)
		}
		subTimes[key] = d
	}

	procs := procsOf(inproc)
	load := fmt.Sprintf("%s before the subprocess runs, %s after", loadBefore, loadAverage())
	if *loadStart != "" {
		load = fmt.Sprintf("%s when the benchmarks started, %s", *loadStart, load)
	}
	fmt.Fprintf(stdout, "Machine: %s/%s, %d CPUs (%s), %s. Load average (1, 5, 15 min): %s.\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), runtime.Version(), load)
	writeTable(stdout, rows, inproc, procs, tools, subTimes, *runs)
	for _, tool := range []string{"go", "json", "yaml"} {
		if note, ok := notes[tool]; ok {
			fmt.Fprintf(stdout, "\nNote: %s\n", note)
		}
	}
	return nil
}

// writeTable prints the Markdown table: per row, the in-process medians for
// each GOMAXPROCS in procs (most first), the subprocess commands, the
// median of their rounds and the speed-up at the most GOMAXPROCS.
func writeTable(w io.Writer, rows []row, inproc map[benchKey][]float64, procs []int,
	tools map[string]command, subTimes map[string]time.Duration, runs int) {
	header := "| check |"
	align := "|---|"
	for _, p := range procs {
		header += fmt.Sprintf(" in-process, GOMAXPROCS=%d (median of %d) |", p, countRuns(inproc, p))
		align += "---:|"
	}
	header += fmt.Sprintf(" subprocess commands (hermes-agent's delta lint) | subprocess (median of %d rounds) | speed-up |", runs)
	align += "---|---:|---:|"
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, align)
	for _, r := range rows {
		line := "| " + r.check + " |"
		var best float64 // in-process median at the most GOMAXPROCS
		for i, p := range procs {
			in := "n/a"
			if samples := inproc[benchKey{r.benchmark, p}]; len(samples) > 0 {
				m := median(samples)
				in = formatNs(m)
				if i == 0 {
					best = m
				}
			}
			line += " " + in + " |"
		}
		cmd, ok := tools[r.tool]
		if !ok {
			fmt.Fprintf(w, "%s not run | n/a | n/a |\n", line)
			continue
		}
		var shown []string
		for _, file := range r.files {
			shown = append(shown, "`"+cmd.display+" "+file+"`")
		}
		sub := subTimes[r.tool+" "+strings.Join(r.files, " ")]
		ratio := "n/a"
		if best > 0 {
			ratio = fmt.Sprintf("%.0f×", float64(sub.Nanoseconds())/best)
		}
		fmt.Fprintf(w, "%s %s | %s | %s |\n", line, strings.Join(shown, " + "), formatNs(float64(sub.Nanoseconds())), ratio)
	}
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

// timeCommands runs cmd on each file in turn, runs rounds after one warm-up
// round, and returns the median wall time of a round. The linter's verdict
// (exit status) is irrelevant: a broken fixture makes it fail on purpose.
func timeCommands(cmd command, files []string, runs int) (time.Duration, error) {
	for _, file := range files {
		if _, err := os.Stat(file); err != nil {
			return 0, err
		}
	}
	round := func() (time.Duration, error) {
		start := time.Now()
		for _, file := range files {
			c := exec.Command(cmd.argv[0], append(cmd.argv[1:], file)...)
			var exit *exec.ExitError
			if err := c.Run(); err != nil && !errors.As(err, &exit) {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	if _, err := round(); err != nil {
		return 0, err
	}
	samples := make([]float64, 0, runs)
	for range runs {
		d, err := round()
		if err != nil {
			return 0, err
		}
		samples = append(samples, float64(d.Nanoseconds()))
	}
	return time.Duration(median(samples)), nil
}

// benchKey names a benchmark result: the benchmark without its -GOMAXPROCS
// suffix, and the GOMAXPROCS it ran with (1 when go test printed no suffix).
type benchKey struct {
	name  string
	procs int
}

// parseBench reads go test -bench output and returns the ns/op samples of
// each benchmark and GOMAXPROCS.
func parseBench(r io.Reader) (map[benchKey][]float64, error) {
	out := map[benchKey][]float64{}
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
			key := benchKey{fields[0], 1}
			if i := strings.LastIndexByte(key.name, '-'); i > 0 {
				if n, err := strconv.Atoi(key.name[i+1:]); err == nil && n > 0 {
					key = benchKey{key.name[:i], n}
				}
			}
			out[key] = append(out[key], v)
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

// procsOf returns the GOMAXPROCS values in m, most first.
func procsOf(m map[benchKey][]float64) []int {
	var procs []int
	for k := range m {
		if !slices.Contains(procs, k.procs) {
			procs = append(procs, k.procs)
		}
	}
	slices.Sort(procs)
	slices.Reverse(procs)
	return procs
}

// countRuns returns the most samples any benchmark has at GOMAXPROCS procs.
func countRuns(m map[benchKey][]float64, procs int) int {
	n := 0
	for k, s := range m {
		if k.procs == procs {
			n = max(n, len(s))
		}
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

// loadAverage returns the 1, 5 and 15 minute load averages, or "unknown".
func loadAverage() string {
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			return strings.Join(f[:3], " ")
		}
	}
	if out, err := exec.Command("sysctl", "-n", "vm.loadavg").Output(); err == nil {
		return strings.Trim(strings.TrimSpace(string(out)), "{ }")
	}
	return "unknown"
}

// cpuModel returns the CPU model name from /proc/cpuinfo, or "unknown CPU".
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.Lines(string(data)) {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown CPU"
}
