package diff

import (
	"strconv"
	"strings"
)

// Unified returns the unified diff from a to b with "--- fromName" and
// "+++ toName" headers, "@@ -l,n +l,n @@" hunks and context lines of
// context, exactly as Python's difflib.unified_diff computes it over lines
// split after each "\n" (a single-line range is written "l" rather than
// "l,1"; a CR stays part of its line). A last line without "\n" is followed
// by "\ No newline at end of file", as in git. Equal texts give "".
func Unified(fromName, toName, a, b string, context int) string {
	la, lb := splitAfterNewlines(a), splitAfterNewlines(b)
	var lines Interner[string]
	ia, ib := lines.IDs(la), lines.IDs(lb)
	groups := NewMatcher(ia, ib, lines.Len()).GroupedOpcodes(context)
	if len(groups) == 0 {
		return ""
	}
	var out strings.Builder
	out.WriteString("--- " + fromName + "\n+++ " + toName + "\n")
	line := func(prefix byte, l string) {
		out.WriteByte(prefix)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		out.WriteString("@@ -" + unifiedRange(first.I1, last.I2) + " +" + unifiedRange(first.J1, last.J2) + " @@\n")
		for _, c := range g {
			if c.Op == Equal {
				for _, l := range la[c.I1:c.I2] {
					line(' ', l)
				}
				continue
			}
			if c.Op == Replace || c.Op == Delete {
				for _, l := range la[c.I1:c.I2] {
					line('-', l)
				}
			}
			if c.Op == Replace || c.Op == Insert {
				for _, l := range lb[c.J1:c.J2] {
					line('+', l)
				}
			}
		}
	}
	return out.String()
}

// unifiedRange is difflib's _format_range_unified.
func unifiedRange(start, stop int) string {
	beginning, length := start+1, stop-start
	if length == 1 {
		return strconv.Itoa(beginning)
	}
	if length == 0 {
		beginning--
	}
	return strconv.Itoa(beginning) + "," + strconv.Itoa(length)
}

// splitAfterNewlines splits s into lines that keep their "\n"; a last line
// without one counts too, and "" has no lines.
func splitAfterNewlines(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
