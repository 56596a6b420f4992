package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/lint/gotypes"
	"go.lsp.dev/protocol"
)

// lintUsage is the help text of the lint subcommand.
const lintUsage = `usage: hermes-acp lint [--json] [--types=false] FILE...

Checks the syntax of each FILE with hermes-acp's in-process linter: JSON,
JSONC (tsconfig.json, .vscode/*.json, *.jsonc, ...), YAML, TOML, Go and go.mod.
Other files are skipped with a note on stderr. A Go file without syntax
errors is also type-checked with its package (go/types, against the export
data of its dependencies, which the go command builds from the module
cache without downloading anything), and the type errors in the file are
reported (code go-types); where that cannot be done (no Go toolchain, not
in a module, a file the build constraints of this environment exclude, ...)
a note on stderr says why.

Each problem is printed as
    path:line:column: message
    path:line:column: warning: message
with a 1-based line and a 1-based column counted in UTF-16 code units (the
LSP character + 1). With --json, one JSON object is printed per checked file,
one per line: {"uri": "file:///abs/path", "diagnostics": [LSP Diagnostic...]}.

Exit status: 0 when no file has errors (warnings are fine), 1 when some file
has an error, 2 for a usage error or a file that cannot be read.

Flags (before the files):
`

// lintFileReport is the --json output for one file.
type lintFileReport struct {
	URI         string                `json:"uri"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// runLint implements "hermes-acp lint [--json] FILE...": it lints each file
// with package lint and reports to stdout, notes and errors to stderr. It
// returns the exit status: 0 clean, 1 some error-severity diagnostic, 2 usage
// error or unreadable file (2 wins over 1).
func runLint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object with LSP diagnostics per file")
	typesOn := fs.Bool("types", true, "type-check Go files with their package")
	fs.Usage = func() {
		fmt.Fprint(stderr, lintUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	files := fs.Args()
	if len(files) == 0 {
		fmt.Fprintln(stderr, "hermes-acp lint: no files given")
		fs.Usage()
		return 2
	}

	status := 0
	enc := json.NewEncoder(stdout)
	var checker *gotypes.Checker
	if *typesOn {
		checker = gotypes.New(gotypes.Options{})
		defer checker.Close()
	}
	noted := map[string]bool{}
	for _, path := range files {
		lang := lint.LanguageFor(path)
		if lang == lint.LanguageNone {
			if _, err := os.Stat(path); err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: %v\n", err)
				status = 2
				continue
			}
			fmt.Fprintf(stderr, "hermes-acp lint: %s: skipped: %s\n", path, lint.SkipReason(path))
			continue
		}
		content, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "hermes-acp lint: %v\n", err)
			status = 2
			continue
		}
		ds := lint.Check(lang, content)
		if lang == lint.LanguageGo && checker != nil && !hasError(ds) {
			more, note := typeErrors(checker, path)
			ds = append(ds, more...)
			// notBuilt is about this file; the other notes are about the
			// environment or the module, said once.
			if note == notBuilt || note != "" && !noted[note] {
				noted[note] = true
				fmt.Fprintf(stderr, "hermes-acp lint: %s: type check skipped: %s\n", path, note)
			}
		}
		for _, d := range ds {
			if d.Severity == protocol.DiagnosticSeverityError {
				status = max(status, 1)
				break
			}
		}
		if *jsonOut {
			uri, err := lintFileURI(path)
			if err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: %s: %v\n", path, err)
				status = 2
				continue
			}
			if err := enc.Encode(lintFileReport{URI: uri, Diagnostics: ds}); err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: write output: %v\n", err)
				return 2
			}
			continue
		}
		for _, d := range ds {
			kind := ""
			if d.Severity == protocol.DiagnosticSeverityWarning {
				kind = "warning: "
			}
			if _, err := fmt.Fprintf(stdout, "%s:%d:%d: %s%s\n",
				path, d.Range.Start.Line+1, d.Range.Start.Character+1, kind, d.Message); err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: write output: %v\n", err)
				return 2
			}
		}
	}
	return status
}

// hasError reports whether ds holds an error.
func hasError(ds []protocol.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == protocol.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// typeErrors type-checks the package of the Go file at path as it is on
// disk and returns the type errors in the file, or why it could not.
func typeErrors(c *gotypes.Checker, path string) ([]protocol.Diagnostic, string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err.Error()
	}
	r, err := c.Check(context.Background(), gotypes.Edit{File: abs})
	if err != nil {
		return nil, err.Error()
	}
	if r.Skipped {
		return nil, r.Reason
	}
	for _, f := range r.Files {
		if f.Path == abs {
			var ds []protocol.Diagnostic
			for _, fd := range f.Findings {
				ds = append(ds, fd.Diagnostic)
			}
			return ds, ""
		}
	}
	return nil, notBuilt
}

// notBuilt is the note on a Go file its package leaves out as the go
// command builds it here: the environment's GOOS, GOARCH, CGO_ENABLED and
// build tags exclude it, or go list ignores it (a name starting with "_").
const notBuilt = "the file is not part of its package as built in this environment (build constraints, GOOS/GOARCH, CGO_ENABLED, GOFLAGS -tags)"

// lintFileURI returns the file:// URI of path, made absolute. It does not use
// go.lsp.dev/uri, whose File depends on the working directory in ways that
// are easy to get wrong.
func lintFileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("absolute path: %w", err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), nil
}
