package registry

import (
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry maps tool names to entries. It is safe for concurrent use:
// writers are serialised and publish a new immutable [Snapshot] (copy on
// write), readers load the current snapshot without locking.
type Registry struct {
	log *slog.Logger

	mu  sync.Mutex               // serialises writers of cur (Register, Deregister, RegisterAlias)
	cur atomic.Pointer[Snapshot] // read without the lock
}

// New returns an empty registry that logs through log (nil discards).
func New(log *slog.Logger) *Registry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Registry{log: log}
	r.cur.Store(newSnapshot(0, map[string]*Entry{}, map[string]string{}))
	return r
}

// Clone returns a new registry that starts with r's current tools and then
// changes independently (a session adds its MCP tools to its own clone). It
// costs one pointer copy: snapshots are immutable.
func (r *Registry) Clone() *Registry {
	c := &Registry{log: r.log}
	c.cur.Store(r.cur.Load())
	return c
}

// Snapshot returns the current consistent read view.
func (r *Registry) Snapshot() *Snapshot { return r.cur.Load() }

// Register adds e, replacing an entry of the same name in the same toolset
// (an MCP server refreshing its tools, a session binding a declared tool). A
// name owned by another toolset is refused with an error, logged naming both
// toolsets, except that MCP toolsets ("mcp-*") may replace each other's tools.
func (r *Registry) Register(e Entry) error { return r.RegisterAll(e) }

// RegisterAll registers every entry as [Registry.Register] does, publishing
// one snapshot: either all of them are registered or, on the first refusal,
// none.
func (r *Registry) RegisterAll(es ...Entry) error {
	valid := make([]*Entry, len(es))
	cur := r.cur.Load() // only to reuse schema copies: immutable, read without the lock
	for i, e := range es {
		entry, err := e.validate(cur.entries[e.Name])
		if err != nil {
			return err
		}
		valid[i] = entry
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.cur.Load()
	entries := maps.Clone(old.entries)
	aliases := old.aliases
	for _, entry := range valid {
		prev, ok := entries[entry.Name]
		if ok && prev.Toolset != entry.Toolset && !(isMCPToolset(prev.Toolset) && isMCPToolset(entry.Toolset)) {
			r.log.Error("tool registration refused: name owned by another toolset",
				"tool", entry.Name, "toolset", entry.Toolset, "owner", prev.Toolset)
			return fmt.Errorf("register %s: toolset %q would shadow the tool of toolset %q", entry.Name, entry.Toolset, prev.Toolset)
		}
		entries[entry.Name] = entry
		if ok && prev.Toolset != entry.Toolset {
			aliases = dropOrphanAliases(entries, aliases, prev.Toolset)
		}
	}
	r.cur.Store(newSnapshot(old.gen+1, entries, aliases))
	return nil
}

// Deregister removes the tool called name, if any. When it was the last tool
// of its toolset, the aliases pointing at that toolset go too.
func (r *Registry) Deregister(name string) {
	r.mu.Lock()
	old := r.cur.Load()
	prev, ok := old.entries[name]
	if !ok {
		r.mu.Unlock()
		return
	}
	entries := maps.Clone(old.entries)
	delete(entries, name)
	aliases := dropOrphanAliases(entries, old.aliases, prev.Toolset)
	r.cur.Store(newSnapshot(old.gen+1, entries, aliases))
	r.mu.Unlock()
	r.log.Debug("tool deregistered", "tool", name, "toolset", prev.Toolset)
}

// RegisterAlias makes alias another name for toolset (an MCP server's bare
// name for its "mcp-<server>" toolset). An existing alias is overwritten.
func (r *Registry) RegisterAlias(alias, toolset string) error {
	if alias == "" || toolset == "" {
		return fmt.Errorf("register alias %q: alias and toolset must be non-empty", alias)
	}
	r.mu.Lock()
	old := r.cur.Load()
	prevTarget, existed := old.aliases[alias]
	aliases := maps.Clone(old.aliases)
	aliases[alias] = toolset
	r.cur.Store(newSnapshot(old.gen+1, old.entries, aliases))
	r.mu.Unlock()
	if existed && prevTarget != toolset {
		r.log.Warn("toolset alias overwritten", "alias", alias, "old", prevTarget, "new", toolset)
	}
	return nil
}

// dropOrphanAliases returns aliases without those naming toolset when no
// entry belongs to toolset any more. It never mutates aliases.
func dropOrphanAliases(entries map[string]*Entry, aliases map[string]string, toolset string) map[string]string {
	for _, e := range entries {
		if e.Toolset == toolset {
			return aliases
		}
	}
	var out map[string]string
	for a, t := range aliases {
		if t != toolset {
			continue
		}
		if out == nil {
			out = maps.Clone(aliases)
		}
		delete(out, a)
	}
	if out == nil {
		return aliases
	}
	return out
}

func isMCPToolset(ts string) bool { return strings.HasPrefix(ts, "mcp-") }

// Definitions returns the OpenAI function definitions of the named tools
// that are registered and available, sorted by name. Nil names means every
// registered tool. Each distinct Check runs at most once per call.
func (r *Registry) Definitions(names []string) []Definition {
	s := r.Snapshot()
	var selected []bool
	if names != nil {
		selected = make([]bool, len(s.names))
		for _, n := range names {
			if i, ok := s.byNameIdx[n]; ok {
				selected[i] = true
			}
		}
	}
	var memo checkMemo
	out := make([]Definition, 0, len(s.names))
	for i, n := range s.names {
		if selected != nil && !selected[i] {
			continue
		}
		e := s.entries[n]
		if memo.reason(e) != "" {
			continue
		}
		out = append(out, Definition{Name: e.Name, Description: e.Description, Parameters: e.Schema, ParametersJSON: e.schemaJSON.get(e.Schema)})
	}
	return out
}

// Status reports every registered tool with its toolset, availability and
// the reason it is unavailable, sorted by toolset then name.
func (r *Registry) Status() []ToolStatus {
	s := r.Snapshot()
	var memo checkMemo
	out := make([]ToolStatus, 0, len(s.names))
	for _, ts := range s.tsNames {
		for _, n := range s.toolsets[ts] {
			reason := memo.reason(s.entries[n])
			out = append(out, ToolStatus{Name: n, Toolset: ts, Available: reason == "", Reason: reason})
		}
	}
	return out
}

// missingEnv says which of vars are unset or empty, "" when none is.
func missingEnv(vars []string) string {
	var missing []string
	for _, v := range vars {
		if os.Getenv(v) == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return "missing environment variable(s): " + strings.Join(missing, ", ")
	}
	return ""
}
