package tools

import (
	"slices"

	"github.com/hermes-acp/hermes-acp/registry"
)

// builtins is the built-in tool table. Each tool file adds its entry at
// package initialisation with [register] — the one deliberate use of
// registration at init (like database/sql drivers); nothing changes it
// afterwards. The runtime registry is built from it with [RegisterAll].
var builtins []registry.Entry

// register adds a tool to the built-in table; it is called only from the
// top-level var declarations of tool files.
func register(e registry.Entry) struct{} {
	builtins = append(builtins, e)
	return struct{}{}
}

// Builtins returns a copy of the built-in tool table, sorted by name.
func Builtins() []registry.Entry {
	out := slices.Clone(builtins)
	slices.SortFunc(out, func(a, b registry.Entry) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// RegisterAll adds every built-in tool to r.
func RegisterAll(r *registry.Registry) error {
	for _, e := range Builtins() {
		if err := r.Register(e); err != nil {
			return err
		}
	}
	return nil
}
