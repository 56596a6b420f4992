package toolsets

import (
	"fmt"

	"github.com/hermes-acp/hermes-acp/registry"
)

// Select turns a configuration's toolsets into tool names, as hermes's
// get_tool_definitions does. Each enabled name may be a toolset (including
// "all"/"*" and registry-only toolsets) or a legacy "*_tools" name; unknown
// names are ignored with a warning. Nil enabled means every toolset. The
// disabled toolsets are subtracted last, so they win over anything enabled;
// disabling a hermes-* bundle or a posture such as "coding" removes only its
// tools outside the core list, so the core tools other toolsets share
// survive. The result is sorted and never nil; it may name tools that are
// not registered or not available — [registry.Registry.Definitions] drops
// those.
func Select(enabled, disabled []string, reg *registry.Snapshot) (tools []string, warnings []string) {
	r := newResolver(reg)
	set := map[string]bool{}
	add := func(names []string) {
		for _, n := range names {
			set[n] = true
		}
	}
	if enabled == nil {
		add(r.resolve("all"))
	}
	for _, name := range enabled {
		switch legacy, isLegacy := legacyToolsets[name]; {
		case r.valid(name):
			add(r.resolve(name))
		case isLegacy:
			add(legacy)
		default:
			warnings = append(warnings, fmt.Sprintf("unknown toolset %q ignored", name))
		}
	}
	for _, name := range disabled {
		var remove []string
		switch legacy, isLegacy := legacyToolsets[name]; {
		case r.valid(name) && r.isBundle(name):
			remove = r.nonCoreTools(name)
		case r.valid(name):
			remove = r.resolve(name)
		case isLegacy:
			remove = legacy
		default:
			warnings = append(warnings, fmt.Sprintf("unknown disabled toolset %q ignored", name))
		}
		for _, t := range remove {
			delete(set, t)
		}
	}
	return sortedKeys(set), warnings
}
