package main

// The Go type check (package lint/gotypes), measured: a one-line edit in a
// package of 50 files that imports the standard library and one
// third-party module (github.com/google/go-cmp, from the module cache),
// checked as the agent checks a proposal before its approval — the package
// before and after the edit — cold (the first check of a fresh checker,
// with the machine's build cache and with an empty one) and warm (the
// checks of the edits after it, each written to disk before the next, as
// the agent writes them). go/packages does the same check next to it: one
// packages.Load of the package with the edit overlaid and one without, per
// edit. Each side runs in a child process of its own, which reports its
// times and its peak RSS (VmHWM) over its RSS before the first check; the
// go command's own processes are not counted.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/hermes-acp/hermes-acp/lint/gotypes"
)

// goTypesChild is the hidden first argument of the child processes.
const goTypesChild = "gotypes-child"

// cmpVersion is the third-party dependency: the version this repository
// requires, so that it is in the module cache of any machine that built it.
const (
	cmpPath    = "github.com/google/go-cmp"
	cmpVersion = "v0.7.0"
	cmpSum     = "github.com/google/go-cmp v0.7.0 h1:wk8382ETsv4JYUZwIsn6YpYiWiBsYLSJiTsyBybVuN8=\ngithub.com/google/go-cmp v0.7.0/go.mod h1:pXiqmnSA92OHEEa9HXL2W4E7lf9JzCmGVUdgjX3N/iU=\n"
)

// childReport is what a child process measured.
type childReport struct {
	Cold       float64   `json:"cold_ms"`
	Clean      []float64 `json:"clean_ms"`
	Error      []float64 `json:"error_ms"`
	Introduced int       `json:"introduced"` // by the last error edit, as a check that it worked
	BaseRSS    int64     `json:"base_rss_kib"`
	PeakRSS    int64     `json:"peak_rss_kib"`
}

func runGoTypes(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gotypes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	edits := fs.Int("edits", 30, "warm edits of each kind (clean, adding an error)")
	files := fs.Int("files", 50, "files of the package")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *edits < 3 || *files < 2 {
		return errors.New("-edits must be at least 3 and -files at least 2")
	}
	if out, err := goCommand("", nil, "mod", "download", "-json", cmpPath+"@"+cmpVersion); err != nil {
		return fmt.Errorf("%s %s must be in the module cache (run go mod download in the repository): %v\n%s", cmpPath, cmpVersion, err, out)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	load := loadAverage()
	type side struct {
		name, mode string
		env        []string
	}
	emptyCache, err := os.MkdirTemp("", "gotypes-gocache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(emptyCache)
	sides := []side{
		{"lint/gotypes", "gotypes", nil},
		{"lint/gotypes, empty build cache", "gotypes", []string{"GOCACHE=" + emptyCache}},
		{"go/packages", "packages", nil},
	}
	reports := make([]childReport, len(sides))
	for i, s := range sides {
		fmt.Fprintf(stderr, "bench/lint gotypes: %s...\n", s.name)
		dir, err := os.MkdirTemp("", "gotypes-bench-")
		if err != nil {
			return err
		}
		err = writeBenchModule(dir, *files)
		if err == nil {
			reports[i], err = runChild(self, s.mode, dir, *edits, s.env)
		}
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	goVersion, _ := goCommand("", nil, "env", "GOVERSION")
	fmt.Fprintf(stdout, "Machine: %s/%s, %d CPUs (%s), %s (go command %s). Load average (1, 5, 15 min): %s before, %s after.\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), runtime.Version(), strings.TrimSpace(string(goVersion)), load, loadAverage())
	fmt.Fprintf(stdout, "A one-line edit in a %d-file package importing fmt, strings, sort and %s; %d warm edits of each kind.\n\n", *files, cmpPath, *edits)
	fmt.Fprintln(stdout, "| checker | cold: first check | warm: clean edit, median | warm: edit adding an error, median | peak RSS added |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|")
	for i, s := range sides {
		r := reports[i]
		fmt.Fprintf(stdout, "| %s | %s | %s | %s | %.1f MiB |\n", s.name, ms(r.Cold), ms(median(r.Clean)), ms(median(r.Error)),
			float64(r.PeakRSS-r.BaseRSS)/1024)
	}
	return nil
}

// ms renders milliseconds.
func ms(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// runChild runs a child process measuring mode on the module in dir.
func runChild(self, mode, dir string, edits int, env []string) (childReport, error) {
	cmd := exec.Command(self, goTypesChild, mode, dir, strconv.Itoa(edits))
	cmd.Env = append(benchGoEnv(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return childReport{}, err
	}
	var r childReport
	if err := json.Unmarshal(out, &r); err != nil {
		return childReport{}, fmt.Errorf("child output %q: %w", out, err)
	}
	if r.Introduced != 1 {
		return childReport{}, fmt.Errorf("the edit adding an error introduced %d errors, want 1", r.Introduced)
	}
	return r, nil
}

// benchGoEnv is the go command's environment: this process's, with no
// workspace file or toolchain switch.
func benchGoEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOWORK=") || strings.HasPrefix(kv, "GOTOOLCHAIN=") || strings.HasPrefix(kv, "GOFLAGS=")
	})
	return append(env, "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=readonly")
}

// goCommand runs go in dir.
func goCommand(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(benchGoEnv(), env...)
	return cmd.CombinedOutput()
}

// writeBenchModule writes the module: example.com/bench with package big
// of n files.
func writeBenchModule(dir string, n int) error {
	files := map[string]string{
		"go.mod": "module example.com/bench\n\ngo 1.26\n\nrequire " + cmpPath + " " + cmpVersion + "\n",
		"go.sum": cmpSum,
	}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("big/f%d.go", i)] = benchFile(i, "1")
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchFile is file i of the package; factor is the expression the edits
// change.
func benchFile(i int, factor string) string {
	return fmt.Sprintf(`package big

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// T%[1]d is a value.
type T%[1]d struct {
	A, B int
	S    string
}

func (t T%[1]d) String() string { return fmt.Sprintf("%%d %%d %%s", t.A, t.B, strings.ToUpper(t.S)) }

// Diff%[1]d compares two values.
func Diff%[1]d(a, b T%[1]d) string { return cmp.Diff(a, b) }

// Sort%[1]d sorts xs.
func Sort%[1]d(xs []int) []int {
	sort.Ints(xs)
	return xs
}

// Work%[1]d sums.
func Work%[1]d(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * %[2]s
	}
	return s
}
`, i, factor)
}

// goTypesChildMain is the child: it measures mode ("gotypes" or
// "packages") on the module in dir and prints a childReport.
func goTypesChildMain(args []string, stdout io.Writer) error {
	if len(args) != 3 {
		return errors.New("usage: gotypes-child MODE DIR EDITS")
	}
	mode, dir := args[0], args[1]
	edits, err := strconv.Atoi(args[2])
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "big", "f1.go")
	var check func(ctx context.Context, after []byte) (introduced int, err error)
	switch mode {
	case "gotypes":
		c := gotypes.New(gotypes.Options{Env: benchGoEnv()})
		defer c.Close()
		check = func(ctx context.Context, after []byte) (int, error) {
			r, err := c.Check(ctx, gotypes.Edit{File: file, After: map[string][]byte{file: after}})
			if err == nil && r.Skipped {
				err = errors.New("skipped: " + r.Reason)
			}
			return r.IntroducedCount(), err
		}
	case "packages":
		check = func(ctx context.Context, after []byte) (int, error) {
			return packagesDelta(ctx, dir, file, after)
		}
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	runtime.GC()
	debug.FreeOSMemory()
	base := procStatus("VmRSS")
	r := childReport{BaseRSS: base}
	ctx := context.Background()
	// each times one check of an edit of f1.go to factor, then writes it.
	each := func(factor string) (float64, int, error) {
		after := []byte(benchFile(1, factor))
		start := time.Now()
		n, err := check(ctx, after)
		d := float64(time.Since(start).Microseconds()) / 1000
		if err != nil {
			return 0, 0, err
		}
		return d, n, os.WriteFile(file, after, 0o644)
	}
	if r.Cold, _, err = each("2"); err != nil {
		return err
	}
	for k := range edits {
		d, _, err := each(strconv.Itoa(k + 3))
		if err != nil {
			return err
		}
		r.Clean = append(r.Clean, d)
	}
	for k := range edits {
		// Add an error (each time a different line, so that no state
		// repeats), then take it out again, untimed.
		d, n, err := each(fmt.Sprintf("undefinedFactor * %d", k+2))
		if err != nil {
			return err
		}
		r.Error, r.Introduced = append(r.Error, d), n
		if _, _, err := each(strconv.Itoa(k + 100)); err != nil {
			return err
		}
	}
	r.PeakRSS = procStatus("VmHWM")
	return json.NewEncoder(stdout).Encode(r)
}

// packagesDelta is the same check with go/packages: the package loaded
// as it is and with after overlaid, type-checked from source against its
// dependencies' export data; it returns the errors after minus before (by
// message, enough for this edit).
func packagesDelta(ctx context.Context, dir, file string, after []byte) (int, error) {
	errs := func(overlay map[string][]byte) (map[string]int, error) {
		cfg := &packages.Config{
			Context: ctx, Dir: dir, Env: benchGoEnv(), Overlay: overlay,
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		}
		pkgs, err := packages.Load(cfg, "./big")
		if err != nil {
			return nil, err
		}
		out := map[string]int{}
		for _, p := range pkgs {
			for _, e := range p.Errors {
				if e.Kind == packages.TypeError {
					out[e.Msg]++
				}
			}
		}
		return out, nil
	}
	before, err := errs(nil)
	if err != nil {
		return 0, err
	}
	now, err := errs(map[string][]byte{file: after})
	if err != nil {
		return 0, err
	}
	n := 0
	for msg, c := range now {
		n += max(0, c-before[msg])
	}
	return n, nil
}

// procStatus returns a field of /proc/self/status in KiB (0 elsewhere).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}
