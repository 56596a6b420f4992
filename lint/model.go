package lint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// The statuses of [ModelLint], as hermes-agent names them.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusSkipped = "skipped"
)

// hermes-agent's words for the two kinds of broken file.
const (
	// NewErrorsHeader starts the output when the edit introduced errors into
	// a file that already had some.
	NewErrorsHeader = "New lint errors introduced by this edit (pre-existing errors filtered out):\n"
	// PreexistingMessage explains an error status that the edit did not cause.
	PreexistingMessage = "Pre-existing lint errors — this edit didn't introduce new ones but the file is still broken."
)

// maxModelLines bounds the diagnostics listed to the model; the rest are
// counted on one more line.
const maxModelLines = 20

// ModelLint is the lint part of a write tool's result, the
// {status, output, message?} object that hermes-agent shows the model.
type ModelLint struct {
	// Status is "ok", "error" or "skipped".
	Status string `json:"status"`
	// Output lists diagnostics, one per line, as
	// "<Kind>: <message> (line L, column C)" with a 1-based line and a
	// 1-based UTF-16 column. It is omitted from JSON when skipped, as in
	// hermes-agent.
	Output string `json:"output"`
	// Message is a note for the model: why the lint was skipped, why an error
	// status is not the edit's fault, or the warnings of a clean edit.
	Message string `json:"message,omitempty"`
}

// MarshalJSON encodes m like hermes-agent: {"status":"skipped","message":…}
// without output when skipped, else with output always present.
func (m ModelLint) MarshalJSON() ([]byte, error) {
	if m.Status == StatusSkipped {
		return json.Marshal(struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		}{m.Status, m.Message})
	}
	type plain ModelLint // drops this method
	return json.Marshal(plain(m))
}

// ModelLint renders r as hermes-agent's lint result for the model:
//
//   - skipped: status "skipped" and the skip reason as message;
//   - no errors in the new content: status "ok" and empty output (warnings
//     the edit introduced, such as duplicate YAML keys, go in the message);
//   - errors introduced: status "error" and the introduced diagnostics as
//     output, headed by [NewErrorsHeader] when pre-existing errors were
//     filtered out;
//   - only pre-existing errors: status "error", every current diagnostic as
//     output and [PreexistingMessage].
//
// At most 20 diagnostics are listed; a last line counts the rest.
func (r Result) ModelLint() ModelLint {
	if r.Skipped {
		return ModelLint{Status: StatusSkipped, Message: r.SkipReason}
	}
	introErrors, introWarnings := countSeverities(r.Introduced)
	preErrors, _ := countSeverities(r.Preexisting)
	switch {
	case introErrors+preErrors == 0:
		m := ModelLint{Status: StatusOK}
		if introWarnings > 0 {
			m.Message = "No syntax errors, but this edit introduced warnings:\n" + modelLines(r.Introduced)
		}
		return m
	case introErrors > 0:
		out := modelLines(r.Introduced)
		if preErrors > 0 {
			out = NewErrorsHeader + out
		}
		return ModelLint{Status: StatusError, Output: out}
	default:
		return ModelLint{Status: StatusError, Output: modelLines(r.current()), Message: PreexistingMessage}
	}
}

// Summary returns a one-line summary for an approval prompt: "this edit
// introduces 2 syntax errors", "this edit introduces 1 syntax error and 1
// warning", "no new lint errors" or "lint skipped: No linter for .txt files",
// followed by " (N pre-existing error[s])" when the file already had errors.
func (r Result) Summary() string {
	if r.Skipped {
		return "lint skipped: " + r.SkipReason
	}
	introErrors, introWarnings := countSeverities(r.Introduced)
	preErrors, _ := countSeverities(r.Preexisting)
	var s string
	switch {
	case introErrors > 0 && introWarnings > 0:
		s = "this edit introduces " + plural(introErrors, "syntax error") + " and " + plural(introWarnings, "warning")
	case introErrors > 0:
		s = "this edit introduces " + plural(introErrors, "syntax error")
	case introWarnings > 0:
		s = "this edit introduces " + plural(introWarnings, "warning")
	default:
		s = "no new lint errors"
	}
	if preErrors > 0 {
		s += " (" + plural(preErrors, "pre-existing error") + ")"
	}
	return s
}

// Diagnostics returns the full current set of diagnostics, in order, for
// publishing to the editor: each carries Data {"introduced": true|false}. The
// slice is new and never nil, so an empty set marshals as [].
func (r Result) Diagnostics() []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(r.Introduced)+len(r.Preexisting))
	for _, d := range r.Introduced {
		d.Data = map[string]any{"introduced": true}
		out = append(out, d)
	}
	for _, d := range r.Preexisting {
		d.Data = map[string]any{"introduced": false}
		out = append(out, d)
	}
	slices.SortStableFunc(out, compareDiagnostics)
	return out
}

// Meta is the lint summary a completed write carries in
// _meta.hermes.lint of its tool_call_update.
type Meta struct {
	// Status is the [ModelLint] status: "ok", "error" or "skipped".
	Status string `json:"status"`
	// Introduced counts the diagnostics the edit introduced.
	Introduced int `json:"introduced"`
	// Preexisting counts the diagnostics that were already there.
	Preexisting int `json:"preexisting"`
	// Diagnostics holds the file's full set, as [Result.Diagnostics] gives it.
	Diagnostics []FileDiagnostics `json:"diagnostics"`
}

// FileDiagnostics is the full set of diagnostics of one file.
type FileDiagnostics struct {
	// URI is the file's file:// URI.
	URI protocol.DocumentURI `json:"uri"`
	// Diagnostics is never nil: an empty list clears the file's set.
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// Meta returns r as the _meta.hermes.lint object for the file at uri.
func (r Result) Meta(uri protocol.DocumentURI) Meta {
	return Meta{
		Status:      r.ModelLint().Status,
		Introduced:  len(r.Introduced),
		Preexisting: len(r.Preexisting),
		Diagnostics: []FileDiagnostics{{URI: uri, Diagnostics: r.Diagnostics()}},
	}
}

// SyntaxError is the error of the syntax gate: the edit introduces syntax
// errors into a JSON, JSONC, YAML or TOML file.
type SyntaxError struct {
	// Language is the file's language.
	Language Language
	// Diagnostics are the introduced errors, in order.
	Diagnostics []protocol.Diagnostic
}

// Error lists the introduced errors as the model sees them, separated by "; ".
func (e *SyntaxError) Error() string {
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = modelLine(d)
	}
	return strings.Join(lines, "; ")
}

// Gate is the fail-closed syntax gate of lint.on_new_errors "refuse": it
// returns a [*SyntaxError] when r is the lint of a JSON, JSONC, YAML or TOML
// file and the edit introduces errors (warnings and pre-existing errors
// pass), and nil otherwise.
func (r Result) Gate() error {
	if !gated(r.Language) {
		return nil
	}
	var errs []protocol.Diagnostic
	for _, d := range r.Introduced {
		if d.Severity == protocol.DiagnosticSeverityError {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &SyntaxError{Language: r.Language, Diagnostics: errs}
}

// gated reports whether the syntax gate may refuse files of lang.
func gated(lang Language) bool {
	switch lang {
	case LanguageJSON, LanguageJSONC, LanguageYAML, LanguageTOML:
		return true
	}
	return false
}

// RefusalMessage returns hermes-agent's message for a write that the syntax
// gate refused: "Refusing to write '<path>': candidate content fails <ext>
// syntax validation (<err>). The file was NOT created or modified."
func RefusalMessage(path string, err error) string {
	return fmt.Sprintf("Refusing to write '%s': candidate content fails %s syntax validation (%v). The file was NOT created or modified.",
		path, extensionOrBase(path), err)
}

// current returns every diagnostic of the new content, in order.
func (r Result) current() []protocol.Diagnostic {
	all := slices.Concat(r.Introduced, r.Preexisting)
	slices.SortStableFunc(all, compareDiagnostics)
	return all
}

// compareDiagnostics orders diagnostics by position, code, then message.
func compareDiagnostics(a, b protocol.Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
		cmp.Compare(a.Range.Start.Character, b.Range.Start.Character),
		cmp.Compare(codeOf(a), codeOf(b)),
		cmp.Compare(a.Message, b.Message),
	)
}

// countSeverities counts error and warning diagnostics.
func countSeverities(ds []protocol.Diagnostic) (errs, warnings int) {
	for _, d := range ds {
		if d.Severity == protocol.DiagnosticSeverityError {
			errs++
		} else {
			warnings++
		}
	}
	return errs, warnings
}

// modelLines renders diagnostics one per line for the model, at most
// maxModelLines of them.
func modelLines(ds []protocol.Diagnostic) string {
	var b strings.Builder
	for i, d := range ds {
		if i == maxModelLines {
			fmt.Fprintf(&b, "\n... and %d more", len(ds)-maxModelLines)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(modelLine(d))
	}
	return b.String()
}

// modelLine renders one diagnostic as "<Kind>: <message> (line L, column C)",
// with a 1-based line and a 1-based UTF-16 column.
func modelLine(d protocol.Diagnostic) string {
	return fmt.Sprintf("%s: %s (line %d, column %d)",
		modelKind(codeOf(d)), d.Message, d.Range.Start.Line+1, d.Range.Start.Character+1)
}

// modelKind names a diagnostic's kind the way hermes-agent's linters name
// their exceptions.
func modelKind(code string) string {
	switch code {
	case CodeJSONSyntax, CodeJSONCSyntax:
		return "JSONDecodeError"
	case CodeYAMLSyntax:
		return "YAMLError"
	case CodeYAMLDuplicateKey:
		return "YAMLWarning"
	case CodeTOMLSyntax:
		return "TOMLDecodeError"
	case CodeGoSyntax:
		return "GoSyntaxError"
	case CodeGoModSyntax:
		return "GoModError"
	}
	return "LintError"
}

// codeOf returns a diagnostic's Code as a string ("" when it is not one).
func codeOf(d protocol.Diagnostic) string {
	s, _ := d.Code.(string)
	return s
}

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
