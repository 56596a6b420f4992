// Command search compares the search_files tool of package tools with
// ripgrep on the same content queries over one directory tree (by default
// $(go env GOROOT)/src) and prints a Markdown table of match counts and
// median wall times. It is run by bench/search/run.sh.
//
// Usage:
//
//	go run ./bench/search [-root DIR] [-runs N] [-rg PATH]
//
// Our side calls the tool's handler in process, through a minimal session
// environment, exactly as the agent does; its count is the result's
// total_count (every matching line). The ripgrep side runs
//
//	rg --no-config --no-require-git --hidden -g '!.*/' -n --no-heading --with-filename PATTERN DIR
//
// (plus --glob for a file_glob query), reads its whole output through a
// pipe and counts the lines. --hidden with the '!.*/' glob gives ripgrep
// our walk rules: hidden files are searched, hidden directories are not;
// --no-require-git applies .gitignore files outside a git checkout, as the
// workspace does. The runs alternate between the two sides after one
// warm-up run each, and the medians are reported.
package main

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
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// query is one row of the table.
type query struct {
	name    string // what the query is
	pattern string
	glob    string // file_glob, "" for none
}

var queries = []query{
	{"literal `func main`", "func main", ""},
	{"regex `func \\w+\\(ctx context\\.Context`", `func \w+\(ctx context\.Context`, ""},
	{"rare word `xyzzy`", "xyzzy", ""},
	{"common word `return`, file_glob `*.go`", "return", "*.go"},
	{"regex `(?i)deadline exceeded`", `(?i)deadline exceeded`, ""},
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench/search:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", filepath.Join(runtime.GOROOT(), "src"), "directory tree to search")
	runs := fs.Int("runs", 20, "timed runs per side and query")
	rg := fs.String("rg", "rg", "ripgrep executable")
	only := fs.String("only", "", "run only the queries whose name contains this text")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of our side to this file")
	skipRg := fs.Bool("no-rg", false, "time only our side")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	dir, err := filepath.EvalSymlinks(*root)
	if err != nil {
		return err
	}
	ws, err := workspace.Open(dir, nil, workspace.Options{})
	if err != nil {
		return err
	}
	defer ws.Close()
	handler, other := searchHandler(ws)
	if handler == nil {
		return errors.New("no search_files tool in tools.Bind")
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(stdout, "| query | matches ours | matches rg | median ms ours | median ms rg | ours / rg |\n")
	fmt.Fprintf(stdout, "|---|---:|---:|---:|---:|---:|\n")
	for _, q := range queries {
		if !strings.Contains(q.name, *only) {
			continue
		}
		fmt.Fprintf(stderr, "%s ...\n", q.name)
		ours, rgs := make([]time.Duration, 0, *runs), make([]time.Duration, 0, *runs)
		var nOurs, nRg int
		for i := 0; i <= *runs; i++ { // run 0 is the warm-up
			d, n, err := runOurs(handler, other, dir, q)
			if err != nil {
				return fmt.Errorf("%s: ours: %w", q.name, err)
			}
			nOurs = n
			if i > 0 {
				ours = append(ours, d)
			}
			if *skipRg {
				rgs = append(rgs, time.Millisecond)
				continue
			}
			d, n, err = runRg(*rg, dir, q)
			if err != nil {
				return fmt.Errorf("%s: rg: %w", q.name, err)
			}
			nRg = n
			if i > 0 {
				rgs = append(rgs, d)
			}
		}
		mo, mr := median(ours), median(rgs)
		fmt.Fprintf(stdout, "| %s | %d | %d | %.1f | %.1f | %.2f× |\n", q.name, nOurs, nRg,
			ms(mo), ms(mr), float64(mo)/float64(mr))
	}
	return nil
}

// runOurs runs one search; other tells the session another tool ran, to
// keep the repeated-search guard from blocking the runs.
func runOurs(h registry.Handler, other func(), dir string, q query) (time.Duration, int, error) {
	other()
	args := map[string]any{"pattern": q.pattern, "path": dir}
	if q.glob != "" {
		args["file_glob"] = q.glob
	}
	call := &registry.Call{ID: "bench", Name: "search_files", Args: args}
	start := time.Now()
	r, err := h(context.Background(), call)
	d := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	out := r.Encode()
	if i := strings.Index(out, "\n\n[Hint:"); i >= 0 {
		out = out[:i]
	}
	var res struct {
		TotalCount int    `json:"total_count"`
		Error      string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return 0, 0, fmt.Errorf("decode result %.200q: %w", out, err)
	}
	if res.Error != "" {
		return 0, 0, errors.New(res.Error)
	}
	return d, res.TotalCount, nil
}

func runRg(rg, dir string, q query) (time.Duration, int, error) {
	args := []string{"--no-config", "--no-require-git", "--hidden", "-g", "!.*/",
		"-n", "--no-heading", "--with-filename"}
	if q.glob != "" {
		args = append(args, "--glob", q.glob)
	}
	args = append(args, "--", q.pattern, dir)
	cmd := exec.Command(rg, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	n := 0
	r := bufio.NewReaderSize(out, 1<<20)
	buf := make([]byte, 1<<20)
	for {
		m, err := r.Read(buf)
		for _, c := range buf[:m] {
			if c == '\n' {
				n++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	err = cmd.Wait()
	d := time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 { // no match
		err = nil
	}
	return d, n, err
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// searchHandler binds the built-in tools to a session of ws that can only
// read, and returns search_files's handler and a func that tells the
// session another tool ran.
func searchHandler(ws *workspace.Workspace) (registry.Handler, func()) {
	entries, hooks := tools.Bind(tools.Deps{
		Workspace: ws,
		Files:     workspace.NewFiles(ws, nil, false, false),
		State:     workspace.NewState(ws),
		Approver:  readOnly{},
		Lint:      readOnly{},
	})
	other := func() {
		for _, h := range hooks {
			h.Pre(context.Background(), &registry.Call{Name: "bench"})
		}
	}
	for _, e := range entries {
		if e.Name == "search_files" {
			return e.Handler, other
		}
	}
	return nil, other
}

// readOnly refuses edits and drops lint: the benchmark only searches.
type readOnly struct{}

func (readOnly) ApproveEdit(context.Context, string, []workspace.Change, []lint.Result) workspace.Decision {
	return workspace.Decision{Denial: workspace.DenyRejected}
}

func (readOnly) ReportLint(string, workspace.Path, []byte, lint.Result) {}

func (readOnly) LearnLint(workspace.Path, []byte) {}
