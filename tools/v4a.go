package tools

import "github.com/hermes-acp/hermes-acp/internal/diff"

// This file holds the unified diff every patch result shows. The V4A patch
// format behind the patch tool's "patch" mode is package
// tools/internal/v4a.

// pathDiff returns the unified diff from old to new of the file at path,
// with "--- a/<path>" and "+++ b/<path>" headers, "@@ -l,n +l,n @@" hunks and
// three lines of context, exactly as Python's difflib.unified_diff computes
// it (see [diff.Unified]). A last line without newline is followed by
// "\ No newline at end of file". Equal texts give "". pathDiff is safe
// for concurrent use.
func pathDiff(path, old, new string) string {
	return unifiedDiff("a/"+path, "b/"+path, old, new)
}

// unifiedDiff is pathDiff with explicit header names.
func unifiedDiff(fromName, toName, old, new string) string {
	return diff.Unified(fromName, toName, old, new, 3)
}
