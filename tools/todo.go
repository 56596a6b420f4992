package tools

import "github.com/hermes-acp/hermes-acp/registry"

// The todo tool is an agent-loop tool: the agent intercepts it (it keeps the
// list per session and shows it as the editor's plan), so it has no handler.
var _ = register(registry.Entry{
	Name:    "todo",
	Toolset: "todo",
	Emoji:   "📋",
	Description: "Manage the task list for the current session. Use it for work with 3 or more steps, " +
		"to plan and to show progress: call with `todos` to replace the list (or with `merge: true` to update " +
		"items by id and append new ones), and with no arguments to read it. Keep exactly one item in_progress " +
		"while you work and mark items completed as soon as they are done. The list is shown to the user as a plan.",
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"todos": map[string]any{
				"type":        "array",
				"description": "The task items. Omit to read the current list.",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"id":      map[string]any{"type": "string", "description": "Stable item id"},
						"content": map[string]any{"type": "string", "description": "What to do (at most 4000 characters)"},
						"status":  map[string]any{"type": "string", "enum": []any{"pending", "in_progress", "completed", "cancelled"}},
					},
					"required": []any{"id", "content", "status"},
				},
			},
			"merge": map[string]any{
				"type":        "boolean",
				"default":     false,
				"description": "true: update items by id and append new ones; false: replace the whole list",
			},
		},
	},
})
