package registry

import (
	"path/filepath"
	"strings"
)

// Segment is a run of calls (indexes into the batch, in emission order) that
// execute either one after another or concurrently.
type Segment struct {
	Parallel bool
	Calls    []int
}

// PathResolver maps the path argument of a path-scoped tool (an entry with
// a PathArg) to the real path it names — absolute, with no "..",
// no symbolic link — as the session's tools will resolve it; ok=false
// means it does not resolve (outside the workspace, invalid). The session
// supplies it (the agent uses its workspace's Resolve), so the planner
// compares the files the calls will really touch: "x.txt" and
// "<root>/x.txt" are one file whatever the process's working directory.
// It must be safe for concurrent use.
type PathResolver func(path string) (real string, ok bool)

// planned is what the planner knows of one call: its tool's facts, its
// parsed arguments (nil: unparseable, not an object, or empty) and, for a
// path-scoped call, the real path its path argument names ("" when it is
// missing or does not resolve).
type planned struct {
	parallelSafe bool
	pathArg      string
	args         map[string]any
	real         string
}

// path returns the path argument of a path-scoped call with parsed
// arguments, "" when there is none.
func (c planned) path() string {
	if c.pathArg == "" || c.args == nil {
		return ""
	}
	p, _ := c.args[c.pathArg].(string)
	if strings.TrimSpace(p) == "" {
		return ""
	}
	return p
}

// segment splits one model reply's calls into segments as hermes's planner
// does, from the facts of each call's entry, once the session has resolved
// their paths (planned.real; see [Turn.plan]). Calls are walked in emission
// order; unparseable or non-object arguments, a path-scoped call (its entry
// has a PathArg) whose path is missing, empty or does not resolve, and any
// call of a tool that is neither path-scoped nor parallel-safe are
// sequential barriers. A path-scoped call joins the current parallel run
// unless its path, resolved by the session (real, absolute), overlaps one
// already reserved in the run, in which case a new run starts with it.
// Without a resolver every path-scoped call is a barrier: paths are never
// compared lexically against the process's working directory, which is not
// the session's. Parallel runs shorter than two calls are demoted to
// sequential, and adjacent sequential segments merge, so order is always
// preserved.
func segment(calls []planned) []Segment {
	var (
		segments []Segment
		current  []int
		reserved []string
	)
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
	for i, c := range calls {
		switch {
		case c.args == nil:
			// barrier
		case c.pathArg != "":
			if c.real == "" {
				break // barrier: no path, or it does not resolve (the call reports its own error, alone)
			}
			p := filepath.Clean(c.real)
			for _, r := range reserved {
				if pathsOverlap(p, r) {
					closeParallel()
					break
				}
			}
			reserved = append(reserved, p)
			current = append(current, i)
			continue
		case c.parallelSafe:
			current = append(current, i)
			continue
		}
		closeParallel()
		extendSequential(i)
	}
	closeParallel()
	return segments
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
