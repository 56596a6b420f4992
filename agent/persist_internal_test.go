package agent

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
)

// TestPairToolResults: a history saved up to a kill during a tool call gets
// a failed result for each unanswered call, right after the calls' answered
// results, so that the next request is one a provider accepts; a complete
// history is returned as it is.
func TestPairToolResults(t *testing.T) {
	call := func(ids ...string) model.Message {
		m := model.Message{Role: model.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, model.ToolCall{ID: id, Name: "run"})
		}
		return m
	}
	result := func(id string) model.Message {
		return model.Message{Role: model.RoleTool, ToolCallID: id, Content: "ok"}
	}
	user := model.Message{Role: model.RoleUser, Content: "go"}
	text := model.Message{Role: model.RoleAssistant, Content: "done"}
	show := func(msgs []model.Message) []string {
		var out []string
		for _, m := range msgs {
			s := string(m.Role)
			if m.ToolCallID != "" {
				s += " " + m.ToolCallID
				if m.IsError {
					s += " interrupted"
				}
			}
			for _, c := range m.ToolCalls {
				s += " call " + c.ID
			}
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []model.Message
		want []string
	}{
		{"complete", []model.Message{user, call("a", "b"), result("a"), result("b"), text},
			[]string{"user", "assistant call a call b", "tool a", "tool b", "assistant"}},
		{"killed during the second call", []model.Message{user, call("a", "b"), result("a")},
			[]string{"user", "assistant call a call b", "tool a", "tool b interrupted"}},
		{"killed, then continued", []model.Message{user, call("a"), user, call("c"), result("c"), text},
			[]string{"user", "assistant call a", "tool a interrupted", "user", "assistant call c", "tool c", "assistant"}},
		{"two gaps", []model.Message{user, call("a"), user, call("b", "c"), result("c")},
			[]string{"user", "assistant call a", "tool a interrupted", "user", "assistant call b call c", "tool c", "tool b interrupted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := pairToolResults(tc.in)
			if !slices.Equal(show(got), tc.want) {
				t.Errorf("pairToolResults = %q, want %q", show(got), tc.want)
			}
			if fmt.Sprint(show(tc.in)) != fmt.Sprint(show(in)) {
				t.Errorf("the input was changed: %q", show(tc.in))
			}
		})
	}
}
