package report

import (
	"context"
	"encoding/json"
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

// Usage is the help text of `hermes-acp lint`, before its flags.
const Usage = `usage: hermes-acp lint [--json] [--types=false] FILE...

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

// Options say how [Files] checks and prints; the zero value prints text and
// checks syntax only.
type Options struct {
	JSON  bool // one JSON object with LSP diagnostics per file
	Types bool // type-check Go files with their package
}

// The statuses [Files] returns, as `hermes-acp lint` exits with them.
const (
	Clean      = 0 // no file has an error (warnings are fine)
	HasErrors  = 1 // some file has an error-severity diagnostic
	Unreadable = 2 // a file cannot be read, or the output cannot be written
)

// fileReport is the JSON output for one file.
type fileReport struct {
	URI         string                `json:"uri"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// Files lints each file of paths and writes the problems to stdout, notes
// and errors to stderr. It returns [Clean], [HasErrors] or [Unreadable]
// (which wins over HasErrors).
func Files(ctx context.Context, paths []string, o Options, stdout, stderr io.Writer) int {
	status := Clean
	enc := json.NewEncoder(stdout)
	var checker *gotypes.Checker
	if o.Types {
		checker = gotypes.New(gotypes.Options{})
		defer checker.Close()
	}
	noted := map[string]bool{}
	for _, path := range paths {
		lang := lint.LanguageFor(path)
		if lang == lint.LanguageNone {
			if _, err := os.Stat(path); err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: %v\n", err)
				status = Unreadable
				continue
			}
			fmt.Fprintf(stderr, "hermes-acp lint: %s: skipped: %s\n", path, lint.SkipReason(path))
			continue
		}
		content, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "hermes-acp lint: %v\n", err)
			status = Unreadable
			continue
		}
		ds := lint.Check(lang, content)
		if lang == lint.LanguageGo && checker != nil && !hasError(ds) {
			more, note := typeErrors(ctx, checker, path)
			ds = append(ds, more...)
			// notBuilt is about this file; the other notes are about the
			// environment or the module, said once.
			if note == notBuilt || note != "" && !noted[note] {
				noted[note] = true
				fmt.Fprintf(stderr, "hermes-acp lint: %s: type check skipped: %s\n", path, note)
			}
		}
		if hasError(ds) {
			status = max(status, HasErrors)
		}
		if o.JSON {
			uri, err := fileURI(path)
			if err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: %s: %v\n", path, err)
				status = Unreadable
				continue
			}
			if err := enc.Encode(fileReport{URI: uri, Diagnostics: ds}); err != nil {
				fmt.Fprintf(stderr, "hermes-acp lint: write output: %v\n", err)
				return Unreadable
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
				return Unreadable
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
func typeErrors(ctx context.Context, c *gotypes.Checker, path string) ([]protocol.Diagnostic, string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err.Error()
	}
	r, err := c.Check(ctx, gotypes.Edit{File: abs})
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

// fileURI returns the file:// URI of path, made absolute. It does not use
// go.lsp.dev/uri, whose File depends on the working directory in ways that
// are easy to get wrong.
func fileURI(path string) (string, error) {
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
