package compress

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/model"
)

func user(s string) model.Message { return model.Message{Role: model.RoleUser, Content: s} }
func asst(s string) model.Message { return model.Message{Role: model.RoleAssistant, Content: s} }
func call(id string) model.Message {
	return model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}}
}
func result(id string) model.Message {
	return model.Message{Role: model.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat("x", 400)}
}

// conversation is a first exchange with a tool call, then n turns of a
// question, a tool call, its result and an answer.
func conversation(n int) []model.Message {
	h := []model.Message{user("first question"), call("c0"), result("c0"), asst("first answer")}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("c%d", i)
		h = append(h, user(fmt.Sprintf("question %d", i)), call(id), result(id), asst(fmt.Sprintf("answer %d", i)))
	}
	return h
}

// paired checks every tool result follows the call it answers (in an
// earlier assistant message of msgs) and every call has its result.
func paired(t *testing.T, msgs []model.Message) {
	t.Helper()
	open := map[string]bool{}
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
		if m.Role == model.RoleTool {
			if !open[m.ToolCallID] {
				t.Fatalf("message %d: tool result %s without its call in %v", i, m.ToolCallID, roles(msgs))
			}
			delete(open, m.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls without results: %v", open)
	}
}

func roles(msgs []model.Message) string {
	var b []string
	for _, m := range msgs {
		b = append(b, string(m.Role))
	}
	return strings.Join(b, ",")
}

func TestSelectKeepsFirstExchangeAndRecentTurns(t *testing.T) {
	h := conversation(10)
	w, ok := Select(h, State{}, 250)
	if !ok {
		t.Fatal("nothing selected")
	}
	if w.Head != 3 { // question, call and its result
		t.Errorf("head = %d, want 3 (the first exchange with its tool result)", w.Head)
	}
	if w.Tail <= w.Head || w.Tail >= len(h)-1 {
		t.Fatalf("tail = %d of %d", w.Tail, len(h))
	}
	if h[w.Tail].Role == model.RoleTool {
		t.Errorf("tail starts at a tool result: its call would be summarised")
	}
	if len(w.Middle) != w.Tail-w.Head {
		t.Errorf("middle has %d messages, want %d", len(w.Middle), w.Tail-w.Head)
	}
	st := State{Head: w.Head, Tail: w.Tail, Summary: "S"}
	view := st.View(h)
	if len(view) >= len(h) {
		t.Errorf("view has %d messages, history %d", len(view), len(h))
	}
	if view[0].Content != "first question" || !IsSummary(view[w.Head]) || view[len(view)-1].Content != "answer 10" {
		t.Errorf("view = %v", roles(view))
	}
	paired(t, view)
}

func TestSelectNeverSplitsACallFromItsResult(t *testing.T) {
	h := conversation(6)
	for budget := 0; budget < 2000; budget += 7 {
		w, ok := Select(h, State{}, budget)
		if !ok {
			continue
		}
		paired(t, State{Head: w.Head, Tail: w.Tail, Summary: "S"}.View(h))
		paired(t, w.Middle)
	}
	// A reply with several calls: the tail may not start between them.
	h = []model.Message{user("q"), asst("a"), user("q2"),
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "x"}, {ID: "y"}}},
		{Role: model.RoleTool, ToolCallID: "x", Content: "1"}, {Role: model.RoleTool, ToolCallID: "y", Content: "2"},
		asst("done")}
	w, ok := Select(h, State{}, 0)
	if !ok {
		t.Fatal("nothing selected")
	}
	if w.Tail != 3 && w.Tail != 6 {
		t.Errorf("tail = %d: between a call and its results", w.Tail)
	}
	paired(t, State{Head: w.Head, Tail: w.Tail, Summary: "S"}.View(h))
}

func TestSelectNothingToCompress(t *testing.T) {
	if _, ok := Select(conversation(0), State{}, 0); ok {
		t.Error("a conversation of its first exchange was compressed")
	}
	if _, ok := Select([]model.Message{user("q"), asst("a"), user("q2"), asst("a2")}, State{}, 1_000_000); ok {
		t.Error("recent messages within the budget were compressed")
	}
}

func TestSecondCompressionFoldsThePreviousSummary(t *testing.T) {
	h := conversation(10)
	w, _ := Select(h, State{}, 250)
	st := State{Head: w.Head, Tail: w.Tail, Summary: "FIRST SUMMARY"}
	h = append(h, conversation(10)[4:]...) // ten more turns
	w2, ok := Select(h, st, 250)
	if !ok {
		t.Fatal("nothing selected")
	}
	if w2.Head != st.Head || w2.Tail <= st.Tail {
		t.Errorf("second window %d..%d after %d..%d", w2.Head, w2.Tail, st.Head, st.Tail)
	}
	if !IsSummary(w2.Middle[0]) || !strings.Contains(w2.Middle[0].Content, "FIRST SUMMARY") {
		t.Errorf("the previous summary is not summarised again: %v", w2.Middle[0])
	}
	if len(w2.Middle) != 1+w2.Tail-st.Tail {
		t.Errorf("middle = %d messages, want the summary and history[%d:%d]", len(w2.Middle), st.Tail, w2.Tail)
	}
	if p := Prompt(w2.Middle, ""); !strings.Contains(p, "[PREVIOUS SUMMARY]:") || !strings.Contains(p, "FIRST SUMMARY") {
		t.Error("the prompt does not carry the previous summary")
	}
}

func TestViewIgnoresAStaleState(t *testing.T) {
	h := conversation(2)
	if v := (State{Head: 3, Tail: 50, Summary: "S"}).View(h); len(v) != len(h) {
		t.Errorf("a state beyond the history changed the view: %d messages", len(v))
	}
	if v := (State{}).View(h); len(v) != len(h) {
		t.Errorf("the zero state changed the view")
	}
}

func TestThresholdAndEstimate(t *testing.T) {
	for _, c := range []struct {
		length int
		share  float64
		want   int
	}{{100_000, 0, 80_000}, {100_000, 0.5, 50_000}, {4000, 0.8, 3200}, {1000, 1.5, 800}, {1000, -1, 800}} {
		if got := Threshold(c.length, c.share); got != c.want {
			t.Errorf("Threshold(%d, %v) = %d, want %d", c.length, c.share, got, c.want)
		}
	}
	if got := TailTokens(80_000); got != 16_000 {
		t.Errorf("TailTokens(80000) = %d", got)
	}
	one := Estimate([]model.Message{user(strings.Repeat("a", 4000))})
	if one < 1000 || one > 1010 {
		t.Errorf("Estimate of 4000 characters = %d tokens, want about 1000", one)
	}
	if Estimate([]model.Message{call("c")}) <= Estimate([]model.Message{asst("")}) {
		t.Error("tool-call arguments are not counted")
	}
}

func TestPromptFocusAndClipping(t *testing.T) {
	long := strings.Repeat("y", 20_000)
	p := Prompt([]model.Message{user("q"), {Role: model.RoleTool, ToolCallID: "c", Name: "t", Content: long}}, "the database schema")
	if !strings.Contains(p, `FOCUS TOPIC: "the database schema"`) {
		t.Error("focus missing from the prompt")
	}
	if strings.Contains(p, long) || !strings.Contains(p, "[truncated]") {
		t.Error("a long tool result is not clipped")
	}
	if strings.Contains(Prompt(nil, ""), "FOCUS TOPIC") {
		t.Error("focus section without a focus")
	}
}

// A long turn: one question, then only tool work. When the question is
// summarised, the summary message repeats it, also after a second
// compression.
func TestTheLatestAskSurvivesWhenSummarised(t *testing.T) {
	h := []model.Message{user("first question"), asst("first answer"), user("port the parser to Go")}
	for i := range 12 {
		id := fmt.Sprintf("w%d", i)
		h = append(h, call(id), result(id))
	}
	w, ok := Select(h, State{}, 250)
	if !ok {
		t.Fatal("nothing selected")
	}
	if w.Ask != "port the parser to Go" {
		t.Fatalf("ask = %q", w.Ask)
	}
	st := State{Head: w.Head, Tail: w.Tail, Summary: "S1", Ask: w.Ask}
	view := st.View(h)
	if sm := view[w.Head]; !IsSummary(sm) || !strings.Contains(sm.Content, "port the parser to Go") || !strings.HasSuffix(sm.Content, SummaryEnd) {
		t.Errorf("summary message = %q", sm.Content)
	}
	for i := 12; i < 20; i++ {
		id := fmt.Sprintf("w%d", i)
		h = append(h, call(id), result(id))
	}
	w2, ok := Select(h, st, 250)
	if !ok || w2.Ask != "port the parser to Go" {
		t.Fatalf("second compression: ok %v, ask %q", ok, w2.Ask)
	}
	// A new question in the tail: no ask.
	for i := 20; i < 26; i++ {
		id := fmt.Sprintf("w%d", i)
		h = append(h, call(id), result(id))
	}
	h = append(h, user("now the tests"), asst("ok"))
	w3, ok := Select(h, State{Head: w2.Head, Tail: w2.Tail, Summary: "S2", Ask: w2.Ask}, 250)
	if !ok || w3.Ask != "" {
		t.Errorf("third compression: ok %v, ask %q; the tail has the latest question", ok, w3.Ask)
	}
	if _, ok := Select(conversation(3), State{}, 250); !ok {
		t.Fatal("nothing selected")
	}
	if w4, _ := Select(conversation(3), State{}, 250); w4.Ask != "" {
		t.Errorf("ask %q while the tail holds the latest question", w4.Ask)
	}
}

func TestClipKeepsUTF8Valid(t *testing.T) {
	s := strings.Repeat("é", 5000) // 2 bytes each: the cut points fall inside runes
	if c := clip(s); !utf8.ValidString(c) || len(c) >= len(s) {
		t.Errorf("clip: valid %v, %d of %d bytes", utf8.ValidString(c), len(c), len(s))
	}
}
