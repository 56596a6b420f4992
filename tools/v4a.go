package tools

import (
	"fmt"
	"strings"
)

// This file holds the unified diff every patch result shows. The V4A patch
// format behind the patch tool's "patch" mode is package
// tools/internal/v4a.

// UnifiedDiff returns the unified diff from old to new of the file at path,
// with "--- a/<path>" and "+++ b/<path>" headers, "@@ -l,n +l,n @@" hunks and
// three lines of context, exactly as Python's difflib.unified_diff computes
// it (a single-line range is written "l" rather than "l,1"). A last line
// without newline is followed by "\ No newline at end of file". Equal texts
// give "". UnifiedDiff is safe for concurrent use.
func UnifiedDiff(path, old, new string) string {
	return unifiedDiff("a/"+path, "b/"+path, old, new)
}

// unifiedDiff is UnifiedDiff with explicit header names.
func unifiedDiff(fromName, toName, old, new string) string {
	a, b := splitKeepEnds(old), splitKeepEnds(new)
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	ia, ib := intern(a), intern(b)
	groups := newSeqMatcher(ia, ib, int32(len(ids))).groupedOpcodes(3)
	if len(groups) == 0 {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	line := func(prefix byte, l string) {
		out.WriteByte(prefix)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", unifiedRange(first.i1, last.i2), unifiedRange(first.j1, last.j2))
		for _, c := range g {
			if c.tag == opEqual {
				for _, l := range a[c.i1:c.i2] {
					line(' ', l)
				}
				continue
			}
			if c.tag == opReplace || c.tag == opDelete {
				for _, l := range a[c.i1:c.i2] {
					line('-', l)
				}
			}
			if c.tag == opReplace || c.tag == opInsert {
				for _, l := range b[c.j1:c.j2] {
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
		return fmt.Sprint(beginning)
	}
	if length == 0 {
		beginning--
	}
	return fmt.Sprintf("%d,%d", beginning, length)
}

// splitKeepEnds splits s into lines that keep their "\n".
func splitKeepEnds(s string) []string {
	var out []string
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
