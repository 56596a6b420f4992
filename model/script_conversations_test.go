package model_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
)

const withConversations = `
replies:
  - tool_calls:
      - name: delegate_task
        arguments: {tasks: [{goal: "Task A"}, {goal: "Task B"}]}
  - text: "Both done."
conversations:
  - match: {contains: "Task A"}
    replies:
      - tool_calls:
          - name: read_file
            arguments: {path: a.txt}
      - text: "A read."
  - match: {matches: "^Task B$"}
    replies:
      - text: "B done."
`

// Each conversation is chosen by the request's first user message and
// plays its own replies by position, concurrently.
func TestScriptConversationsByFirstUserMessage(t *testing.T) {
	t.Parallel()
	s := parseScript(t, withConversations)
	for _, tc := range []struct {
		name string
		msgs []model.Message
		want string // text, or the first tool call's name
	}{
		{"the session's first reply", conv("system", "sys", "user", "delegate please"), "delegate_task"},
		{"the session's second reply", conv("system", "sys", "user", "delegate please", "assistant", "", "tool", "{}"), "Both done."},
		{"child A first", conv("system", "You are a focused subagent", "user", "Task A"), "read_file"},
		{"child A second", conv("system", "You are a focused subagent", "user", "Task A", "assistant", "", "tool", "x"), "A read."},
		{"child B", conv("system", "You are a focused subagent", "user", "Task B"), "B done."},
		{"a regexp that does not hold falls back", conv("user", "Task B, again"), "delegate_task"},
	} {
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				r, _, err := run(t.Context(), s, model.Request{Messages: tc.msgs})
				if err != nil {
					t.Errorf("%s: Stream() error = %v", tc.name, err)
					return
				}
				got := r.Text
				if len(r.ToolCalls) > 0 {
					got = r.ToolCalls[0].Name
				}
				if got != tc.want {
					t.Errorf("%s: reply = %q, want %q", tc.name, got, tc.want)
				}
			})
		}
		wg.Wait()
	}
	// Default call ids stay distinct across conversations.
	r, _, _ := run(t.Context(), s, model.Request{Messages: conv("user", "Task A")})
	if r.ToolCalls[0].ID != "call_2" {
		t.Errorf("child call id = %q, want call_2 (numbered after the session's call_1)", r.ToolCalls[0].ID)
	}
}

func TestScriptConversationExhaustedNamesIt(t *testing.T) {
	t.Parallel()
	s := parseScript(t, withConversations)
	_, _, err := run(t.Context(), s, model.Request{Messages: conv("user", "Task B", "assistant", "B done.", "user", "more")})
	var e *model.Error
	if !errors.As(err, &e) || e.Kind != model.ScriptExhausted || !strings.Contains(e.Message, "Conversation 2 (line 14)") {
		t.Fatalf("error = %v, want the exhausted conversation 2 named", err)
	}
}

func TestParseScriptConversationErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"no match", "replies: [{text: a}]\nconversations:\n  - replies: [{text: b}]\n", "test.yaml:3: a conversation needs match.contains or match.matches"},
		{"no replies", "replies: [{text: a}]\nconversations:\n  - match: {contains: x}\n", "test.yaml:3: a conversation has no replies"},
		{"bad regexp", "replies: [{text: a}]\nconversations:\n  - match: {matches: \"(\"}\n    replies: [{text: b}]\n", "test.yaml:3: match.matches is not a valid regexp"},
		{"bad reply", "replies: [{text: a}]\nconversations:\n  - match: {contains: x}\n    replies:\n      - finish: never\n", "test.yaml:5: finish \"never\""},
		{"unknown field", "replies: [{text: a}]\nconversations:\n  - match: {contains: x}\n    answers: []\n", `unknown field "answers"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.ParseScript("test.yaml", []byte(tc.src))
			var e *model.Error
			if !errors.As(err, &e) || e.Kind != model.BadConfig || !strings.Contains(e.Message, tc.want) {
				t.Errorf("ParseScript() error = %v, want %q", err, tc.want)
			}
		})
	}
}
