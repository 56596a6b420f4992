package registry

import (
	"maps"
	"slices"
	"sort"
)

// Snapshot is an immutable, consistent view of a [Registry] at one moment.
// It is safe for concurrent use. Entries it returns share their Schema maps
// with the registry; callers must not mutate them.
type Snapshot struct {
	gen       uint64
	entries   map[string]*Entry
	names     []string            // sorted tool names
	toolsets  map[string][]string // toolset → sorted tool names
	tsNames   []string            // sorted toolset names
	aliases   map[string]string   // alias → toolset
	byNameIdx map[string]int      // tool name → index in names
	reader    string              // the bound tool that reads saved results back ("" = none)
}

// newSnapshot builds the derived indexes for a set of entries and aliases.
// It takes ownership of both maps.
func newSnapshot(gen uint64, entries map[string]*Entry, aliases map[string]string) *Snapshot {
	s := &Snapshot{
		gen:       gen,
		entries:   entries,
		names:     slices.Sorted(maps.Keys(entries)),
		toolsets:  make(map[string][]string),
		aliases:   aliases,
		byNameIdx: make(map[string]int, len(entries)),
	}
	for i, n := range s.names {
		s.byNameIdx[n] = i
		ts := entries[n].Toolset
		s.toolsets[ts] = append(s.toolsets[ts], n) // names are visited sorted, so each list is sorted
		if e := entries[n]; e.ReadsSavedResults && e.Handler != nil && s.reader == "" {
			s.reader = n
		}
	}
	s.tsNames = slices.Sorted(maps.Keys(s.toolsets))
	return s
}

// Generation counts registry changes; it grows with every register,
// deregister and alias change, so callers can cache derived data per value.
func (s *Snapshot) Generation() uint64 { return s.gen }

// Len returns the number of registered tools.
func (s *Snapshot) Len() int { return len(s.names) }

// Lookup returns the entry registered under name.
func (s *Snapshot) Lookup(name string) (Entry, bool) {
	e, ok := s.entries[name]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// Has reports whether a tool called name is registered.
func (s *Snapshot) Has(name string) bool {
	_, ok := s.entries[name]
	return ok
}

// Names returns every registered tool name, sorted.
func (s *Snapshot) Names() []string { return slices.Clone(s.names) }

// Toolsets returns the name of every toolset that has at least one
// registered tool, sorted.
func (s *Snapshot) Toolsets() []string { return slices.Clone(s.tsNames) }

// ToolsetTools returns the sorted names of the tools registered in toolset.
func (s *Snapshot) ToolsetTools(toolset string) []string {
	return slices.Clone(s.toolsets[toolset])
}

// AliasTarget returns the toolset an alias names (e.g. an MCP server's bare
// name for its "mcp-<name>" toolset).
func (s *Snapshot) AliasTarget(alias string) (string, bool) {
	t, ok := s.aliases[alias]
	return t, ok
}

// Aliases returns every toolset alias, sorted by alias.
func (s *Snapshot) Aliases() []string {
	out := slices.Collect(maps.Keys(s.aliases))
	sort.Strings(out)
	return out
}
