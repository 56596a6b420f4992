package gotypes

import (
	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/lint"
)

// Edit is a change to the Go files of one package directory, to be
// type-checked: the package before it and after it. Files named in
// neither map are read from the disk, the same in both states.
type Edit struct {
	// File is the edited file (an absolute path); its directory's package
	// is checked.
	File string
	// Before and After hold, by absolute path, the content of files of that
	// directory before and after the edit where it is not what the disk
	// holds; a nil content means the file does not exist in that state. A
	// proposal that has not been written has only Before's disk state for
	// the changed files and After for their new content; an edit already
	// written has Before for the old content.
	Before, After map[string][]byte
}

// Result is the type check of an [Edit]: every type error of the package
// after the edit, each marked introduced or not. A Result is a value.
type Result struct {
	// Skipped is true when the package could not be type-checked; Reason
	// says why ("not in a Go module"). Only the syntax lint applies then.
	Skipped bool
	Reason  string
	// Dir is the package directory, Package its import path.
	Dir, Package string
	// Files lists the Go files the check covered after the edit (the
	// package, its tests, its external tests), sorted, with the errors of
	// each. A file without errors has no Findings.
	Files []File
}

// File is one checked file and its type errors after the edit.
type File struct {
	// Path is the file's absolute path.
	Path string
	// Findings are the file's type errors after the edit, in order of
	// position.
	Findings []Finding
}

// Finding is one type error after the edit.
type Finding struct {
	// Diagnostic is the error as LSP has it: Source "hermes-lint", Code
	// "go-types", severity Error, its range in the content after the edit.
	// A "\t…" continuation of go/types (the other declaration of a
	// redeclared name) is its RelatedInformation.
	Diagnostic protocol.Diagnostic
	// Introduced is true when the package had no matching error before the
	// edit.
	Introduced bool
	// Before is where the matching error was before the edit, when
	// Introduced is false.
	Before protocol.Range
}

// Introduced returns the errors the edit introduced in the file at path
// (absolute), in order; nil when none.
func (r Result) Introduced(path string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, f := range r.Files {
		if f.Path != path {
			continue
		}
		for _, d := range f.Findings {
			if d.Introduced {
				out = append(out, d.Diagnostic)
			}
		}
	}
	return out
}

// IntroducedElsewhere returns the errors the edit introduced in the
// checked files not in except (absolute paths), by file, for
// [lint.Result.WithTypes]; uri converts a path to its file:// URI.
func (r Result) IntroducedElsewhere(except map[string]bool, uri func(path string) string) []lint.FileDiagnostics {
	var out []lint.FileDiagnostics
	for _, f := range r.Files {
		if except[f.Path] {
			continue
		}
		if ds := r.Introduced(f.Path); len(ds) > 0 {
			out = append(out, lint.FileDiagnostics{URI: lint.URI(uri(f.Path)), Diagnostics: ds})
		}
	}
	return out
}

// IntroducedCount counts the errors the edit introduced, in every file.
func (r Result) IntroducedCount() int {
	n := 0
	for _, f := range r.Files {
		for _, d := range f.Findings {
			if d.Introduced {
				n++
			}
		}
	}
	return n
}
