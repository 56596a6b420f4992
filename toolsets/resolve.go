package toolsets

import (
	"maps"
	"slices"
	"strings"

	"github.com/hermes-acp/hermes-acp/registry"
)

// resolver resolves names against one static table and an optional
// registry snapshot. Tests build one over their own table.
type resolver struct {
	table map[string]Toolset
	reg   *registry.Snapshot // may be nil: static toolsets only
}

func newResolver(reg *registry.Snapshot) resolver { return resolver{table: table, reg: reg} }

// Resolve returns the sorted tool names of one toolset: its own tools, the
// tools registered into it at run time, and those of the toolsets it
// includes. "all" and "*" resolve every toolset. Diamond and cyclic includes
// are visited once. Toolsets that exist only in the registry (an MCP
// server's "mcp-<server>", or an alias of it) resolve from reg, which may be
// nil. An unknown name gives no tools and false.
func Resolve(name string, reg *registry.Snapshot) ([]string, bool) {
	r := newResolver(reg)
	if !r.valid(name) {
		return []string{}, false
	}
	return r.resolve(name), true
}

// resolve is hermes's resolve_toolset for a public call.
func (r resolver) resolve(name string) []string {
	set := map[string]bool{}
	r.collect(name, map[string]bool{}, set)
	return sortedKeys(set)
}

// collect adds the tools of name to set. visited is shared along includes
// (hermes: a diamond or a cycle contributes nothing the second time).
func (r resolver) collect(name string, visited, set map[string]bool) {
	if name == "all" || name == "*" {
		for _, n := range r.names() {
			r.collect(n, maps.Clone(visited), set)
		}
		return
	}
	if visited[name] {
		return
	}
	visited[name] = true
	tools, includes, ok := r.toolset(name)
	if !ok {
		return
	}
	for _, t := range tools {
		set[t] = true
	}
	for _, inc := range includes {
		r.collect(inc, visited, set)
	}
}

// toolset returns a toolset's direct tools merged with the registry (hermes
// get_toolset): a static toolset gains the tools registered under its name
// and under the toolset its name aliases; a registry-only toolset or alias
// resolves to the registered tools.
func (r resolver) toolset(name string) (tools, includes []string, ok bool) {
	if t, ok := r.table[name]; ok {
		tools = slices.Clone(t.Tools)
		if r.reg != nil {
			tools = append(tools, r.reg.ToolsetTools(name)...)
			if target, ok := r.reg.AliasTarget(name); ok && target != name {
				tools = append(tools, r.reg.ToolsetTools(target)...)
			}
		}
		return tools, t.Includes, true
	}
	if r.reg == nil {
		return nil, nil, false
	}
	if registered := r.reg.ToolsetTools(name); len(registered) > 0 {
		return registered, nil, true
	}
	if target, ok := r.reg.AliasTarget(name); ok {
		return r.reg.ToolsetTools(target), nil, true
	}
	return nil, nil, false
}

// valid reports whether name is a toolset (hermes validate_toolset).
func (r resolver) valid(name string) bool {
	if name == "all" || name == "*" {
		return true
	}
	if _, ok := r.table[name]; ok {
		return true
	}
	if r.reg == nil {
		return false
	}
	if len(r.reg.ToolsetTools(name)) > 0 {
		return true
	}
	_, ok := r.reg.AliasTarget(name)
	return ok
}

// names returns every toolset: the static ones and those only the registry
// knows, sorted.
func (r resolver) names() []string {
	set := map[string]bool{}
	for n := range r.table {
		set[n] = true
	}
	if r.reg != nil {
		for _, n := range r.reg.Toolsets() {
			set[n] = true
		}
	}
	return sortedKeys(set)
}

// nonCoreTools returns what disabling a hermes-* bundle or a posture
// removes: its tools and those of the toolsets it includes directly, minus
// the core list (hermes bundle_non_core_tools, #33924).
func (r resolver) nonCoreTools(name string) []string {
	set := map[string]bool{}
	tools, includes, ok := r.toolset(name)
	if !ok {
		for _, t := range r.resolve(name) {
			set[t] = true
		}
	}
	for _, t := range tools {
		set[t] = true
	}
	for _, inc := range includes {
		incTools, _, _ := r.toolset(inc)
		for _, t := range incTools {
			set[t] = true
		}
	}
	for _, t := range coreTools {
		delete(set, t)
	}
	return sortedKeys(set)
}

// isBundle reports whether disabling name must keep the core tools.
func (r resolver) isBundle(name string) bool {
	return strings.HasPrefix(name, "hermes-") || r.table[name].Posture
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
