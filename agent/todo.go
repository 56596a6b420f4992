package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
)

// The todo tool is the agent's own (hermes's agent-loop tool): the list
// lives in the session, is shown to the editor as its plan and is saved
// with the conversation. Each session binds its own handler.

// todoName is the todo tool's name.
const todoName = "todo"

// Limits of the todo tool (hermes §3.7).
const (
	maxTodoItems = 256
	maxTodoChars = 4000
)

type todoItem struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

var todoStatuses = map[string]bool{"pending": true, "in_progress": true, "completed": true, "cancelled": true}

// todoParams are the todo tool's arguments: no todos reads the list.
type todoParams struct {
	Todos *[]todoArg `json:"todos"`
	Merge bool       `json:"merge"`
}

// todoArg is one item as the model sent it; a numeric id is accepted.
type todoArg struct {
	ID      any    `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// todoResult is what the model reads: the list and its counts.
type todoResult struct {
	Todos   []todoItem     `json:"todos"`
	Summary map[string]int `json:"summary"`
}

// Tools returns the agent's own tools, declared without handlers: each
// session binds them to itself. The composition root registers them with
// the built-in tools so that toolsets and listings know them.
func Tools() []registry.Entry {
	return []registry.Entry{
		todoEntry(),
		memoryEntry(),
		sessionSearchEntry(),
		delegateEntry(DelegationOptions{}, func(string) bool { return false }),
		clarifyEntry(),
		exitPlanModeEntry(),
	}
}

func todoEntry() registry.Entry {
	return registry.Entry{
		Name:    todoName,
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
		Kind:     registry.KindOther,
		ReadOnly: true, // it changes only the session's plan: plan mode runs it
		Title:    todoTitle,
		Preview:  todoPreview,
		Render:   todoRender,
	}
}

// todoTool is the todo entry bound to session s.
func (s *Session) todoTool() registry.Entry {
	e := todoEntry()
	e.Handler = func(_ context.Context, call *registry.Call) (registry.Result, error) {
		var p todoParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		return s.todo(p), nil
	}
	return e
}

// todo implements hermes's todo tool: no todos reads the list; todos replace
// it, or with merge update items by id and append new ones. Every change is
// sent to the editor as a plan.
func (s *Session) todo(p todoParams) registry.Result {
	if p.Todos != nil {
		list := *p.Todos
		items := make([]todoItem, 0, len(list))
		for i, a := range list {
			id := ""
			if a.ID != nil {
				id = strings.TrimSpace(fmt.Sprint(a.ID))
			}
			it := todoItem{ID: id, Content: a.Content, Status: a.Status}
			if it.ID == "" {
				return registry.Errorf("todos[%d].id is required", i)
			}
			if it.Status == "" {
				it.Status = "pending"
			}
			if !todoStatuses[it.Status] {
				return registry.Errorf("todos[%d].status %q is not one of pending, in_progress, completed, cancelled", i, it.Status)
			}
			if len(it.Content) > maxTodoChars {
				it.Content = it.Content[:maxTodoChars]
			}
			items = append(items, it)
		}
		s.mu.Lock()
		if p.Merge {
			for _, it := range items {
				found := false
				for j := range s.plan {
					if s.plan[j].ID == it.ID {
						if it.Content != "" {
							s.plan[j].Content = it.Content
						}
						s.plan[j].Status = it.Status
						found = true
						break
					}
				}
				if !found {
					s.plan = append(s.plan, it)
				}
			}
		} else {
			for _, it := range items {
				if it.Content == "" {
					s.mu.Unlock()
					return registry.Errorf("todo %q needs content", it.ID)
				}
			}
			s.plan = items
		}
		if len(s.plan) > maxTodoItems {
			s.plan = s.plan[:maxTodoItems]
		}
		s.mu.Unlock()
		s.sendPlan()
	}
	s.mu.Lock()
	plan := append([]todoItem{}, s.plan...)
	s.mu.Unlock()
	sum := map[string]int{"total": len(plan), "pending": 0, "in_progress": 0, "completed": 0, "cancelled": 0}
	for _, it := range plan {
		sum[it.Status]++
	}
	return registry.OK(todoResult{Todos: plan, Summary: sum})
}

// sendPlan sends the whole plan (the client replaces its copy).
func (s *Session) sendPlan() {
	s.mu.Lock()
	plan := append([]todoItem{}, s.plan...)
	s.mu.Unlock()
	s.send(acp.SessionUpdate{Plan: planUpdate(plan)})
}

func planUpdate(plan []todoItem) *acp.Plan {
	entries := make([]acp.PlanEntry, 0, len(plan))
	for _, it := range plan {
		e := acp.PlanEntry{Content: it.Content, Priority: "medium", Status: it.Status}
		if it.Status == "cancelled" {
			e.Status, e.Content = "completed", "[cancelled] "+it.Content
		}
		entries = append(entries, e)
	}
	return &acp.Plan{Entries: entries}
}

// todoTitle is "todo (N items)", or "todo" for a read.
func todoTitle(args map[string]any) string {
	todos, ok := args["todos"].([]any)
	switch {
	case !ok:
		return todoName
	case len(todos) == 1:
		return "todo (1 item)"
	}
	return fmt.Sprintf("todo (%d items)", len(todos))
}

// todoPreview shows the first items of a todo call while it runs.
func todoPreview(args map[string]any) string {
	list, _ := args["todos"].([]any)
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	for i, x := range list {
		if i == 8 {
			fmt.Fprintf(&b, "… and %d more", len(list)-8)
			break
		}
		m, _ := x.(map[string]any)
		fmt.Fprintf(&b, "- %s %s\n", todoIcon(str(m, "status")), str(m, "content"))
	}
	return strings.TrimSpace(b.String())
}

func todoIcon(status string) string {
	switch status {
	case "completed":
		return "✅"
	case "in_progress":
		return "🔄"
	case "cancelled":
		return "✗"
	}
	return "⏳"
}

// todoRender renders the list as a checklist with a progress line.
func todoRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(todoResult)
	if !ok {
		return ""
	}
	if len(res.Todos) == 0 {
		return "No todos."
	}
	var b strings.Builder
	for _, it := range res.Todos {
		fmt.Fprintf(&b, "- %s %s\n", todoIcon(it.Status), it.Content)
	}
	c := res.Summary
	fmt.Fprintf(&b, "\n**Progress:** %d completed, %d in progress, %d pending", c["completed"], c["in_progress"], c["pending"])
	if c["cancelled"] > 0 {
		fmt.Fprintf(&b, ", %d cancelled", c["cancelled"])
	}
	return b.String()
}
