package tools

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
)

// This file holds how the editor shows the built-in tools' calls: their
// titles, what shows while they run, and their results rendered as
// Markdown (hermes's ACP tool formatting). A render function returns ""
// for a result it has no special form for; the agent then renders it
// generically. Failed results never reach them.

// strArg returns the string argument key, or "".
func strArg(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

// titleWithArg is prefix + the string argument key, or fallback when the
// call has none.
func titleWithArg(prefix string, args map[string]any, key, fallback string) string {
	if v := strArg(args, key); v != "" {
		return prefix + v
	}
	return fallback
}

// fence returns a backtick fence longer than any run of backticks in s.
func fence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// clipRunes cuts s to n characters, marking the cut with "...".
func clipRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "..."
		}
		i++
	}
	return s
}

// readFileTitle is "read: <path>".
func readFileTitle(args map[string]any) string {
	return titleWithArg("read: ", args, "path", readFileName)
}

// readFileRender shows the lines read in a fence, with the window asked
// for and the file's line count.
func readFileRender(args map[string]any, r registry.Result) string {
	res, ok := r.Value.(readFileResult)
	if !ok {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Read %s", strArg(args, "path"))
	_, hasOff := args["offset"]
	_, hasLim := args["limit"]
	offset, limit := readFilePagination(args["offset"], args["limit"])
	switch {
	case hasOff && hasLim:
		fmt.Fprintf(&b, " (from line %d, limit %d)", offset, limit)
	case hasOff:
		fmt.Fprintf(&b, " (from line %d)", offset)
	case hasLim:
		fmt.Fprintf(&b, " (limit %d)", limit)
	}
	fmt.Fprintf(&b, " — %d total lines", res.TotalLines)
	if res.Content != "" {
		f := fence(res.Content)
		fmt.Fprintf(&b, "\n\n%s\n%s\n%s", f, res.Content, f)
	}
	if res.Hint != "" {
		b.WriteString("\n\n" + res.Hint)
	}
	return b.String()
}

// searchFilesTitle is "search: <pattern>".
func searchFilesTitle(args map[string]any) string {
	return titleWithArg("search: ", args, "pattern", searchFilesName)
}

// searchFilesPreview says what is being searched where.
func searchFilesPreview(args map[string]any) string {
	target := strArg(args, "target")
	if target == "" {
		target = "content"
	}
	path := strArg(args, "path")
	if path == "" {
		path = "."
	}
	return fmt.Sprintf("Searching for '%s' (%s) in %s", strArg(args, "pattern"), target, path)
}

// searchFilesRender lists the first matches or files found.
func searchFilesRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(*searchResult)
	if !ok || res == nil {
		return ""
	}
	var b strings.Builder
	switch {
	case len(res.Matches) > 0:
		shown := min(len(res.Matches), 12)
		fmt.Fprintf(&b, "Found %d matches; showing %d", res.TotalCount, shown)
		for _, m := range res.Matches[:shown] {
			fmt.Fprintf(&b, "\n- %s:%d %s", m.Path, m.Line, clipRunes(strings.TrimSpace(m.Content), 160))
		}
	case res.MatchesText != "":
		fmt.Fprintf(&b, "Found %d matches\n\n%s", res.TotalCount, clipRunes(res.MatchesText, 3000))
	case len(res.Files) > 0:
		shown := min(len(res.Files), 20)
		fmt.Fprintf(&b, "Found %d files; showing %d", res.TotalCount, shown)
		for _, f := range res.Files[:shown] {
			fmt.Fprintf(&b, "\n- %s", f)
		}
	case len(res.Counts) > 0:
		fmt.Fprintf(&b, "Found %d matches in %d files", res.TotalCount, len(res.Counts))
	default:
		fmt.Fprintf(&b, "Found %d matches", res.TotalCount)
	}
	if res.Truncated {
		b.WriteString("\n\n(results truncated: refine the pattern or page with offset)")
	}
	return b.String()
}

// editPreview is what an editing tool shows until its diff is ready.
func editPreview(name string) func(map[string]any) string {
	return func(args map[string]any) string {
		if p := strArg(args, "path"); p != "" {
			return fmt.Sprintf("Preparing %s for `%s`. Approval prompt shows the diff.", name, p)
		}
		return fmt.Sprintf("Preparing %s. Approval prompt shows the diff.", name)
	}
}

// editRender summarises a write that landed: the file, its size, how many
// files a patch changed, new lint errors and warnings. The diff itself is
// already on the tool call.
func editRender(name string) func(map[string]any, registry.Result) string {
	return func(args map[string]any, r registry.Result) string {
		path := strArg(args, "path")
		var bytes, files int
		var lints []lint.ModelLint
		var warning string
		switch v := r.Value.(type) {
		case writeFileResult:
			path, bytes, files, warning = v.ResolvedPath, v.BytesWritten, len(v.FilesModified), v.Warning
			lints = append(lints, v.Lint)
		case patchReplaceResult:
			path, files, warning = v.ResolvedPath, len(v.FilesModified), v.Warning
			lints = append(lints, v.Lint)
		case patchV4AResult:
			if v.ResolvedPath != "" {
				path = v.ResolvedPath
			}
			// A patch that landed lists every file it touched in FilesModified.
			files, warning = len(v.FilesModified), v.Warning
			for _, f := range slices.Sorted(maps.Keys(v.Lint)) {
				l := v.Lint[f]
				if len(v.Lint) > 1 && l.Output != "" {
					l.Output = filepath.Base(f) + ": " + l.Output
				}
				lints = append(lints, l)
			}
		default:
			return ""
		}
		var b strings.Builder
		if path != "" {
			fmt.Fprintf(&b, "✅ %s completed for `%s`", name, path)
		} else {
			fmt.Fprintf(&b, "✅ %s completed", name)
		}
		if _, ok := r.Value.(writeFileResult); ok {
			fmt.Fprintf(&b, " (%d bytes)", bytes)
		}
		if files > 1 {
			fmt.Fprintf(&b, "\nFiles: %d", files)
		}
		for _, l := range lints {
			if l.Status == "error" {
				fmt.Fprintf(&b, "\n\n⚠️ Lint: %s", l.Output)
			}
		}
		if warning != "" {
			b.WriteString("\n\n⚠️ " + warning)
		}
		return b.String()
	}
}
