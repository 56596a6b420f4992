package agent

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// toolCallTracker follows one tool call from its announcement to its end and
// sends the matching updates. Its methods are safe for concurrent use.
type toolCallTracker struct {
	s     *Session
	id    string // ACP tool call id (the provider's id)
	name  string
	raw   string
	entry registry.Entry // the tool's facts; zero for an unknown tool
	// label prefixes the title of a delegated child's call ("[1] "), and
	// parent is the id of the delegate_task call it belongs to, sent as
	// _meta.hermes.parentToolCallId (agent/delegate.go); both "" otherwise.
	label, parent string

	mu        sync.Mutex // guards the fields below
	announced bool
	args      map[string]any
	content   []acp.ToolCallContent // content set by the tool (a diff); kept at completion
	locations []acp.ToolCallLocation
	meta      acp.Meta
	// terminalID is the editor terminal the call runs in (kept as its
	// content at the end); stream is the output the agent streams for it.
	terminalID string
	stream     *outputStream
	changed    []string // files of the call's approved edits (a child's result lists them)
	// What the editor was shown, kept for the replay (agent/replay.go): the
	// tool_call as announced, the update that completed the call, the
	// output of its editor terminal, and the session's plan count when the
	// call began (a plan sent while it ran is part of its card).
	shownCall  *acp.ToolCall
	shownEnd   *acp.ToolCallUpdate
	termOutput string
	planGen    int
}

func (s *Session) newTracker(c model.ToolCall) *toolCallTracker {
	t := &toolCallTracker{s: s, id: c.ID, name: c.Name, raw: c.Arguments}
	if s.reg != nil {
		t.entry, _ = s.reg.Snapshot().Lookup(c.Name)
	}
	s.mu.Lock()
	t.planGen = s.planGen
	s.mu.Unlock()
	s.calls.add(t)
	return t
}

// tracker returns the tracker of a running call.
func (s *Session) tracker(id string) *toolCallTracker { return s.calls.get(id) }

func (s *Session) dropTrackers(calls []model.ToolCall) {
	for _, c := range calls {
		s.calls.drop(c.ID)
	}
}

// callTrackers are the trackers of a session's running calls, by tool call
// id: the editor terminals and output streams of a call find its card
// there. It has its own lock, taken for every chunk of a command's output,
// so that output never waits for the session's lock. Its methods are safe
// for concurrent use.
type callTrackers struct {
	mu   sync.Mutex // guards byID
	byID map[string]*toolCallTracker
}

// add registers running calls.
func (c *callTrackers) add(ts ...*toolCallTracker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string]*toolCallTracker{}
	}
	for _, t := range ts {
		c.byID[t.id] = t
	}
}

// get returns the tracker of a running call; nil when it is not running.
func (c *callTrackers) get(id string) *toolCallTracker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byID[id]
}

// drop forgets a call that ended.
func (c *callTrackers) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}

// start runs as the call begins executing. Edit tools announce themselves
// with their diff (see Env.ProposeEdit); every other call is announced now
// as in progress.
func (t *toolCallTracker) start(c *registry.Call) {
	t.mu.Lock()
	t.args = argsOf(c)
	t.mu.Unlock()
	if t.entry.Kind == registry.KindEdit {
		return
	}
	t.announce(acp.StatusInProgress, nil, nil)
}

// announce sends the tool_call once. content and locations, when given,
// replace the defaults (an edit's diff and target).
func (t *toolCallTracker) announce(status acp.ToolCallStatus, content []acp.ToolCallContent, locations []acp.ToolCallLocation) bool {
	t.mu.Lock()
	if t.announced {
		t.mu.Unlock()
		return false
	}
	t.announced = true
	args := t.args
	if args == nil {
		args = parseArgsLenient(t.raw)
		t.args = args
	}
	if content != nil {
		t.content = content
	}
	if locations == nil {
		locations = t.pathLocations(args)
	}
	t.locations = locations
	t.mu.Unlock()
	tc := &acp.ToolCall{
		ToolCallID: t.id,
		Title:      t.label + t.title(args),
		Name:       t.name,
		Kind:       t.kind(),
		Status:     status,
		Locations:  locations,
		RawInput:   rawInput(args, t.raw),
		Meta:       t.hermesMeta(nil),
	}
	if content != nil {
		tc.Content = content
	} else {
		tc.Content = t.preview(args)
	}
	shown := *tc
	t.mu.Lock()
	t.shownCall = &shown
	t.mu.Unlock()
	t.s.send(acp.SessionUpdate{ToolCall: tc})
	return true
}

// update sends a tool_call_update with the given status and, when not nil,
// content (which replaces the previous content and is kept).
func (t *toolCallTracker) update(status acp.ToolCallStatus, content []acp.ToolCallContent) {
	t.s.send(t.keep(status, content))
}

// postUpdate is update for a caller holding a lock: it does not wait for
// the update to be written (the session's sender keeps the order).
func (t *toolCallTracker) postUpdate(status acp.ToolCallStatus, content []acp.ToolCallContent) {
	t.s.post(t.keep(status, content))
}

func (t *toolCallTracker) keep(status acp.ToolCallStatus, content []acp.ToolCallContent) acp.SessionUpdate {
	t.mu.Lock()
	if content != nil {
		t.content = content
	}
	t.mu.Unlock()
	return acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: t.id, Status: status, Content: content}}
}

// finish sends the completing update as soon as the call returned.
func (t *toolCallTracker) finish(c *registry.Call, out registry.Outcome) {
	if c.Args != nil {
		t.mu.Lock()
		t.args = c.Args
		t.mu.Unlock()
	}
	t.announce(acp.StatusPending, nil, nil)
	t.mu.Lock()
	args, kept, meta, term, stream := t.args, t.content, t.meta, t.terminalID, t.stream
	t.mu.Unlock()
	if stream != nil {
		stream.close()
	}
	failed := out.Failed || out.Cancelled || out.Blocked
	status := acp.StatusCompleted
	if failed {
		status = acp.StatusFailed
	}
	upd := &acp.ToolCallUpdate{ToolCallID: t.id, Status: status}
	rendered := t.completion(args, out)
	switch {
	case term != "":
		// The editor's terminal shows the output and how it ended.
		upd.Content = []acp.ToolCallContent{{TerminalID: term}}
	case kept != nil && !failed:
		// Keep the diff; add the summary below it.
		upd.Content = append(append([]acp.ToolCallContent{}, kept...), rendered...)
	case len(rendered) > 0:
		upd.Content = rendered
	}
	if t.entry.Render == nil && !looksJSON(out.Content) {
		upd.RawOutput = out.Content
	}
	upd.Meta = t.hermesMeta(meta)
	shown := *upd
	t.mu.Lock()
	t.shownEnd = &shown
	t.mu.Unlock()
	t.s.send(acp.SessionUpdate{ToolCallUpdate: upd})
}

// hermesMeta is the _meta of the call's updates: {"hermes": meta}, plus
// parentToolCallId for a delegated child's call; nil when there is nothing.
func (t *toolCallTracker) hermesMeta(meta acp.Meta) acp.Meta {
	if len(meta) == 0 && t.parent == "" {
		return nil
	}
	h := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		h[k] = v
	}
	if t.parent != "" {
		h["parentToolCallId"] = t.parent
	}
	return acp.Meta{"hermes": h}
}

// argsOf returns the call's arguments, parsing them leniently when the
// pipeline has not.
func argsOf(c *registry.Call) map[string]any {
	if c.Args != nil {
		return c.Args
	}
	return parseArgsLenient(c.RawArgs)
}

func parseArgsLenient(raw string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil {
		return nil
	}
	return m
}

// rawInput is the call's arguments for the editor: the object, or the raw
// text when it is not a JSON object.
func rawInput(args map[string]any, raw string) any {
	if args != nil {
		return args
	}
	if strings.TrimSpace(raw) == "" {
		return map[string]any{}
	}
	return raw
}

func str(args map[string]any, key string) string {
	if v, ok := args[key].(string); ok {
		return v
	}
	return ""
}

// kind is the ACP kind of the call's tool.
func (t *toolCallTracker) kind() acp.ToolKind {
	if t.entry.Kind == "" {
		return acp.KindOther
	}
	return acp.ToolKind(t.entry.Kind)
}

// title is the human title of the call: the tool's own, else its name.
func (t *toolCallTracker) title(args map[string]any) string {
	if t.entry.Title != nil {
		if s := t.safeText("title", func() string { return t.entry.Title(args) }); s != "" {
			return s
		}
	}
	return t.name
}

// locations returns the file the call touches (absolute path, 1-based line)
// for follow-along: the tool's path argument resolved in the session's
// workspace, or none.
func (t *toolCallTracker) pathLocations(args map[string]any) []acp.ToolCallLocation {
	p := str(args, t.entry.PathArg)
	if t.entry.PathArg == "" || p == "" || t.s == nil || t.s.ws == nil {
		return nil
	}
	wp, err := t.s.ws.Resolve(p)
	if err != nil {
		return nil
	}
	loc := acp.ToolCallLocation{Path: wp.Abs()}
	for _, k := range t.entry.LineArgs {
		if n, ok := intArg(args[k]); ok && n > 0 {
			loc.Line = &n
			break
		}
	}
	return []acp.ToolCallLocation{loc}
}

func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	case int64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// preview is what the tool_call shows while the call runs: the tool's own
// preview, else its arguments.
func (t *toolCallTracker) preview(args map[string]any) []acp.ToolCallContent {
	if t.entry.Preview != nil {
		if text := t.safeText("preview", func() string { return t.entry.Preview(args) }); text != "" {
			return []acp.ToolCallContent{acp.TextContentItem(text)}
		}
		return nil
	}
	if len(args) == 0 {
		return nil
	}
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return nil
	}
	text := string(b)
	if len(text) > 1200 {
		text = text[:1200] + "\n..."
	}
	return []acp.ToolCallContent{acp.TextContentItem(text)}
}

// restoreTitle puts back the call's own title, kind and preview after a
// permission request showed its own, with status.
func (t *toolCallTracker) restoreTitle(status acp.ToolCallStatus) {
	t.mu.Lock()
	args := t.args
	t.mu.Unlock()
	title := t.title(args)
	content := t.preview(args)
	if content == nil {
		content = []acp.ToolCallContent{}
	}
	t.s.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: t.id, Title: &title, Kind: t.kind(), Status: status, Content: content}})
}
