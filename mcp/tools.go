package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/registry"
)

// maxToolNameLen is the longest tool name the model APIs accept.
const maxToolNameLen = 64

// apply registers tools and removes the server's tools that are gone. A
// tool keeps its registry name while it exists; names are reserved under
// regMu, so registry calls happen outside it.
func (c *conn) apply(tools []*mcpsdk.Tool) {
	m := c.set
	reg := m.opts.Registry
	snap := reg.Snapshot()
	m.regMu.Lock()
	old := c.names
	next := make(map[string]string, len(tools))
	for _, t := range tools {
		if n, ok := old[t.Name]; ok {
			next[t.Name] = n
		}
	}
	for _, t := range tools {
		if _, ok := next[t.Name]; ok {
			continue
		}
		n := uniqueToolName(toolName(c.server.Name, t.Name), func(n string) bool {
			_, taken := m.reserved[n]
			return taken || snap.Has(n)
		})
		m.reserved[n] = c
		next[t.Name] = n
	}
	var gone []string
	for tool, n := range old {
		if _, ok := next[tool]; !ok {
			gone = append(gone, n)
		}
	}
	c.names = next
	m.regMu.Unlock()

	registered := 0
	for _, t := range tools {
		err := reg.Register(registry.Entry{
			Name:           next[t.Name],
			Toolset:        c.toolset,
			Description:    description(c.server.Name, t),
			Schema:         toolSchema(t.InputSchema),
			Handler:        c.handler(t.Name),
			MaxResultChars: registry.DefaultMCPResultChars,
			ParallelSafe:   c.server.ParallelToolCalls,
			// The server's annotations: a read-only, idempotent tool's
			// identical results count as no progress for the guardrails.
			ReadOnly:   t.Annotations != nil && t.Annotations.ReadOnlyHint,
			Idempotent: t.Annotations != nil && t.Annotations.ReadOnlyHint && t.Annotations.IdempotentHint,
		})
		if err != nil {
			m.log.Warn("MCP tool not registered", "server", c.server.Name, "tool", t.Name, "error", err)
			continue
		}
		registered++
	}
	c.release(gone)
	if registered > 0 && (m.opts.IsStaticToolset == nil || !m.opts.IsStaticToolset(c.server.Name)) {
		if err := reg.RegisterAlias(c.server.Name, c.toolset); err != nil {
			m.log.Warn("MCP toolset alias not registered", "server", c.server.Name, "error", err)
		}
	}
	m.log.Info("MCP tools updated", "server", c.server.Name, "tools", registered, "removed", len(gone))
}

// release deregisters names (tools of c that are gone) and frees them.
func (c *conn) release(names []string) {
	if len(names) == 0 {
		return
	}
	m := c.set
	for _, n := range names {
		m.opts.Registry.Deregister(n)
	}
	m.regMu.Lock()
	for _, n := range names {
		if m.reserved[n] == c {
			delete(m.reserved, n)
		}
	}
	m.regMu.Unlock()
}

// forget removes all of the server's tools.
func (c *conn) forget() {
	m := c.set
	m.regMu.Lock()
	names := make([]string, 0, len(c.names))
	for _, n := range c.names {
		names = append(names, n)
	}
	c.names = nil
	m.regMu.Unlock()
	c.release(names)
}

// handler is the registry handler of the server's tool: it calls the tool
// and returns what the model reads, with the server's error verdict.
func (c *conn) handler(tool string) registry.Handler {
	return func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		value, isError, err := c.call(ctx, tool, call.Args)
		if err != nil {
			return registry.Result{}, err
		}
		return toResult(value, isError), nil
	}
}

// call runs tool on the server with the turn's context (a cancelled turn
// cancels the call on the server) and returns what the model reads of the
// outcome (see [renderResult]) and whether it is an error: a server that
// is not connected or fails to run the call is an error result the model
// can act on. The Go error is the turn's, when ctx ended.
func (c *conn) call(ctx context.Context, tool string, args map[string]any) (value any, isError bool, err error) {
	cs := c.session()
	if cs == nil {
		return fmt.Sprintf("MCP server %q is not connected", c.server.Name), true, nil
	}
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, fmt.Errorf("call %s on MCP server %s: %w", tool, c.server.Name, ctx.Err())
		}
		return fmt.Sprintf("MCP server %q failed to run tool %q: %v", c.server.Name, tool, err), true, nil
	}
	value, isError = renderResult(res)
	return value, isError, nil
}

// toolName is the registry name of an MCP tool: mcp_<server>_<tool>
// with every character outside [A-Za-z0-9_-] replaced by '_', cut to 64
// characters with a hash of the full names at the end when longer.
func toolName(server, tool string) string {
	n := "mcp_" + sanitizeName(server) + "_" + sanitizeName(tool)
	if len(n) <= maxToolNameLen {
		return n
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return n[:maxToolNameLen-len(suffix)] + suffix
}

// sanitizeName replaces every character outside [A-Za-z0-9_-] by '_'.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// uniqueToolName returns base, or base with the first free suffix _2, _3, …
// (still at most 64 characters) when taken reports it in use.
func uniqueToolName(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		n := base
		if len(n)+len(suffix) > maxToolNameLen {
			n = n[:maxToolNameLen-len(suffix)]
		}
		if n += suffix; !taken(n) {
			return n
		}
	}
}

// description is the tool's description for the model, naming its server.
func description(server string, t *mcpsdk.Tool) string {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = "Tool " + t.Name + "."
	}
	return fmt.Sprintf("[MCP server %s] %s", server, desc)
}

// toolSchema returns the tool's input schema as a JSON object (nil when
// it has none or it is not an object).
func toolSchema(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}
