package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// toolKinds maps tool names to ACP kinds, as hermes's TOOL_KIND_MAP.
var toolKinds = map[string]acp.ToolKind{
	"read_file": acp.KindRead, "skill_view": acp.KindRead, "skills_list": acp.KindRead,
	"browser_snapshot": acp.KindRead, "browser_vision": acp.KindRead, "browser_get_images": acp.KindRead,
	"vision_analyze": acp.KindRead,
	"write_file":     acp.KindEdit, "patch": acp.KindEdit, "skill_manage": acp.KindEdit,
	"search_files": acp.KindSearch,
	"terminal":     acp.KindExecute, "process": acp.KindExecute, "execute_code": acp.KindExecute,
	"delegate_task": acp.KindExecute, "browser_click": acp.KindExecute, "browser_type": acp.KindExecute,
	"browser_scroll": acp.KindExecute, "browser_press": acp.KindExecute, "browser_back": acp.KindExecute,
	"image_generate": acp.KindExecute, "text_to_speech": acp.KindExecute,
	"web_search": acp.KindFetch, "web_extract": acp.KindFetch, "browser_navigate": acp.KindFetch,
	"todo":      acp.KindOther,
	"_thinking": acp.KindThink,
}

func kindOf(name string) acp.ToolKind {
	if k, ok := toolKinds[name]; ok {
		return k
	}
	return acp.KindOther
}

// toolCallTracker follows one tool call from its announcement to its end and
// sends the matching updates. Its methods are safe for concurrent use.
type toolCallTracker struct {
	s    *Session
	id   string // ACP tool call id (the provider's id)
	name string
	raw  string

	mu        sync.Mutex // guards the fields below
	announced bool
	args      map[string]any
	content   []acp.ToolCallContent // content set by the tool (a diff); kept at completion
	locations []acp.ToolCallLocation
	meta      acp.Meta
}

func (s *Session) newTracker(c model.ToolCall) *toolCallTracker {
	t := &toolCallTracker{s: s, id: c.ID, name: c.Name, raw: c.Arguments}
	s.mu.Lock()
	if s.trackers == nil {
		s.trackers = map[string]*toolCallTracker{}
	}
	s.trackers[c.ID] = t
	s.mu.Unlock()
	return t
}

// tracker returns the tracker of a running call.
func (s *Session) tracker(id string) *toolCallTracker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trackers[id]
}

func (s *Session) dropTrackers(calls []model.ToolCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range calls {
		delete(s.trackers, c.ID)
	}
}

// start runs as the call begins executing. Edit tools announce themselves
// with their diff (see Env.ProposeEdit); every other call is announced now
// as in progress.
func (t *toolCallTracker) start(c *registry.Call) {
	t.mu.Lock()
	t.args = argsOf(c)
	t.mu.Unlock()
	if kindOf(t.name) == acp.KindEdit {
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
		locations = toolLocations(t.s, args)
	}
	t.locations = locations
	t.mu.Unlock()
	tc := &acp.ToolCall{
		ToolCallID: t.id,
		Title:      toolTitle(t.name, args),
		Kind:       kindOf(t.name),
		Status:     status,
		Locations:  locations,
		RawInput:   rawInput(args, t.raw),
	}
	if content != nil {
		tc.Content = content
	} else {
		tc.Content = startContent(t.name, args)
	}
	t.s.send(acp.SessionUpdate{ToolCall: tc})
	return true
}

// update sends a tool_call_update with the given status and, when not nil,
// content (which replaces the previous content and is kept).
func (t *toolCallTracker) update(status acp.ToolCallStatus, content []acp.ToolCallContent) {
	t.mu.Lock()
	if content != nil {
		t.content = content
	}
	t.mu.Unlock()
	t.s.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: t.id, Status: status, Content: content}})
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
	args, kept, meta := t.args, t.content, t.meta
	t.mu.Unlock()
	failed := out.Failed || out.Cancelled || out.Blocked || toolFailed(t.name, out.Content)
	status := acp.StatusCompleted
	if failed {
		status = acp.StatusFailed
	}
	upd := &acp.ToolCallUpdate{ToolCallID: t.id, Status: status}
	rendered := completionContent(t.name, args, out.Content)
	switch {
	case kept != nil && !failed:
		// Keep the diff; add the summary below it.
		upd.Content = append(append([]acp.ToolCallContent{}, kept...), rendered...)
	case len(rendered) > 0:
		upd.Content = rendered
	}
	if !polished(t.name) && !looksJSON(out.Content) {
		upd.RawOutput = out.Content
	}
	if len(meta) > 0 {
		upd.Meta = acp.Meta{"hermes": map[string]any(meta)}
	}
	t.s.send(acp.SessionUpdate{ToolCallUpdate: upd})
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

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}

// toolTitle builds the human title of a call, as hermes's build_tool_title.
func toolTitle(name string, args map[string]any) string {
	switch name {
	case "terminal":
		if c := str(args, "command"); c != "" {
			return "terminal: " + clip(c, 80)
		}
	case "read_file":
		if p := str(args, "path"); p != "" {
			return "read: " + p
		}
	case "write_file":
		if p := str(args, "path"); p != "" {
			return "write: " + p
		}
	case "patch":
		mode := str(args, "mode")
		if mode == "" {
			mode = "replace"
		}
		if p := str(args, "path"); p != "" {
			return fmt.Sprintf("patch (%s): %s", mode, p)
		}
		return fmt.Sprintf("patch (%s)", mode)
	case "search_files":
		if p := str(args, "pattern"); p != "" {
			return "search: " + p
		}
	case "web_search":
		if q := str(args, "query"); q != "" {
			return "web search: " + q
		}
	case "web_extract":
		urls, _ := args["urls"].([]any)
		if len(urls) > 0 {
			first := urlOf(urls[0])
			if len(urls) > 1 {
				return fmt.Sprintf("extract: %s (+%d)", first, len(urls)-1)
			}
			return "extract: " + first
		}
	case "process":
		if a := str(args, "action"); a != "" {
			if sid := fmt.Sprint(args["session_id"]); args["session_id"] != nil && sid != "" {
				return fmt.Sprintf("process %s: %s", a, sid)
			}
			return "process " + a
		}
	case "delegate_task":
		if tasks, ok := args["tasks"].([]any); ok && len(tasks) > 0 {
			return fmt.Sprintf("delegate batch (%d tasks)", len(tasks))
		}
		if g := str(args, "goal"); g != "" {
			return "delegate: " + clip(g, 60)
		}
	case "session_search":
		if q := str(args, "query"); q != "" {
			return "session search: " + q
		}
		return "recent sessions"
	case "memory":
		if a := str(args, "action"); a != "" {
			return fmt.Sprintf("memory %s: %s", a, str(args, "target"))
		}
	case "execute_code":
		for _, line := range strings.Split(str(args, "code"), "\n") {
			if strings.TrimSpace(line) != "" {
				return "python: " + clip(strings.TrimSpace(line), 70)
			}
		}
	case "todo":
		if todos, ok := args["todos"].([]any); ok {
			if len(todos) == 1 {
				return "todo (1 item)"
			}
			return fmt.Sprintf("todo (%d items)", len(todos))
		}
		return "todo"
	case "skill_view":
		if n := str(args, "name"); n != "" {
			if f := str(args, "file_path"); f != "" {
				return fmt.Sprintf("skill view (%s/%s)", n, f)
			}
			return fmt.Sprintf("skill view (%s)", n)
		}
	case "skills_list":
		if c := str(args, "category"); c != "" {
			return fmt.Sprintf("skills list (%s)", c)
		}
		return "skills list"
	case "browser_navigate":
		if u := str(args, "url"); u != "" {
			return "navigate: " + u
		}
	case "vision_analyze":
		if q := str(args, "question"); q != "" {
			return "analyze image: " + clip(q, 50)
		}
	}
	return name
}

func urlOf(v any) string {
	switch u := v.(type) {
	case string:
		return u
	case map[string]any:
		for _, k := range []string{"url", "href"} {
			if s, ok := u[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return "?"
}

// toolLocations returns the call's file location (absolute path, 1-based
// line) for follow-along, or none.
func toolLocations(s *Session, args map[string]any) []acp.ToolCallLocation {
	p := str(args, "path")
	if p == "" {
		return nil
	}
	abs := p
	if s != nil && s.ws != nil {
		if wp, err := s.ws.Resolve(p); err == nil {
			abs = wp.Abs()
		} else {
			return nil
		}
	}
	loc := acp.ToolCallLocation{Path: abs}
	for _, k := range []string{"offset", "line"} {
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

// startContent is what the tool_call shows while the call runs.
func startContent(name string, args map[string]any) []acp.ToolCallContent {
	switch name {
	case "terminal":
		if c := str(args, "command"); c != "" {
			return []acp.ToolCallContent{acp.TextContentItem("$ " + c)}
		}
	case "read_file", "web_extract":
		return nil
	case "search_files":
		target := str(args, "target")
		if target == "" {
			target = "content"
		}
		path := str(args, "path")
		if path == "" {
			path = "."
		}
		return []acp.ToolCallContent{acp.TextContentItem(fmt.Sprintf("Searching for '%s' (%s) in %s", str(args, "pattern"), target, path))}
	case "write_file", "patch":
		return []acp.ToolCallContent{acp.TextContentItem(fmt.Sprintf("Preparing %s for `%s`. Approval prompt shows the diff.", name, str(args, "path")))}
	case "todo":
		return todoPreview(args)
	case "execute_code":
		code := str(args, "code")
		if len(code) > 1200 {
			code = code[:1200] + "\n# ..."
		}
		return []acp.ToolCallContent{acp.TextContentItem("```python\n" + code + "\n```")}
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
