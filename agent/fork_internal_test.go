package agent

import (
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
)

// TestForkEnd: a fork at a message keeps the conversation through the end
// of the turn holding it, whichever of the turn's messages (the prompt, an
// answer, its thought, a later answer) is named; an unknown id or one of a
// tool message is not a place to fork; a user message the agent added (an
// announcement, which has no id) does not end a turn.
func TestForkEnd(t *testing.T) {
	t.Parallel()
	history := []model.Message{
		{ID: "u1", Role: model.RoleUser, Content: "one"},
		{ID: "a1", Role: model.RoleAssistant, Content: "first"},
		{ID: "u2", Role: model.RoleUser, Content: "two"},
		{ID: "a2", Role: model.RoleAssistant, Thought: "hmm", ToolCalls: []model.ToolCall{{ID: "c1", Name: "echo"}}},
		{ID: "t1", Role: model.RoleTool, ToolCallID: "c1", Content: "{}"},
		{Role: model.RoleUser, Content: "[Notification from the agent, not the user]\nBackground process ended"},
		{ID: "a3", Role: model.RoleAssistant, Content: "second"},
		{ID: "u3", Role: model.RoleUser, Content: "three"},
		{ID: "a4", Role: model.RoleAssistant, Content: "third"},
	}
	for _, tc := range []struct {
		at   string
		want int
		ok   bool
	}{
		{"u1", 2, true},
		{"a1", 2, true},
		{"u2", 7, true},
		{"a2", 7, true},
		{"a2-thought", 7, true},
		{"a3", 7, true},
		{"u3", 9, true},
		{"a4", 9, true},
		{"t1", 0, false},
		{"nope", 0, false},
		{"-thought", 0, false},
	} {
		got, ok := forkEnd(history, tc.at)
		if got != tc.want || ok != tc.ok {
			t.Errorf("forkEnd(%q) = %d, %v; want %d, %v", tc.at, got, ok, tc.want, tc.ok)
		}
	}
}
