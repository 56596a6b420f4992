package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/memory"
	"github.com/hermes-acp/hermes-acp/registry"
)

// The memory tool is the agent's own (hermes's agent-loop tool): durable
// notes in $HERMES_HOME/memories (package memory). A session puts the
// memory into its system prompt as it was when the session opened, and
// keeps that text for the whole session, so the prompt prefix stays the
// same turn after turn (provider prompt caches); what the session writes
// shows in the next session. Results and renderings never echo the stored
// entries.

// memoryName is the memory tool's name.
const memoryName = "memory"

// memoryParams are the memory tool's arguments (hermes's schema; new_text
// is accepted for content, as hermes does).
type memoryParams struct {
	Action     string        `json:"action"`
	Target     *string       `json:"target"`
	Content    *string       `json:"content"`
	NewText    *string       `json:"new_text"`
	OldText    *string       `json:"old_text"`
	Operations []memoryOpArg `json:"operations"`
}

type memoryOpArg struct {
	Action  string  `json:"action"`
	Content *string `json:"content"`
	NewText *string `json:"new_text"`
	OldText *string `json:"old_text"`
}

// memoryResult is what the model reads after a change: the usage, never the
// entries (hermes: echoing them invites the model to "fix" more).
type memoryResult struct {
	Success    bool   `json:"success"`
	Done       bool   `json:"done"`
	Target     string `json:"target"`
	Usage      string `json:"usage"`
	EntryCount int    `json:"entry_count"`
	Message    string `json:"message,omitempty"`
	Note       string `json:"note"`
}

// memoryFailure is a change that was not made.
type memoryFailure struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Usage   string `json:"usage,omitempty"`
}

func memoryEntry() registry.Entry {
	opProps := map[string]any{
		"action":   map[string]any{"type": "string", "enum": []any{"add", "replace", "remove"}},
		"content":  map[string]any{"type": "string", "description": "Entry content for add/replace."},
		"old_text": map[string]any{"type": "string", "description": "Substring identifying the entry for replace/remove."},
	}
	return registry.Entry{
		Name:    memoryName,
		Toolset: "memory",
		Emoji:   "🧠",
		Description: "Save durable facts to persistent memory that survive across sessions. Memory is " +
			"injected into every future turn, so keep entries compact and high-signal.\n\n" +
			"HOW: make ALL your changes in ONE call via an 'operations' array (each item: " +
			"{action, content?, old_text?}). The batch applies atomically and the char limit is " +
			"checked only on the FINAL result — so a single call can remove/replace stale entries " +
			"to free room AND add new ones, even when an add alone would overflow. The response " +
			"reports current/limit chars and confirms completion; one batch call finishes the " +
			"update, so don't repeat it. Use the bare action/content/old_text fields only for a " +
			"single lone change.\n\n" +
			"WHEN: save proactively when the user states a preference, correction, or personal " +
			"detail, or you learn a stable fact about their environment, conventions, or workflow. " +
			"Priority: user preferences & corrections > environment facts > procedures. The best " +
			"memory stops the user repeating themselves.\n\n" +
			"IF FULL: an add is rejected. Reissue as ONE batch that removes or shortens enough " +
			"stale entries (your memory is in the system prompt) and adds the new one together.\n\n" +
			"TARGETS: 'user' = who the user is (name, role, preferences, style). 'memory' = your " +
			"notes (environment, conventions, tool quirks, lessons).\n\n" +
			"SKIP: trivial/obvious info, easily re-discovered facts, raw data dumps, task progress, " +
			"completed-work logs, temporary TODO state.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"action": map[string]any{
					"type": "string", "enum": []any{"add", "replace", "remove"},
					"description": "The action to perform (single-op shape). Omit when using 'operations'.",
				},
				"target": map[string]any{
					"type": "string", "enum": []any{"memory", "user"},
					"description": "Which memory store: 'memory' for personal notes, 'user' for user profile.",
				},
				"content": map[string]any{
					"type":        "string",
					"description": "The entry content. Required for 'add' and 'replace' (single-op shape).",
				},
				"old_text": map[string]any{
					"type":        "string",
					"description": "REQUIRED for 'replace' and 'remove' (single-op shape): a short unique substring identifying the existing entry to modify. Omit only for 'add'.",
				},
				"operations": map[string]any{
					"type": "array",
					"description": "Batch shape: a list of operations applied atomically in one call " +
						"against the final char budget. Preferred when making multiple changes " +
						"or consolidating to make room. Each item is {action, content?, old_text?}.",
					"items": map[string]any{"type": "object", "properties": opProps, "required": []any{"action"}},
				},
			},
			"required": []any{"target"},
		},
		Kind:   registry.KindOther,
		Title:  memoryTitle,
		Render: memoryRender,
	}
}

// memoryTool is the memory entry bound to session s. It also takes the
// session's snapshot of the memory for its system prompt: binding happens
// once, when the session opens.
func (s *Session) memoryTool() registry.Entry {
	var store *memory.Store
	if home := s.a.opts.HermesHome; home != "" {
		store = memory.New(filepath.Join(home, "memories"))
		snap, err := store.Snapshot()
		if err != nil {
			s.log.Warn("memory snapshot", "session", s.id, "error", err)
		}
		s.mu.Lock()
		s.memory = snap
		s.mu.Unlock()
	}
	e := memoryEntry()
	e.Handler = func(_ context.Context, call *registry.Call) (registry.Result, error) {
		if store == nil {
			return memoryFailed("Memory is not available. It may be disabled in config or this environment.", ""), nil
		}
		var p memoryParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		return runMemory(store, p), nil
	}
	return e
}

// runMemory validates a call as hermes's dispatcher does and applies it.
func runMemory(store *memory.Store, p memoryParams) registry.Result {
	target := memory.TargetMemory
	if p.Target != nil {
		target = *p.Target
	}
	if !memory.ValidTarget(target) {
		return memoryFailed(fmt.Sprintf("Invalid target '%s'. Use 'memory' or 'user'.", target), "")
	}
	var ops []memory.Op
	batch := len(p.Operations) > 0
	if batch {
		for _, o := range p.Operations {
			ops = append(ops, memory.Op{Action: o.Action, Content: contentOf(o.Content, o.NewText), OldText: deref(o.OldText)})
		}
	} else {
		content, old := contentOf(p.Content, p.NewText), deref(p.OldText)
		switch p.Action {
		case "":
			return memoryFailed("Missing required parameter: give 'action' (add, replace or remove) for one change, "+
				"or 'operations' (a list of {action, content?, old_text?}) for several.", "")
		case memory.ActionAdd:
			if content == "" {
				return memoryFailed("Content is required for 'add' action.", "")
			}
		case memory.ActionReplace, memory.ActionRemove:
			if old == "" {
				return memoryFailed(fmt.Sprintf("'%[1]s' needs old_text -- a short unique substring of the entry to %[1]s. "+
					"None was provided. Reissue the %[1]s with old_text set to part of the entry you mean.", p.Action), "")
			}
			if p.Action == memory.ActionReplace && content == "" {
				return memoryFailed("content is required for 'replace' action.", "")
			}
		default:
			return memoryFailed(fmt.Sprintf("Unknown action '%s'. Use: add, replace, remove", p.Action), "")
		}
		ops = []memory.Op{{Action: p.Action, Content: content, OldText: old}}
	}
	out, err := store.Apply(target, ops, batch)
	if err != nil {
		if r, ok := err.(*memory.Refusal); ok {
			return memoryFailed(r.Message, r.Usage)
		}
		return memoryFailed(err.Error()+". Nothing was changed.", "")
	}
	return registry.OK(memoryResult{
		Success: true, Done: true, Target: out.Target, Usage: out.Usage(), EntryCount: out.Entries,
		Message: out.Message, Note: "Write saved. This update is complete — do not repeat it.",
	})
}

func memoryFailed(msg, usage string) registry.Result {
	return registry.Failed(memoryFailure{Error: msg, Usage: usage})
}

// contentOf is content, or new_text when content is absent.
func contentOf(content, newText *string) string {
	if content != nil && *content != "" {
		return *content
	}
	return deref(newText)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// memoryTitle is hermes's "memory <action>: <target>".
func memoryTitle(args map[string]any) string {
	action, _ := args["action"].(string)
	if ops, ok := args["operations"].([]any); ok && len(ops) > 0 {
		action = fmt.Sprintf("batch (%d operations)", len(ops))
		if len(ops) == 1 {
			action = "batch (1 operation)"
		}
	}
	if action == "" {
		action = "update"
	}
	target, _ := args["target"].(string)
	if target == "" {
		target = memory.TargetMemory
	}
	return fmt.Sprintf("memory %s: %s", action, target)
}

// memoryRender says what changed and how full the store is; it never shows
// the entries.
func memoryRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(memoryResult)
	if !ok {
		return ""
	}
	name := "memory"
	if res.Target == memory.TargetUser {
		name = "user profile"
	}
	entries := "entries"
	if res.EntryCount == 1 {
		entries = "entry"
	}
	return strings.TrimSpace(fmt.Sprintf("✅ %s\n\n**%s:** %s, %d %s", res.Message, name, res.Usage, res.EntryCount, entries))
}
