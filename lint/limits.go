package lint

import (
	"fmt"

	"go.lsp.dev/protocol"
)

// CodeLintLimit is the Code of the warning that content was not checked
// because it is larger, or nested deeper, than its language's parser can
// check in bounded time.
const CodeLintLimit = "lint-limit"

// Limits of the lint. The parsers are third-party code that cannot be
// interrupted, so the work one check may do is bounded before it starts: a
// file larger than its language's size limit, or nested deeper than its
// depth limit, is not given to the parser and gets one [CodeLintLimit]
// warning instead. Each limit keeps a check of the worst file under it to a
// few hundred milliseconds on the CI machine (docs/benchmarks.md, "Lint and
// fuzzy-match limits").
//
// JSON and YAML need no depth limit of their own: encoding/json and yaml.v3
// stop at depth 10 000 and take linear time to get there.
const (
	// maxTOMLDepth bounds TOML's nesting: the parts of a dotted key or a
	// table header, and the depth of arrays and inline tables.
	// BurntSushi/toml takes time quadratic or worse in each (a 48 KB header
	// of 24 000 parts took 12 s).
	maxTOMLDepth = 64
	// maxGoDepth bounds the nesting of (), [] and {} in Go; go/parser's own
	// limit is 100 000, and its time grows faster than the depth (20 000
	// parentheses took 1.3 s).
	maxGoDepth = 1000
)

// maxLintBytes returns the size above which content of lang is not checked.
func maxLintBytes(lang Language) int {
	switch lang {
	case LanguageJSON, LanguageJSONC:
		return 16 << 20
	case LanguageYAML:
		return 2 << 20
	case LanguageTOML, LanguageGoMod:
		return 1 << 20 // BurntSushi/toml reads a file of many tables at ~3 MB/s
	case LanguageGo:
		return 4 << 20
	}
	return 0
}

// overLimit returns the [CodeLintLimit] finding for content that is too
// large or too deeply nested to be checked as lang, or false.
func overLimit(lang Language, content []byte) (finding, bool) {
	f := finding{severity: protocol.DiagnosticSeverityWarning, code: CodeLintLimit}
	if limit := maxLintBytes(lang); limit > 0 && len(content) > limit {
		f.message = fmt.Sprintf("file is %s; %s files are checked up to %d MiB; not checked",
			mibString(len(content)), lang, limit>>20)
		return f, true
	}
	var at int
	switch lang {
	case LanguageTOML:
		at = tomlTooDeep(content, maxTOMLDepth)
		f.message = fmt.Sprintf("nesting deeper than %d levels (dotted key parts, table header parts, arrays or inline tables); not checked further", maxTOMLDepth)
	case LanguageGo:
		at = goTooDeep(content, maxGoDepth)
		f.message = fmt.Sprintf("nesting of (), [] and {} deeper than %d levels; not checked further", maxGoDepth)
	default:
		return finding{}, false
	}
	if at < 0 {
		return finding{}, false
	}
	f.start, f.end = at, at+1
	return f, true
}

// mibString renders a size over 1 MiB for a message.
func mibString(n int) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// tomlTooDeep returns the offset where TOML content first nests deeper than
// limit, or -1. Nesting counts open [ and { (arrays, inline tables, table
// headers) plus the dots of the key or header being read; strings and
// comments are skipped. It over-counts rather than under-counts (dots in a
// value count until the next separator), which only matters past the limit.
func tomlTooDeep(content []byte, limit int) int {
	depth, dots := 0, 0
	for i := 0; i < len(content); i++ {
		switch c := content[i]; c {
		case '#':
			for i < len(content) && content[i] != '\n' {
				i++
			}
			dots = 0
		case '"', '\'':
			i = tomlStringEnd(content, i)
		case '[', '{':
			depth++
			dots = 0
		case ']', '}':
			depth = max(0, depth-1)
			dots = 0
		case '.':
			dots++
		case '=', ',', '\n':
			dots = 0
		default:
			continue
		}
		if depth+dots > limit {
			return min(i, len(content)-1)
		}
	}
	return -1
}

// tomlStringEnd returns the offset of the last byte of the TOML string that
// starts at content[i] (a quote), or len(content) when it is unterminated.
// Basic strings (one or three double quotes) have backslash escapes;
// literal ones (one or three single quotes) do not; single-line strings
// end at a line break.
func tomlStringEnd(content []byte, i int) int {
	q := content[i]
	if i+2 < len(content) && content[i+1] == q && content[i+2] == q {
		for j := i + 3; j+2 < len(content); j++ {
			switch {
			case q == '"' && content[j] == '\\':
				j++
			case content[j] == q && content[j+1] == q && content[j+2] == q:
				return j + 2
			}
		}
		return len(content)
	}
	for j := i + 1; j < len(content); j++ {
		switch {
		case q == '"' && content[j] == '\\':
			j++
		case content[j] == q, content[j] == '\n':
			return j
		}
	}
	return len(content)
}

// goTooDeep returns the offset where Go content first nests (), [] and {}
// deeper than limit, or -1; strings, runes and comments are skipped.
func goTooDeep(content []byte, limit int) int {
	depth := 0
	for i := 0; i < len(content); i++ {
		switch c := content[i]; c {
		case '/':
			if i+1 < len(content) && content[i+1] == '/' {
				for i < len(content) && content[i] != '\n' {
					i++
				}
			} else if i+1 < len(content) && content[i+1] == '*' {
				i += 2
				for i+1 < len(content) && (content[i] != '*' || content[i+1] != '/') {
					i++
				}
				i++
			}
		case '"', '\'':
			for i++; i < len(content) && content[i] != c && content[i] != '\n'; i++ {
				if content[i] == '\\' {
					i++
				}
			}
		case '`':
			for i++; i < len(content) && content[i] != '`'; i++ {
			}
		case '(', '[', '{':
			depth++
			if depth > limit {
				return i
			}
		case ')', ']', '}':
			depth = max(0, depth-1)
		}
	}
	return -1
}
