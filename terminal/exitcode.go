package terminal

import (
	"regexp"
	"strings"
	"sync"
)

// exitMeanings are hermes-agent's notes for exit codes that do not mean
// the command failed (tools/terminal_tool.py, _interpret_exit_code).
var exitMeanings = map[string]map[int]string{
	"grep":      {1: "No matches found (not an error)"},
	"egrep":     {1: "No matches found (not an error)"},
	"fgrep":     {1: "No matches found (not an error)"},
	"rg":        {1: "No matches found (not an error)"},
	"ag":        {1: "No matches found (not an error)"},
	"ack":       {1: "No matches found (not an error)"},
	"diff":      {1: "Files differ (expected, not an error)"},
	"colordiff": {1: "Files differ (expected, not an error)"},
	"find":      {1: "Some directories were inaccessible (partial results may still be valid)"},
	"test":      {1: "Condition evaluated to false (expected, not an error)"},
	"[":         {1: "Condition evaluated to false (expected, not an error)"},
	"curl": {
		6:  "Could not resolve host",
		7:  "Failed to connect to host",
		22: "HTTP response code indicated error (e.g. 404, 500)",
		28: "Operation timed out",
	},
	"git": {1: "Non-zero exit (often normal — e.g. 'git diff' returns 1 when files differ)"},
}

var segmentSplitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*(?:\|\||&&|[|;])\s*`) })

// ExitMeaning returns hermes's note on a non-zero exit code that is not
// an error for the command that set it (the last of a pipeline or
// chain): grep 1 is "No matches found (not an error)". It returns "" for
// 0 and for codes that mean failure.
func ExitMeaning(command string, code int) string {
	if code == 0 {
		return ""
	}
	segs := segmentSplitRE().Split(command, -1)
	last := strings.TrimSpace(segs[len(segs)-1])
	base := ""
	for _, w := range strings.Fields(last) {
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // VAR=value
		}
		base = w[strings.LastIndexByte(w, '/')+1:]
		break
	}
	return exitMeanings[base][code]
}
