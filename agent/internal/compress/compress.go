// Package compress shrinks a long conversation to fit the model's context:
// it keeps the first exchange and the most recent messages and replaces the
// middle with a summary the model writes (hermes's context compressor).
//
// The conversation itself is never rewritten: a [State] says which span of
// the full history a summary stands for, and [State.View] builds the
// messages sent to the model from the full history. The history can only
// grow, so a State stays valid as messages are appended.
package compress

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/model"
)

// DefaultThreshold is hermes's share of the context length past which the
// conversation is compressed.
const DefaultThreshold = 0.80

// tailShare is the share of the threshold kept verbatim as recent messages
// (hermes's summary_target_ratio).
const tailShare = 0.20

// minTail is how many recent messages are kept at least.
const minTail = 2

// SummaryPrefix opens the summary message, so that the model takes it as
// background and answers the latest message after it.
const SummaryPrefix = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. " +
	"This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. " +
	"Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. " +
	"Respond ONLY to the latest user message that appears AFTER this summary. " +
	"Your tools remain fully active — keep calling them normally for the active task. " +
	"The current state (files, config, etc.) may reflect work described here — avoid repeating it:"

// SummaryEnd closes the summary message.
const SummaryEnd = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"

// State is the compression of one conversation. The zero State means none:
// the view is the whole history.
type State struct {
	Head    int    // history[:Head] is kept: the first exchange
	Tail    int    // history[Tail:] is kept: the recent messages
	Summary string // stands for history[Head:Tail]; "" means no compression
	// Ask is the latest user message when it was summarised (the tail
	// holds only the work on it): the summary message repeats it, so that
	// the model still knows what it is doing.
	Ask string
}

// Active reports whether st replaces part of the history.
func (st State) Active() bool { return st.Summary != "" }

// View is the conversation as the model sees it: the kept head, the summary
// message and everything from Tail on. It returns history itself when st is
// not active or no longer fits history.
func (st State) View(history []model.Message) []model.Message {
	if !st.Active() || st.Head > st.Tail || st.Tail > len(history) {
		return history
	}
	out := make([]model.Message, 0, st.Head+1+len(history)-st.Tail)
	out = append(out, history[:st.Head]...)
	out = append(out, SummaryMessage(st.Summary, st.Ask))
	return append(out, history[st.Tail:]...)
}

// askHeading introduces the latest user message inside a summary message.
const askHeading = "The user's latest request, which the messages after this summary are working on (this one is active):"

// SummaryMessage is the user message that stands for the compressed middle;
// ask, when not empty, is the latest user message, summarised with it.
func SummaryMessage(summary, ask string) model.Message {
	c := SummaryPrefix + "\n\n" + strings.TrimSpace(summary) + "\n\n"
	if ask != "" {
		c += askHeading + "\n" + ask + "\n\n"
	}
	return model.Message{Role: model.RoleUser, Content: c + SummaryEnd}
}

// IsSummary reports whether m is a summary message.
func IsSummary(m model.Message) bool {
	return m.Role == model.RoleUser && strings.HasPrefix(m.Content, SummaryPrefix)
}

// Window is what one compression summarises.
type Window struct {
	Head, Tail int             // the new State's bounds, in history indices
	Middle     []model.Message // the messages to summarise (a previous summary first)
	Ask        string          // the new State's Ask
}

// Select chooses the middle of history (as st shows it) to summarise: it
// keeps the first exchange (the first user message, the reply and that
// reply's tool results) and, from the end, recent messages worth up to
// tailTokens (at least the last two). A boundary never falls between an
// assistant's tool calls and their results. ok is false when nothing is
// left to summarise.
func Select(history []model.Message, st State, tailTokens int) (w Window, ok bool) {
	head := firstExchange(history)
	from := head // history index where the not yet summarised middle starts
	if st.Active() && st.Head == head && st.Tail <= len(history) && st.Tail >= head {
		from = st.Tail
	}
	tail := len(history)
	used := 0
	for tail > from {
		n := Estimate(history[tail-1 : tail])
		if len(history)-tail >= minTail && used+n > tailTokens {
			break
		}
		used += n
		tail--
	}
	// Never start the tail at a tool result: its call would be summarised.
	for tail > from && tail < len(history) && history[tail].Role == model.RoleTool {
		tail--
	}
	if tail < from {
		tail = from
	}
	if tail == from {
		return Window{}, false
	}
	var middle []model.Message
	if from != head {
		middle = append(middle, SummaryMessage(st.Summary, st.Ask))
	}
	middle = append(middle, history[from:tail]...)
	return Window{Head: head, Tail: tail, Middle: middle, Ask: latestAsk(history, st, head, from, tail)}, true
}

// latestAsk is the latest user message when the tail has none: the last
// one of history[from:tail], or the one the previous summary repeated.
func latestAsk(history []model.Message, st State, head, from, tail int) string {
	for _, m := range history[tail:] {
		if m.Role == model.RoleUser {
			return ""
		}
	}
	for i := tail - 1; i >= from; i-- {
		if history[i].Role == model.RoleUser {
			return clip(history[i].Content)
		}
	}
	if from != head {
		return st.Ask
	}
	return ""
}

// firstExchange is the end of the kept head: the first user message, the
// assistant's answer and the results of its tool calls.
func firstExchange(history []model.Message) int {
	i := 0
	for i < len(history) && history[i].Role != model.RoleUser {
		i++
	}
	if i == len(history) {
		return 0
	}
	i++ // the user message
	if i < len(history) && history[i].Role == model.RoleAssistant {
		i++
		for i < len(history) && history[i].Role == model.RoleTool {
			i++
		}
	}
	return i
}

// Estimate is a rough token count of msgs: characters / 4, as hermes's
// estimate_messages_tokens_rough.
func Estimate(msgs []model.Message) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		n += len(m.Content) + len(m.Name) + 16 // role and framing
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments) + 16
		}
		n += 1000 * len(m.Images) // an image costs about a thousand tokens
	}
	return n / 4
}

// Threshold is the token count past which a context of contextLength
// tokens is compressed; share outside (0, 1] means [DefaultThreshold].
func Threshold(contextLength int, share float64) int {
	if share <= 0 || share > 1 {
		share = DefaultThreshold
	}
	return int(float64(contextLength) * share)
}

// TailTokens is the budget of recent messages kept verbatim.
func TailTokens(threshold int) int { return int(float64(threshold) * tailShare) }

// Per-message caps of the summariser's input (hermes's _CONTENT_MAX,
// _TOOL_ARGS_MAX), so that the request for the summary fits.
const (
	contentMax  = 6000
	contentHead = 4000
	contentTail = 1500
	argsMax     = 1500
)

// Prompt is the request for a summary of middle; focus, when not empty,
// is what the user asked the summary to concentrate on (/compact focus).
func Prompt(middle []model.Message, focus string) string {
	var b strings.Builder
	b.WriteString(`You are a summarization agent creating a context checkpoint. Your output will be injected as reference material for a DIFFERENT assistant that continues the conversation. Do NOT respond to any questions or requests in the conversation — only output the structured summary. Do NOT include any preamble, greeting, or prefix.

Create a structured handoff summary so the next assistant can continue without re-reading the original turns. Use these sections:

## Historical Task Snapshot
[What the user asked for, in their own words where it matters]

## Goal
[What the user is trying to accomplish overall]

## Constraints & Preferences
[User preferences, coding style, constraints, important decisions]

## Completed Actions
[Numbered list: tool used, target, outcome — file paths, commands, results]

## Historical In-Progress State
[Work that was under way when these turns ended]

## Key Decisions
[Important technical decisions and why]

## Resolved Questions
[Questions already answered, with the answer]

## Historical Pending User Asks
[Requests not yet addressed, or "None"]

## Relevant Files
[Files read, modified or created, with a brief note each]

## Critical Context
[Specific values, error messages, configuration details that would be costly to rediscover]

Be specific: include file paths, command outputs, error messages and concrete values rather than vague descriptions. If a previous summary is among the turns, fold its content into the new summary.
`)
	if f := strings.TrimSpace(focus); f != "" {
		fmt.Fprintf(&b, "\nFOCUS TOPIC: %q. Give priority to everything about this topic (include exact details); summarise the rest more briefly.\n", f)
	}
	b.WriteString("\nTURNS TO SUMMARIZE:\n\n")
	for _, m := range middle {
		switch {
		case m.Role == model.RoleTool:
			fmt.Fprintf(&b, "[TOOL RESULT %s (%s)]: %s\n\n", m.ToolCallID, m.Name, clip(m.Content))
		case m.Role == model.RoleAssistant:
			fmt.Fprintf(&b, "[ASSISTANT]: %s\n", clip(m.Content))
			for _, c := range m.ToolCalls {
				args := c.Arguments
				if len(args) > argsMax {
					args = args[:argsMax] + "…"
				}
				fmt.Fprintf(&b, "[TOOL CALL %s]: %s(%s)\n", c.ID, c.Name, args)
			}
			b.WriteString("\n")
		case IsSummary(m):
			body := strings.TrimSuffix(strings.TrimPrefix(m.Content, SummaryPrefix), SummaryEnd)
			fmt.Fprintf(&b, "[PREVIOUS SUMMARY]: %s\n\n", strings.TrimSpace(body))
		default:
			fmt.Fprintf(&b, "[%s]: %s\n\n", strings.ToUpper(string(m.Role)), clip(m.Content))
		}
	}
	return b.String()
}

// clip keeps the head and the tail of a long text.
func clip(s string) string {
	if len(s) <= contentMax {
		return s
	}
	h, t := contentHead, len(s)-contentTail
	for h > 0 && !utf8.RuneStart(s[h]) { // cut between runes
		h--
	}
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "\n…[truncated]…\n" + s[t:]
}
