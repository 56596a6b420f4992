package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Source is the Source of every diagnostic this package produces.
const Source = "hermes-lint"

// The Code of each check. They are stable: editors and tests may match on them.
const (
	CodeJSONSyntax       = "json-syntax"
	CodeJSONCSyntax      = "jsonc-syntax"
	CodeYAMLSyntax       = "yaml-syntax"
	CodeYAMLDuplicateKey = "yaml-duplicate-key"
	CodeTOMLSyntax       = "toml-syntax"
	CodeGoSyntax         = "go-syntax"
	CodeGoModSyntax      = "gomod-syntax"
	// CodeGoTypes is the code of the Go type check's errors (package
	// lint/gotypes), which this package only renders: it never
	// type-checks.
	CodeGoTypes = "go-types"
)

// finding is one problem in byte offsets, before it is mapped to LSP
// positions. start <= end <= len(content) once normalised.
type finding struct {
	start, end int
	severity   protocol.DiagnosticSeverity
	code       string
	message    string
}

// checker lints content of one language; Delta takes one so that tests can
// observe which contents get linted.
type checker func(lang Language, content []byte) []finding

// Check lints content as lang and returns its diagnostics in order (by
// position, then code, then message). It returns an empty, non-nil slice for
// clean content and for [LanguageNone]. Check never panics.
func Check(lang Language, content []byte) []protocol.Diagnostic {
	return toDiagnostics(content, check(lang, content))
}

// check is Check before position mapping.
func check(lang Language, content []byte) []finding {
	return runParser(lang, content, parserFor(lang))
}

// parserFor returns the parser of lang, or nil for [LanguageNone].
func parserFor(lang Language) func([]byte) []finding {
	switch lang {
	case LanguageJSON:
		return checkJSON
	case LanguageJSONC:
		return checkJSONC
	case LanguageYAML:
		return checkYAML
	case LanguageTOML:
		return checkTOML
	case LanguageGo:
		return checkGo
	case LanguageGoMod:
		return checkGoMod
	}
	return nil
}

// runParser runs parse on content and returns its findings clamped, sorted
// and without duplicates. Content over lang's limits (see limits.go) is not
// parsed: its one finding says so. A panic inside a (third-party) parser
// becomes an error finding at the start of the content instead of crashing
// the agent.
func runParser(lang Language, content []byte, parse func([]byte) []finding) (fs []finding) {
	if parse == nil {
		return nil
	}
	if f, over := overLimit(lang, content); over {
		return normalize([]finding{f}, len(content))
	}
	defer func() {
		if r := recover(); r != nil {
			fs = []finding{{
				severity: protocol.DiagnosticSeverityError,
				code:     syntaxCode(lang),
				message:  fmt.Sprintf("internal error in the %s parser: %v", lang, r),
			}}
		}
	}()
	return normalize(parse(content), len(content))
}

// syntaxCode returns the Code of lang's syntax check.
func syntaxCode(lang Language) string {
	switch lang {
	case LanguageJSON:
		return CodeJSONSyntax
	case LanguageJSONC:
		return CodeJSONCSyntax
	case LanguageYAML:
		return CodeYAMLSyntax
	case LanguageTOML:
		return CodeTOMLSyntax
	case LanguageGo:
		return CodeGoSyntax
	case LanguageGoMod:
		return CodeGoModSyntax
	}
	return "syntax"
}

// normalize clamps every finding into [0, size], folds multi-line messages
// onto one line, sorts them and drops exact duplicates.
func normalize(fs []finding, size int) []finding {
	for i := range fs {
		f := &fs[i]
		f.start = max(0, min(f.start, size))
		f.end = max(f.start, min(f.end, size))
		f.message = oneLine(f.message)
	}
	slices.SortFunc(fs, compareFindings)
	return slices.Compact(fs)
}

// compareFindings orders findings by start, code, message, then end.
func compareFindings(a, b finding) int {
	return cmp.Or(
		cmp.Compare(a.start, b.start),
		cmp.Compare(a.code, b.code),
		cmp.Compare(a.message, b.message),
		cmp.Compare(a.end, b.end),
		cmp.Compare(a.severity, b.severity),
	)
}

// oneLine folds each line break of a message, with the indentation after it,
// into a single space.
func oneLine(msg string) string {
	if !strings.ContainsAny(msg, "\r\n") {
		return msg
	}
	fields := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return strings.Join(slices.DeleteFunc(fields, func(s string) bool { return s == "" }), " ")
}

// toDiagnostics maps findings to LSP diagnostics over content; the result is
// never nil.
func toDiagnostics(content []byte, fs []finding) []protocol.Diagnostic {
	ds := make([]protocol.Diagnostic, 0, len(fs))
	if len(fs) == 0 {
		return ds
	}
	m := newRangeCursor(NewMapper(content))
	for _, f := range fs {
		ds = append(ds, protocol.Diagnostic{
			Range:    m.clampedRange(f.start, f.end),
			Severity: f.severity,
			Code:     f.code,
			Source:   Source,
			Message:  f.message,
		})
	}
	return ds
}

// tokenEnd returns where the token starting at off ends for a diagnostic's
// range: at the end of the run of word characters (letters, digits and
// "_.+-$") that off starts, else after the one rune at off, and never past
// the end of off's line (a line break at off is covered by itself).
func tokenEnd(content []byte, off int) int {
	if off >= len(content) {
		return len(content)
	}
	if c := content[off]; c == '\n' || c == '\r' {
		if c == '\r' && off+1 < len(content) && content[off+1] == '\n' {
			return off + 2
		}
		return off + 1
	}
	end := off + runeLen(content, off)
	if !isWordRune(content, off) {
		return end
	}
	for end < len(content) && isWordRune(content, end) {
		end += runeLen(content, end)
	}
	return end
}

// wordStart returns where the run of word characters holding off starts (off
// itself when content[off] is not a word character).
func wordStart(content []byte, off int) int {
	if off >= len(content) || !isWordRune(content, off) {
		return off
	}
	for off > 0 {
		prev := off - 1
		for prev > 0 && !startsRune(content[prev]) && off-prev < 4 {
			prev--
		}
		if !isWordRune(content, prev) {
			break
		}
		off = prev
	}
	return off
}

// lineEndFrom returns the offset of the first line break at or after off, or
// len(content).
func lineEndFrom(content []byte, off int) int {
	for i := max(off, 0); i < len(content); i++ {
		if content[i] == '\n' || content[i] == '\r' {
			return i
		}
	}
	return len(content)
}

// runeLen returns the byte length of the rune starting at off (1 for an
// invalid byte).
func runeLen(content []byte, off int) int {
	if content[off] < utf8.RuneSelf {
		return 1
	}
	_, size := utf8.DecodeRune(content[off:])
	return size
}

// startsRune reports whether b can start a UTF-8 sequence (it is not a
// continuation byte).
func startsRune(b byte) bool { return b&0xC0 != 0x80 }

// isWordRune reports whether the rune at off is a word character: a letter,
// a digit or one of "_.+-$".
func isWordRune(content []byte, off int) bool {
	c := content[off]
	if c < utf8.RuneSelf {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '.' || c == '+' || c == '-' || c == '$'
	}
	r, size := utf8.DecodeRune(content[off:])
	if r == utf8.RuneError && size == 1 {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
