// Package toolsets names groups of tools the way hermes-agent does and turns
// a configuration's enabled and disabled toolsets into the tool names a
// session offers the model.
//
// The static table holds hermes's toolsets: the editor bundle "hermes-acp",
// the basic toolsets ("web", "file", "terminal", …), composites built with
// includes ("debugging", "safe", "hermes-gateway"), the "coding" posture
// and the platform bundles that share hermes's core tool list. "all" and "*"
// stand for every toolset, and hermes's legacy "*_tools" names are accepted.
// Tools registered at run time (MCP servers, plugins) are merged in from a
// [registry.Snapshot]: into a static toolset of the same name, or as
// toolsets of their own ("mcp-<server>", reachable through aliases).
//
// Everything here is a pure function of its arguments and the immutable
// table; it is safe for concurrent use.
package toolsets
