package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// A reloaded session looks as it did live. Every message keeps an id (the
// messageId of its chunks, model.Message.ID) and, in Display, the updates
// the editor was shown for it beyond its content: for a tool message, the
// call's card — the tool_call as it was announced, the plan the call sent,
// the update that completed it (a diff, the output, the rendered result, a
// failure) — with an editor terminal's output as text, as the terminal
// itself is gone by then. session/load sends each message's content, then
// its Display, in history order; anything else that wants to be seen again
// (a compaction) adds its updates to a message's Display the same way.
// Messages stored before Display existed replay as the generic rendering
// of their stored result.

// thoughtIDSuffix makes the messageId of an assistant message's thought
// from the message's id: the thought is a message of its own to the editor.
const thoughtIDSuffix = "-thought"

// maxDisplay bounds a message's encoded Display; a bigger card keeps its
// text and drops what makes it big (diffs of huge files, images, the raw
// output).
const maxDisplay = 256 << 10

// encodeDisplay encodes updates for model.Message.Display; nil for none.
func encodeDisplay(updates []acp.SessionUpdate) json.RawMessage {
	if len(updates) == 0 {
		return nil
	}
	b, err := json.Marshal(updates)
	if err != nil {
		return nil
	}
	if len(b) <= maxDisplay {
		return b
	}
	for i := range updates {
		updates[i] = slimUpdate(updates[i])
	}
	if b, err = json.Marshal(updates); err != nil || len(b) > maxDisplay {
		return nil
	}
	return b
}

// slimUpdate drops the big parts of a tool call update: the raw output,
// images and diffs (replaced by a line saying so).
func slimUpdate(u acp.SessionUpdate) acp.SessionUpdate {
	slim := func(content []acp.ToolCallContent) []acp.ToolCallContent {
		out := make([]acp.ToolCallContent, 0, len(content))
		for _, c := range content {
			switch {
			case c.Diff != nil:
				out = append(out, acp.TextContentItem(fmt.Sprintf("(the diff of %s is too large to keep for a reload)", c.Diff.Path)))
			case c.Content != nil && c.Content.Text == nil:
				out = append(out, acp.TextContentItem("(an attachment too large to keep for a reload)"))
			case c.Content != nil && len(c.Content.Text.Text) > maxRendered:
				out = append(out, acp.TextContentItem(clip(c.Content.Text.Text, maxRendered)))
			default:
				out = append(out, c)
			}
		}
		return out
	}
	if tc := u.ToolCall; tc != nil {
		c := *tc
		c.Content, c.RawInput, c.RawOutput = slim(c.Content), nil, nil
		u.ToolCall = &c
	}
	if tu := u.ToolCallUpdate; tu != nil {
		c := *tu
		c.Content, c.RawInput, c.RawOutput = slim(c.Content), nil, nil
		u.ToolCallUpdate = &c
	}
	return u
}

// decodeDisplay decodes model.Message.Display; false when there is none or
// it cannot be read (the message then replays generically).
func decodeDisplay(raw json.RawMessage) ([]acp.SessionUpdate, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var updates []acp.SessionUpdate
	if err := json.Unmarshal(raw, &updates); err != nil {
		return nil, false
	}
	return updates, true
}

// display is the call's card for the replay: the tool_call as announced,
// the plan the call sent (if the session sent one while it ran), and the
// completing update, with the editor terminal's output as text.
func (t *toolCallTracker) display() json.RawMessage {
	t.mu.Lock()
	call, end, output, term, gen := t.shownCall, t.shownEnd, t.termOutput, t.terminalID, t.planGen
	t.mu.Unlock()
	if call == nil || end == nil {
		return nil
	}
	updates := []acp.SessionUpdate{{ToolCall: call}}
	t.s.mu.Lock()
	var plan []todoItem
	if t.s.planGen != gen {
		plan = slices.Clone(t.s.plan)
	}
	t.s.mu.Unlock()
	if plan != nil {
		updates = append(updates, acp.SessionUpdate{Plan: planUpdate(plan)})
	}
	if term != "" {
		e := *end
		e.Content = make([]acp.ToolCallContent, 0, len(end.Content))
		for _, c := range end.Content {
			if c.TerminalID != "" {
				c = acp.TextContentItem(terminalText(output))
			}
			e.Content = append(e.Content, c)
		}
		end = &e
	}
	return encodeDisplay(append(updates, acp.SessionUpdate{ToolCallUpdate: end}))
}

// terminalText shows an editor terminal's output as text in a fence.
func terminalText(output string) string {
	text := strings.TrimRight(strings.ToValidUTF8(stripEscapes(output), "\uFFFD"), "\n")
	if text == "" {
		text = "(no output)"
	}
	if len(text) > maxRendered {
		text = "…" + text[len(text)-maxRendered:]
		text = strings.ToValidUTF8(text, "")
	}
	return "```\n" + strings.ReplaceAll(text, "```", "`\u200b``") + "\n```"
}

// replay streams the stored conversation before the session/load reply:
// user messages, reasoning before the answer it led to, each tool call as
// its card (or, stored before cards, generically), the plan where the todo
// tool sent it, and the session's title. Updates are posted and flushed
// once at the end.
func (s *Session) replay() {
	s.mu.Lock()
	history := slices.Clone(s.history)
	plan := slices.Clone(s.plan)
	title, updated := s.title, s.updated
	s.mu.Unlock()
	calls := map[string]model.ToolCall{}
	planShown := false
	for _, m := range history {
		switch m.Role {
		case model.RoleUser:
			id := m.ID
			if id == "" {
				id = newMessageID()
			}
			if m.Content != "" {
				s.post(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(m.Content), MessageID: &id}})
			}
			s.out.flush()
			s.replayImages(m, id) // agent/vision.go
		case model.RoleAssistant:
			id := m.ID
			if id == "" {
				id = newMessageID()
			}
			if m.Thought != "" {
				tid := id + thoughtIDSuffix
				s.post(acp.SessionUpdate{AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock(m.Thought), MessageID: &tid}})
			}
			if m.Content != "" {
				s.post(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(m.Content), MessageID: &id}})
			}
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
		}
		updates, ok := decodeDisplay(m.Display)
		if !ok && m.Role == model.RoleTool {
			if c, found := calls[m.ToolCallID]; found {
				updates = s.genericCard(c, m)
			}
		}
		for _, u := range updates {
			planShown = planShown || u.Plan != nil
			s.post(u)
		}
	}
	if len(plan) > 0 && !planShown { // stored before cards: the plan as it ended
		s.post(acp.SessionUpdate{Plan: planUpdate(plan)})
	}
	if title != "" {
		at := updated.UTC().Format(time.RFC3339)
		s.post(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: &title, UpdatedAt: &at}})
	}
	s.out.flush()
}

// genericCard shows a tool call stored without its card: its title, kind
// and locations from the tool's entry and its stored result rendered
// generically (only the result's text and failure flag are stored, so the
// tool's own rendering, which needs its typed result, gives way).
func (s *Session) genericCard(c model.ToolCall, m model.Message) []acp.SessionUpdate {
	t := &toolCallTracker{s: s, id: c.ID, name: c.Name, raw: c.Arguments}
	if s.reg != nil {
		t.entry, _ = s.reg.Snapshot().Lookup(c.Name)
	}
	args := parseArgsLenient(c.Arguments)
	call := acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: c.ID, Title: t.title(args), Name: c.Name, Kind: t.kind(), Status: acp.StatusPending,
		Locations: t.pathLocations(args), RawInput: rawInput(args, c.Arguments),
	}}
	out := registry.Outcome{Content: m.Content, Failed: m.IsError}
	status := acp.StatusCompleted
	if out.Failed {
		status = acp.StatusFailed
	}
	t.entry.Render = nil
	return []acp.SessionUpdate{call, {ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: c.ID, Status: status, Content: t.completion(args, out)}}}
}
