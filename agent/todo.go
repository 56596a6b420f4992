package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
)

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

// intercept handles the agent-loop tools the agent implements itself.
func (s *Session) intercept(_ context.Context, c *registry.Call) (string, bool) {
	switch c.Name {
	case "todo":
		return s.todo(c.Args), true
	}
	return "", false
}

// todo implements hermes's todo tool: no todos reads the list; todos replace
// it, or with merge update items by id and append new ones. Every change is
// sent to the editor as a plan.
func (s *Session) todo(args map[string]any) string {
	raw, has := args["todos"]
	if has && raw != nil {
		list, ok := raw.([]any)
		if !ok {
			return errorJSON("todos must be an array of {id, content, status} objects")
		}
		items := make([]todoItem, 0, len(list))
		for i, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				return errorJSON(fmt.Sprintf("todos[%d] must be an object with id, content and status", i))
			}
			it := todoItem{ID: strings.TrimSpace(fmt.Sprint(orEmpty(m["id"]))), Content: str(m, "content"), Status: str(m, "status")}
			if it.ID == "" {
				return errorJSON(fmt.Sprintf("todos[%d].id is required", i))
			}
			if it.Status == "" {
				it.Status = "pending"
			}
			if !todoStatuses[it.Status] {
				return errorJSON(fmt.Sprintf("todos[%d].status %q is not one of pending, in_progress, completed, cancelled", i, it.Status))
			}
			if len(it.Content) > maxTodoChars {
				it.Content = it.Content[:maxTodoChars]
			}
			items = append(items, it)
		}
		merge, _ := args["merge"].(bool)
		s.mu.Lock()
		if merge {
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
					return errorJSON(fmt.Sprintf("todo %q needs content", it.ID))
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
	return todoResult(plan)
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

func todoResult(plan []todoItem) string {
	sum := map[string]int{"total": len(plan), "pending": 0, "in_progress": 0, "completed": 0, "cancelled": 0}
	for _, it := range plan {
		sum[it.Status]++
	}
	b, _ := json.Marshal(map[string]any{"todos": plan, "summary": sum})
	return string(b)
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

// todoPreview shows the first items of a todo call while it runs.
func todoPreview(args map[string]any) []acp.ToolCallContent {
	list, _ := args["todos"].([]any)
	if len(list) == 0 {
		return nil
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
	return []acp.ToolCallContent{acp.TextContentItem(strings.TrimSpace(b.String()))}
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

// renderTodos renders a todo result as a checklist with a progress line.
func renderTodos(m map[string]any) string {
	list, _ := m["todos"].([]any)
	if len(list) == 0 {
		return "No todos."
	}
	var b strings.Builder
	counts := map[string]int{}
	for _, x := range list {
		it, _ := x.(map[string]any)
		st := str(it, "status")
		counts[st]++
		fmt.Fprintf(&b, "- %s %s\n", todoIcon(st), str(it, "content"))
	}
	fmt.Fprintf(&b, "\n**Progress:** %d completed, %d in progress, %d pending", counts["completed"], counts["in_progress"], counts["pending"])
	if counts["cancelled"] > 0 {
		fmt.Fprintf(&b, ", %d cancelled", counts["cancelled"])
	}
	return b.String()
}

func errorJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}
