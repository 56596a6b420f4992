package acp

import (
	"encoding/json"
	"fmt"
)

// ToolKind categorises a tool call for the editor's icons.
type ToolKind string

// Tool kinds defined by ACP v1.
const (
	KindRead       ToolKind = "read"
	KindEdit       ToolKind = "edit"
	KindDelete     ToolKind = "delete"
	KindMove       ToolKind = "move"
	KindSearch     ToolKind = "search"
	KindExecute    ToolKind = "execute"
	KindThink      ToolKind = "think"
	KindFetch      ToolKind = "fetch"
	KindSwitchMode ToolKind = "switch_mode"
	KindOther      ToolKind = "other"
)

// ToolCallStatus is the execution state of a tool call.
type ToolCallStatus string

// Tool call statuses defined by ACP v1.
const (
	StatusPending    ToolCallStatus = "pending"
	StatusInProgress ToolCallStatus = "in_progress"
	StatusCompleted  ToolCallStatus = "completed"
	StatusFailed     ToolCallStatus = "failed"
)

// ToolCallLocation is a file the tool call touches; Line is 1-based.
type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ToolCall announces a new tool call (session update "tool_call"). Name is
// the tool's programmatic name (its registry name; an MCP tool's full
// name), by which editors group and filter calls.
type ToolCall struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title"`
	Name       string             `json:"name,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   any                `json:"rawInput,omitempty"`
	RawOutput  any                `json:"rawOutput,omitempty"`
	Meta       Meta               `json:"_meta,omitempty"`
}

// ToolCallUpdate changes fields of a tool call; nil fields are unchanged.
// Content and Locations replace the previous collections when set.
type ToolCallUpdate struct {
	ToolCallID string             `json:"toolCallId"`
	Title      *string            `json:"title,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   any                `json:"rawInput,omitempty"`
	RawOutput  any                `json:"rawOutput,omitempty"`
	Meta       Meta               `json:"_meta,omitempty"`
}

// Diff shows a proposed or applied file change. A nil OldText means a new file.
type Diff struct {
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
	Meta    Meta    `json:"_meta,omitempty"`
}

// ToolCallContent is the tool-call content union (discriminator "type"):
// a content block, a diff, or an embedded terminal.
type ToolCallContent struct {
	Content    *ContentBlock
	Diff       *Diff
	TerminalID string
}

// TextContentItem returns tool-call content holding one text block.
func TextContentItem(s string) ToolCallContent {
	b := TextBlock(s)
	return ToolCallContent{Content: &b}
}

// MarshalJSON writes the set variant with its "type".
func (c ToolCallContent) MarshalJSON() ([]byte, error) {
	switch {
	case c.Content != nil:
		return marshalTagged("type", "content", struct {
			Content ContentBlock `json:"content"`
		}{*c.Content})
	case c.Diff != nil:
		return marshalTagged("type", "diff", c.Diff)
	case c.TerminalID != "":
		return marshalTagged("type", "terminal", struct {
			TerminalID string `json:"terminalId"`
		}{c.TerminalID})
	}
	return nil, fmt.Errorf("marshal tool call content: no variant set")
}

// UnmarshalJSON decodes the variant named by "type".
func (c *ToolCallContent) UnmarshalJSON(b []byte) error {
	tag, _, err := tagOf(b, "type")
	if err != nil {
		return err
	}
	*c = ToolCallContent{}
	switch tag {
	case "content":
		var v struct {
			Content *ContentBlock `json:"content"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		if v.Content == nil {
			return &FieldError{Field: "content", Problem: "required"}
		}
		c.Content = v.Content
	case "diff":
		c.Diff = new(Diff)
		return decodeVariant(b, c.Diff, "path", "newText")
	case "terminal":
		var v struct {
			TerminalID string `json:"terminalId"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		if v.TerminalID == "" {
			return &FieldError{Field: "terminalId", Problem: "required"}
		}
		c.TerminalID = v.TerminalID
	default:
		return &FieldError{Field: "type", Problem: fmt.Sprintf("unknown tool call content type %q", tag)}
	}
	return nil
}
