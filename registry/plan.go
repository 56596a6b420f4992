package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Segment is a run of calls (indexes into the batch, in emission order) that
// execute either one after another or concurrently.
type Segment struct {
	Parallel bool
	Calls    []int
}

// neverParallelTools are interactive and always run alone (hermes
// _NEVER_PARALLEL_TOOLS).
var neverParallelTools = map[string]bool{"clarify": true}

// parallelSafeTools are read-only tools without shared mutable session state
// (hermes _PARALLEL_SAFE_TOOLS).
var parallelSafeTools = map[string]bool{
	"ha_get_state": true, "ha_list_entities": true, "ha_list_services": true,
	"read_file": true, "search_files": true, "session_search": true,
	"skill_view": true, "skills_list": true, "vision_analyze": true,
	"web_extract": true, "web_search": true,
}

// pathScopedTools may run in parallel only when their paths do not overlap
// (hermes _PATH_SCOPED_TOOLS).
var pathScopedTools = map[string]bool{"read_file": true, "write_file": true, "patch": true}

// Plan splits one model reply's calls into segments exactly as hermes's
// planner does, using only hermes's static tool lists (the pipeline also
// honours Entry.ParallelSafe). Calls are walked in emission order; a
// never-parallel tool, unparseable or non-object arguments, a path-scoped
// tool (read_file, write_file, patch) without a string path, and any tool
// that is not parallel-safe are sequential barriers; a path-scoped call joins
// the current parallel run unless its absolute path (relative paths are taken
// against the process's working directory, nothing is resolved) overlaps a
// path already reserved in the run, in which case a new run starts with it.
// Parallel runs shorter than two calls are demoted to sequential, and
// adjacent sequential segments merge, so order is always preserved.
func Plan(calls []*Call) []Segment {
	names := make([]string, len(calls))
	args := make([]map[string]any, len(calls))
	for i, c := range calls {
		names[i] = c.Name
		args[i] = planArgs(c.RawArgs)
	}
	return plan(names, args, func(string) bool { return false }, nil)
}

// PathResolver maps a path argument of a path-scoped tool (read_file,
// write_file, patch) to the real path it names — absolute, with no "..",
// no symbolic link — as the session's tools will resolve it; ok=false
// means it does not resolve (outside the workspace, invalid). The session
// supplies it (the agent uses its workspace's Resolve), so the planner
// compares the files the calls will really touch: "x.txt" and
// "<root>/x.txt" are one file whatever the process's working directory.
// It must be safe for concurrent use.
type PathResolver func(path string) (real string, ok bool)

// planArgs parses raw arguments strictly, as the planner's json.loads does:
// anything but a JSON object (including empty text) gives nil.
func planArgs(raw string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil || m == nil {
		return nil
	}
	return m
}

// plan is the planner over pre-parsed arguments (nil = unparseable);
// extraSafe reports tools marked parallel-safe at registration. With a
// resolver, a path-scoped call's path is resolved by it and one that does
// not resolve is a barrier (it runs alone, never assumed disjoint); without
// one, paths are taken lexically against the process's working directory
// (hermes's behaviour, [Plan]).
func plan(names []string, args []map[string]any, extraSafe func(string) bool, resolve PathResolver) []Segment {
	var (
		segments []Segment
		current  []int
		reserved []string
	)
	cwd := ""
	extendSequential := func(idx ...int) {
		if n := len(segments); n > 0 && !segments[n-1].Parallel {
			segments[n-1].Calls = append(segments[n-1].Calls, idx...)
			return
		}
		segments = append(segments, Segment{Calls: append([]int(nil), idx...)})
	}
	closeParallel := func() {
		switch {
		case len(current) >= 2:
			segments = append(segments, Segment{Parallel: true, Calls: current})
		case len(current) == 1:
			extendSequential(current...)
		}
		current, reserved = nil, nil
	}
	for i, name := range names {
		a := args[i]
		switch {
		case neverParallelTools[name] || a == nil:
			// barrier
		case pathScopedTools[name]:
			p, ok := a["path"].(string)
			if !ok || strings.TrimSpace(p) == "" {
				break // barrier
			}
			if resolve != nil {
				real, ok := resolve(p)
				if !ok || real == "" {
					break // barrier: the call reports its own error, alone
				}
				p = filepath.Clean(real)
			} else {
				if cwd == "" {
					cwd = workingDir()
				}
				p = absPath(cwd, p)
			}
			for _, r := range reserved {
				if pathsOverlap(p, r) {
					closeParallel()
					break
				}
			}
			reserved = append(reserved, p)
			current = append(current, i)
			continue
		case parallelSafeTools[name] || extraSafe(name):
			current = append(current, i)
			continue
		}
		closeParallel()
		extendSequential(i)
	}
	closeParallel()
	return segments
}

func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return string(filepath.Separator)
	}
	return wd
}

// absPath makes p absolute against cwd and cleans it lexically.
func absPath(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// pathsOverlap reports whether one cleaned absolute path is the other or an
// ancestor of it (their components share a common prefix).
func pathsOverlap(a, b string) bool {
	if a == b {
		return true
	}
	sep := string(filepath.Separator)
	under := func(child, parent string) bool {
		if !strings.HasSuffix(parent, sep) {
			parent += sep
		}
		return strings.HasPrefix(child, parent)
	}
	return under(a, b) || under(b, a)
}
