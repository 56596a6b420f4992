package fuzzy

import "strings"

// reindent is hermes-agent's _reindent_replacement, applied to every region a
// non-exact strategy matched. Models often send old_string and new_string at
// a different indentation than the file has (zero-indented snippets of a
// method body, two spaces where the file uses four). The file's base indent
// (leading spaces/tabs of the region's first non-blank line) replaces the
// model's base indent (that of old_string's first non-blank line) on every
// non-blank line of repl, keeping any extra indentation the model added on
// top; lines indented less than the model's base are anchored at the file's
// base; blank lines are left untouched. When the two base indents are equal,
// or either text has no non-blank line, repl is returned unchanged.
func reindent(region, oldString, repl string) string {
	if repl == "" {
		return repl
	}
	oldFirst, ok := firstMeaningfulLine(oldString)
	if !ok {
		return repl
	}
	fileFirst, ok := firstMeaningfulLine(region)
	if !ok {
		return repl
	}
	oldIndent, fileIndent := leadingBlanks(oldFirst), leadingBlanks(fileFirst)
	if oldIndent == fileIndent {
		return repl
	}
	lines := strings.Split(repl, "\n")
	for i, line := range lines {
		if Strip(line) == "" {
			continue
		}
		if strings.HasPrefix(leadingBlanks(line), oldIndent) {
			lines[i] = fileIndent + line[len(oldIndent):]
		} else {
			lines[i] = fileIndent + strings.TrimLeft(line, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// leadingBlanks returns the run of spaces and tabs that starts line.
func leadingBlanks(line string) string {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[:i]
}

// firstMeaningfulLine returns the first "\n"-separated line of text that has
// a non-whitespace character.
func firstMeaningfulLine(text string) (string, bool) {
	for line := range strings.SplitSeq(text, "\n") {
		if Strip(line) != "" {
			return line, true
		}
	}
	return "", false
}
