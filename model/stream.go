package model

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// assembler builds a [Reply] from the deltas of a Chat Completions stream.
// It is not safe for concurrent use; one stream owns one assembler.
type assembler struct {
	text    strings.Builder
	thought strings.Builder
	calls   []*partialCall
	finish  string
	usage   Usage
	chunks  int // chunks seen, to tell an empty stream from a short one
}

// partialCall is a tool call whose pieces are still arriving.
type partialCall struct {
	index int64
	id    string
	name  string
	args  strings.Builder
}

// toolCall adds one tool-call delta. Servers differ: OpenAI sends the id and
// name in the first delta of each index and argument pieces after it; some
// repeat the id or name in every delta; some omit the index; some send each
// call whole, reusing index 0. A delta joins the latest call with the same
// index (or the latest call when the index is missing) unless it carries a
// different id, which starts a new call.
func (a *assembler) toolCall(index int64, hasIndex bool, id, name, args string) {
	var c *partialCall
	if hasIndex {
		for i := len(a.calls) - 1; i >= 0; i-- {
			if a.calls[i].index == index {
				c = a.calls[i]
				break
			}
		}
	} else if n := len(a.calls); n > 0 {
		c = a.calls[n-1]
		index = c.index
	}
	if c != nil && id != "" && c.id != "" && id != c.id {
		c = nil
	}
	if c == nil {
		if !hasIndex {
			index = int64(len(a.calls))
		}
		c = &partialCall{index: index}
		a.calls = append(a.calls, c)
	}
	if c.id == "" {
		c.id = id
	}
	switch {
	case name == "" || name == c.name:
	case c.name == "":
		c.name = name
	default:
		c.name += name // a server that streams the name in pieces
	}
	c.args.WriteString(args)
}

// reply returns the assembled reply. A "stop" (or missing) finish reason
// with tool calls becomes ToolCalls, since some servers report "stop" after
// tool calls; calls without an id get a generated one.
func (a *assembler) reply() *Reply {
	r := &Reply{Text: a.text.String(), Thought: a.thought.String(), Usage: a.usage}
	for _, c := range a.calls {
		id := c.id
		if id == "" {
			id = newCallID()
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: c.name, Arguments: c.args.String()})
	}
	r.FinishReason = mapFinish(a.finish, len(r.ToolCalls) > 0)
	return r
}

// mapFinish maps a Chat Completions finish_reason to a [FinishReason].
func mapFinish(reason string, hasCalls bool) FinishReason {
	switch reason {
	case "length", "max_tokens":
		return Length
	case "content_filter":
		return ContentFilter
	case "tool_calls", "function_call":
		return ToolCalls
	}
	if hasCalls {
		return ToolCalls
	}
	return Stop
}

// newCallID returns a fresh tool-call id for servers that send none.
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "call_" + hex.EncodeToString(b[:])
}
