// Package report lints files on disk as `hermes-acp lint` does and writes
// what it finds. [Files] checks each file's syntax with package lint and,
// for a Go file without syntax errors, its types with package
// lint/gotypes, and prints one line per problem (or, with JSON, one object
// of LSP diagnostics per file); notes about skipped files and checks go to
// the error writer. [Usage] describes the output for the command's help.
package report
