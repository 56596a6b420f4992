package lint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
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
//   - errors introduced (syntax errors, or Go type errors here or in other
//     files of the package): status "error" and the introduced diagnostics
//     as output, headed by [NewErrorsHeader] when pre-existing errors were
//     filtered out;
//   - only pre-existing errors: status "error", every current diagnostic as
//     output and [PreexistingMessage].
//
// At most 20 diagnostics are listed; a last line counts the rest. When the
// Go type check is still running ([Result.TypesPending]) the message says
// so.
func (r Result) ModelLint() ModelLint {
	if r.Skipped {
		return ModelLint{Status: StatusSkipped, Message: r.SkipReason}
	}
	m := r.modelLint()
	if r.TypesPending {
		m.Message = joinNote(m.Message, TypesPendingMessage)
	}
	return m
}

// TypesPendingMessage tells the model that the Go type check of its edit
// had not finished when the tool returned.
const TypesPendingMessage = "The Go type check of this edit is still running; its findings will be shown in the editor."

// modelLint is [Result.ModelLint] of a Result that was linted, before the
// note about a pending type check.
func (r Result) modelLint() ModelLint {
	introErrors, introWarnings := countSeverities(r.Introduced)
	introErrors += r.elsewhereErrors()
	preErrors, _ := countSeverities(r.Preexisting)
	switch {
	case introErrors+preErrors == 0:
		m := ModelLint{Status: StatusOK}
		if introWarnings > 0 {
			m.Message = "No syntax errors, but this edit introduced warnings:\n" + modelLines(r.Introduced, nil)
		}
		return m
	case introErrors > 0:
		out := modelLines(r.Introduced, r.Elsewhere)
		if preErrors > 0 {
			out = NewErrorsHeader + out
		}
		return ModelLint{Status: StatusError, Output: out}
	default:
		return ModelLint{Status: StatusError, Output: modelLines(r.current(), nil), Message: PreexistingMessage}
	}
}

// joinNote appends note to msg on a line of its own.
func joinNote(msg, note string) string {
	if msg == "" {
		return note
	}
	return msg + "\n" + note
}

// Summary returns a one-line summary for an approval prompt: "this edit
// introduces 2 syntax errors", "this edit introduces 1 type error", "this
// edit introduces 1 syntax error and 1 warning", "no new lint errors" or
// "lint skipped: No linter for .txt files", followed by " (N pre-existing
// error[s])" when the file already had syntax errors and by "; Go type
// check still running" when its result was not ready. Type errors are the
// Go type check's (code [CodeGoTypes]) in the file and elsewhere.
func (r Result) Summary() string {
	if r.Skipped {
		return "lint skipped: " + r.SkipReason
	}
	var syntaxErrors, typeErrors, warnings int
	for _, d := range r.Introduced {
		switch {
		case d.Severity != protocol.DiagnosticSeverityError:
			warnings++
		case codeOf(d) == CodeGoTypes:
			typeErrors++
		default:
			syntaxErrors++
		}
	}
	typeErrors += r.elsewhereErrors()
	preErrors, _ := countSeverities(r.Preexisting)
	var parts []string
	if syntaxErrors > 0 {
		parts = append(parts, plural(syntaxErrors, "syntax error"))
	}
	if typeErrors > 0 {
		parts = append(parts, plural(typeErrors, "type error"))
	}
	if warnings > 0 {
		parts = append(parts, plural(warnings, "warning"))
	}
	s := "no new lint errors"
	if len(parts) > 0 {
		s = "this edit introduces " + joinAnd(parts)
	}
	if preErrors > 0 {
		s += " (" + plural(preErrors, "pre-existing error") + ")"
	}
	if r.TypesPending {
		s += "; Go type check still running"
	}
	return s
}

// IntroducedErrors counts the error diagnostics the edit introduced, in
// the file and elsewhere.
func (r Result) IntroducedErrors() int {
	errs, _ := countSeverities(r.Introduced)
	return errs + r.elsewhereErrors()
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// elsewhereErrors counts the error diagnostics in r.Elsewhere.
func (r Result) elsewhereErrors() int {
	n := 0
	for _, f := range r.Elsewhere {
		errs, _ := countSeverities(f.Diagnostics)
		n += errs
	}
	return n
}

// WithTypes returns r with the Go type check's errors that the edit
// introduced added: here, those in the edited file, join r.Introduced (in
// order), and elsewhere, those in other files of its package, become
// r.Elsewhere. It clears TypesPending. r itself is not modified.
func (r Result) WithTypes(here []protocol.Diagnostic, elsewhere []FileDiagnostics) Result {
	if len(here) > 0 {
		r.Introduced = slices.Concat(r.Introduced, here)
		slices.SortStableFunc(r.Introduced, compareDiagnostics)
	}
	r.Elsewhere = nil
	for _, f := range elsewhere {
		if len(f.Diagnostics) > 0 {
			r.Elsewhere = append(r.Elsewhere, f)
		}
	}
	r.TypesPending = false
	return r
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

// Meta returns r as the _meta.hermes.lint object for the file at uri:
// its full set, then the errors the edit introduced in other files
// (r.Elsewhere), each marked introduced.
func (r Result) Meta(uri protocol.DocumentURI) Meta {
	m := Meta{
		Status:      r.ModelLint().Status,
		Introduced:  len(r.Introduced),
		Preexisting: len(r.Preexisting),
		Diagnostics: []FileDiagnostics{{URI: uri, Diagnostics: r.Diagnostics()}},
	}
	for _, f := range r.Elsewhere {
		ds := make([]protocol.Diagnostic, len(f.Diagnostics))
		for i, d := range f.Diagnostics {
			d.Data = map[string]any{"introduced": true}
			ds[i] = d
		}
		m.Introduced += len(ds)
		m.Diagnostics = append(m.Diagnostics, FileDiagnostics{URI: f.URI, Diagnostics: ds})
	}
	return m
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

// modelLines renders diagnostics one per line for the model, then those of
// other files (naming the file), at most maxModelLines of them.
func modelLines(ds []protocol.Diagnostic, elsewhere []FileDiagnostics) string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, modelLine(d))
	}
	for _, f := range elsewhere {
		name := uriBase(f.URI)
		for _, d := range f.Diagnostics {
			lines = append(lines, fmt.Sprintf("%s: %s (in %s, line %d, column %d)",
				modelKind(codeOf(d)), d.Message, name, d.Range.Start.Line+1, d.Range.Start.Character+1))
		}
	}
	if len(lines) > maxModelLines {
		lines = append(lines[:maxModelLines], fmt.Sprintf("... and %d more", len(lines)-maxModelLines))
	}
	return strings.Join(lines, "\n")
}

// uriBase returns the last element of a file:// URI's path, unescaped.
func uriBase(uri protocol.DocumentURI) string {
	s := string(uri)
	s = s[strings.LastIndexByte(s, '/')+1:]
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
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
	case CodeGoTypes:
		return "GoTypeError"
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
