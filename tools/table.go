package tools

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// tool is one built-in tool: its entry (every fact, the schema, the
// description template) and decl, its spec and constructor ([declare]),
// which make its handler for a session.
type tool struct {
	entry registry.Entry
	desc  []descPart // the description, split at its {{if enabled}} blocks
	decl  registry.Declared
}

// descPart is a piece of a description: text shown always (when is "") or
// only when the tool named when is enabled.
type descPart struct {
	text, when string
}

// enabledBlock is a description's {{if enabled "tool"}}…{{end}} block. The
// syntax is text/template's, but descriptions need nothing else, and
// text/template's calls of methods by name would keep every method of every
// type in the binary (the linker cannot drop them): 10 MB more binary and
// 8 MiB more memory.
var enabledBlock = regexp.MustCompile(`(?s)\{\{if enabled "([A-Za-z0-9_-]+)"\}\}(.*?)\{\{end\}\}`)

// builtins is the built-in tool table. Each tool file adds its tool at
// package initialisation with [declare] — the one deliberate use of
// registration at init (like database/sql drivers); nothing changes it
// afterwards.
var builtins []tool

// declare adds a tool declared with its constructor to the built-in table:
// t's spec says every fact about the tool (its schema derived from its
// params struct) and t.New makes its handler from D, the dependencies the
// tool declares — a small interface the session's services implement
// ([services]); t.Available (or t.SharedCheck) is its one availability
// rule. It is called only from the top-level var declarations of tool
// files. In the entry's Description, {{if enabled "terminal"}}…{{end}}
// keeps a sentence only for sessions that enable that tool (put the
// sentence's trailing space inside the block); blocks do not nest.
func declare[D any](t registry.Tool[D]) struct{} {
	addDeclared(registry.Declare(t))
	return struct{}{}
}

// addDeclared adds a declared tool to the built-in table.
func addDeclared(d registry.Declared) {
	e := d.Declaration()
	builtins = append(builtins, tool{entry: e, desc: splitDescription(e), decl: d})
}

// splitDescription splits e's description at its {{if enabled}} blocks.
func splitDescription(e registry.Entry) []descPart {
	if rest := enabledBlock.ReplaceAllString(e.Description, ""); strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
		panic("tools: the description of " + e.Name + " has a {{…}} that is not an {{if enabled \"tool\"}}…{{end}} block")
	}
	var desc []descPart
	rest := e.Description
	for _, m := range enabledBlock.FindAllStringSubmatchIndex(e.Description, -1) {
		desc = append(desc, descPart{text: e.Description[len(e.Description)-len(rest) : m[0]]},
			descPart{text: e.Description[m[4]:m[5]], when: e.Description[m[2]:m[3]]})
		rest = e.Description[m[1]:]
	}
	desc = append(desc, descPart{text: rest})
	return desc
}

// execute_code (issue #16): availableOnly marks the tools whose
// {{if enabled}} blocks also need the named tool to be available (its
// session check passes), not only enabled: execute_code's description
// lists only the functions a script can really use.
var availableOnly = map[string]bool{executeCodeName: true}

// usable reports whether tool name is enabled in s and s can run it (its
// Available rule passes), even in the ungated session of [Entries].
func (s *session) usable(name string) bool {
	if !s.Enabled(name) {
		return false
	}
	for _, t := range builtins {
		if t.entry.Name == name {
			return t.decl.Unavailable(s.services()) == nil
		}
	}
	return true
}

// Entries returns the built-in tools' entries, sorted by name, declared but
// not bound to a session (no handler): what a registry lists before any
// session exists. Descriptions are as for a session with every tool enabled.
func Entries() []registry.Entry {
	out := make([]registry.Entry, 0, len(builtins))
	all := newSession(Deps{})
	all.ungated = true // every tool, whether or not a session could run it
	for _, t := range sorted() {
		e := t.entry
		e.Description = t.description(all)
		// A session without services: what the process offers (the
		// environment's web credentials, a browser found here), for
		// `hermes-acp tools`.
		if c := t.decl.Check(all.services()); c != nil {
			e.Check = c
		}
		out = append(out, e)
	}
	return out
}

// Bind returns the built-in tools bound to one session's dependencies: the
// entries of the tools the session enables, with handlers and descriptions
// for that session, and the hooks their per-session state needs. The agent
// registers them over the declared entries of the session's registry.
func Bind(d Deps) ([]registry.Entry, []registry.Hook) {
	s := newSession(d)
	var out []registry.Entry
	for _, t := range sorted() {
		if !s.Deps.Enabled(t.entry.Name) { // a selected tool the session cannot run is bound unavailable
			continue
		}
		e, err := t.decl.Bind(s.services()) // a tool the session cannot run is bound with a failing Check
		if err != nil {
			panic("tools: " + err.Error()) // services lacks a tool's dependencies: a bug of this package
		}
		e.Handler = s.withoutAbsentToolsIn(e.Handler)
		e.Description = t.description(s)
		out = append(out, e)
	}
	return out, []registry.Hook{registry.HookFuncs{PreFunc: func(_ context.Context, c *registry.Call) (bool, string) {
		s.reads.noteToolCall(c.Name)
		return false, ""
	}}}
}

// canRun reports whether session s can run the built-in tool name: false
// only for a tool whose availability rule refuses s.
func (s *session) canRun(name string) bool {
	for _, t := range builtins {
		if t.entry.Name != name {
			continue
		}
		if t.entry.Toolset == browserToolset {
			return s.browserOK() // looked up once per session, for descriptions and hints
		}
		return t.decl.Unavailable(s.services()) == nil
	}
	return true
}

// sorted returns the table sorted by name.
func sorted() []tool {
	out := slices.Clone(builtins)
	slices.SortFunc(out, func(a, b tool) int { return strings.Compare(a.entry.Name, b.entry.Name) })
	return out
}

// description renders t's description for session s.
func (t tool) description(s *session) string {
	var b strings.Builder
	b.Grow(len(t.entry.Description))
	for _, p := range t.desc {
		if p.when == "" || (availableOnly[t.entry.Name] && s.usable(p.when)) || (!availableOnly[t.entry.Name] && s.Enabled(p.when)) {
			b.WriteString(p.text)
		}
	}
	return strings.TrimSpace(b.String())
}

// handler makes t's handler for session s, as [Bind] does.
func (t tool) handler(s *session) registry.Handler {
	e, err := t.decl.Bind(s.services())
	if err != nil {
		panic("tools: " + err.Error()) // services lacks a tool's dependencies: a bug of this package
	}
	return s.withoutAbsentToolsIn(e.Handler)
}

// withoutAbsentToolsIn wraps a tool's handler h: see withoutAbsentTools.
func (s *session) withoutAbsentToolsIn(h registry.Handler) registry.Handler {
	return func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		r, err := h(ctx, call)
		return s.withoutAbsentTools(r), err
	}
}

// withoutAbsentTools drops, from a failed result's message, the workspace's
// advice to use a terminal when the session has none.
func (s *session) withoutAbsentTools(r registry.Result) registry.Result {
	if !r.IsError || s.Enabled("terminal") {
		return r
	}
	strip := func(msg string) string {
		for _, h := range workspace.TerminalHints {
			msg = strings.ReplaceAll(msg, h, "")
		}
		return msg
	}
	switch v := r.Value.(type) {
	case patchFailureResult:
		v.Error = strip(v.Error)
		r.Value = v
	default:
		if msg := r.ErrorMessage(); msg != "" {
			if m := strip(msg); m != msg {
				out := registry.Error(m)
				out.Hint, out.Data = r.Hint, r.Data
				return out
			}
		}
	}
	return r
}
