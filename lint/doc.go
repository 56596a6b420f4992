// Package lint is hermes-acp's in-process syntax linter: bytes in,
// LSP-shaped diagnostics out. It never reads the disk, never panics on any
// input and keeps no state between calls, so every function here is safe for
// concurrent use.
//
// # Languages
//
// [LanguageFor] picks a [Language] from a file name: JSON, JSONC (JSON with
// comments and trailing commas, for files that are JSONC by convention such as
// tsconfig.json or .vscode/settings.json), YAML, TOML, Go and go.mod. Any other
// file is [LanguageNone] and its lint is skipped with hermes-agent's message
// "No linter for <ext> files".
//
// # Checks
//
// [Check] parses content with the language's parser (encoding/json,
// gopkg.in/yaml.v3, github.com/BurntSushi/toml, go/parser,
// golang.org/x/mod/modfile) and turns every error into a
// [protocol.Diagnostic]: 0-based line, UTF-16 character (counted only by
// [Mapper]), Source "hermes-lint", a stable string Code per check and a Range
// covering the offending token. Syntax errors have severity Error; duplicate
// YAML mapping keys have severity Warning, because the file still parses and
// most YAML consumers keep the last value, so a duplicate key is a likely
// mistake rather than a broken file (the syntax gate does not refuse them).
// Diagnostics are sorted by position, then code, then message.
//
// JSON, YAML and TOML parsers stop at the first syntax error, so they report at
// most one syntax error per file (YAML also reports every duplicate key found
// in the documents before the error). Go reports every syntax error
// (parser.AllErrors) and go.mod every error modfile finds.
//
// # Delta lint
//
// [Delta] implements hermes-agent's post-write delta lint with line mapping:
// the new content is linted first and, when it is clean, the old content is
// never parsed (the hot path). Otherwise each diagnostic of the new content is
// either introduced by the edit or pre-existing; a diagnostic is pre-existing
// when its line is unchanged by a line diff of old and new content and the
// corresponding old line carried a diagnostic with the same code and the same
// message (line numbers inside messages are ignored). A diagnostic on a
// changed line is introduced whatever the old content held, so the old
// content is parsed only when some diagnostic sits on an unchanged line. [Result] renders what the
// model sees ([Result.ModelLint]), a one-line approval summary
// ([Result.Summary]), the full set for the editor ([Result.Diagnostics]) and
// the fail-closed syntax gate ([Result.Gate], [RefusalMessage]).
//
// # Go speed
//
// When GOMAXPROCS > 1, a Go file of 16 KiB or more is first parsed in pieces
// cut at top-level declarations, on up to GOMAXPROCS goroutines (each call
// waits for its goroutines); pieces can only prove a file clean, and any error sends the
// file to an ordinary whole-file parse, so diagnostics are always exactly
// go/parser's. In a delta, the edited declarations are parsed first, and
// when the new content is broken, the whole-file parse of it shows whether
// the code the edit left alone is clean, so that the old content needs only
// its edited declarations parsed (gopieces.go and goedit.go give the
// arguments; differential tests and fuzz targets check them).
package lint
