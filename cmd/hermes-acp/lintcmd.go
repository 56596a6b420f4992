package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hermes-acp/hermes-acp/lint/report"
)

// runLint is "hermes-acp lint [--json] FILE...": the flags, then
// report.Files. It returns the exit status: 0 clean, 1 some error-severity
// diagnostic, 2 usage error or unreadable file (2 wins over 1).
func runLint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o report.Options
	fs.BoolVar(&o.JSON, "json", false, "print one JSON object with LSP diagnostics per file")
	fs.BoolVar(&o.Types, "types", true, "type-check Go files with their package")
	fs.Usage = func() {
		fmt.Fprint(stderr, report.Usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "hermes-acp lint: no files given")
		fs.Usage()
		return 2
	}
	return report.Files(context.Background(), fs.Args(), o, stdout, stderr)
}
