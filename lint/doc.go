// Package lint is hermes-acp's in-process syntax linter: bytes in,
// LSP-shaped diagnostics out. It never reads the disk and never panics on
// any input. Its functions keep no state between calls; a [Linter] keeps
// only what saves work (see "Go speed" below), never what changes a result.
// Everything here is safe for concurrent use.
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
// [Linter.Delta] implements hermes-agent's post-write delta lint with line mapping:
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
// A Go file of 8 KiB or more is cut at its top-level declarations into
// segments (the header with the first declaration, then one per
// declaration), which are grouped into pieces of about 4 KiB and parsed on
// up to GOMAXPROCS goroutines (each call waits for its goroutines). Pieces
// that parse clean prove the file clean; where one is broken, the file's
// errors come from a parse that starts at the broken segment and stops as
// soon as go/parser is back at the top level at a segment known clean, so
// the diagnostics are always exactly those of a whole-file parse.
//
// A [Linter] remembers the segments it has seen parse clean (keys of their
// text), so that linting a file again after an edit parses only the
// segments the edit changed, and [Linter.Delta] shares them between the two
// contents of one edit. [Linter.Learn] feeds it a file that is likely to be
// edited next. gopieces.go gives the arguments; differential tests and fuzz
// targets check them against whole-file parses.
package lint
