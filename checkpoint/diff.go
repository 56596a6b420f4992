package checkpoint

import (
	"bytes"
	"sort"

	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// The kinds of [Change].
const (
	Added    = "added"
	Modified = "modified"
	Deleted  = "deleted"
)

// Change is a file that differs between two states.
type Change struct {
	Path string
	Kind string // Added, Modified or Deleted
	// From and To are the file in the first and the second state (the zero
	// File where it is absent).
	From, To File
}

// Changes returns the files that differ from a to b, by path.
func Changes(a, b *State) []Change {
	var out []Change
	for p, fa := range a.Files {
		fb, ok := b.Files[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Kind: Deleted, From: fa})
		case fa != fb:
			out = append(out, Change{Path: p, Kind: Modified, From: fa, To: fb})
		}
	}
	for p, fb := range b.Files {
		if _, ok := a.Files[p]; !ok {
			out = append(out, Change{Path: p, Kind: Added, To: fb})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// LineCounts returns how many lines going from a to b adds and removes,
// and whether either side is binary (a NUL byte in its first 8000 bytes,
// git's test), in which case no lines are counted.
func LineCounts(a, b []byte) (added, removed int, binary bool) {
	if IsBinary(a) || IsBinary(b) {
		return 0, 0, true
	}
	m := diff.LineMap(string(a), string(b))
	kept := 0
	for _, i := range m {
		if i >= 0 {
			kept++
		}
	}
	return len(m) - kept, lineCount(a) - kept, false
}

// IsBinary reports whether content is binary by git's test: a NUL byte in
// its first 8000 bytes.
func IsBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), 8000)], 0) >= 0
}

func lineCount(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte("\n"))
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}
