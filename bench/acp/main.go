package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[0], os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the exit, for tests. It returns 0 when the report
// was written and the first agent answered initialize, 1 when the first
// agent could not be measured at all, and 2 for a bad command line.
func run(ctx context.Context, prog string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "terminal" {
		return runTerminal(ctx, prog, args[1:], stdout, stderr)
	}
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "bench/acp:", err)
		return 2
	}
	model, err := startFakeModel(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench/acp:", err)
		return 1
	}
	defer model.Close()

	rep, err := measureAll(ctx, cfg, &runner{cfg: cfg, model: model}, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench/acp:", err)
		return 1
	}
	rep.Command = commandLine(prog, args)
	if cfg.JSON {
		err = writeJSON(stdout, rep)
	} else {
		err = writeMarkdown(stdout, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench/acp: write report:", err)
		return 1
	}
	if _, ok := rep.Agents[0].Metrics["initialize_ms"]; !ok {
		fmt.Fprintf(stderr, "bench/acp: %s could not be measured: %s\n", rep.Agents[0].Name, rep.Agents[0].NotMeasured["initialize_ms"])
		return 1
	}
	return 0
}

// commandLine is how the benchmark was invoked, for the report: "go run
// ./bench/acp" when prog is a binary that go run built.
func commandLine(prog string, args []string) string {
	name := prog
	if strings.Contains(prog, "go-build") {
		name = "go run ./bench/acp"
	} else if filepath.Base(prog) != prog && !filepath.IsAbs(prog) {
		name = filepath.Clean(prog)
	}
	if len(args) == 0 {
		return name
	}
	return name + " " + quoteCommand(args)
}
