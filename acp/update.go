package acp

import (
	"encoding/json"
	"fmt"
)

// SessionNotification is the params of a session/update notification.
type SessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
	Meta      Meta          `json:"_meta,omitempty"`
}

// ContentChunk is one streamed piece of a user, agent or thought message.
type ContentChunk struct {
	Content   ContentBlock `json:"content"`
	MessageID *string      `json:"messageId,omitempty"`
	Meta      Meta         `json:"_meta,omitempty"`
}

// PlanEntry is one task of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high, medium, low
	Status   string `json:"status"`   // pending, in_progress, completed
	Meta     Meta   `json:"_meta,omitempty"`
}

// Plan is the complete plan; the client replaces the previous one.
type Plan struct {
	Entries []PlanEntry `json:"entries"`
	Meta    Meta        `json:"_meta,omitempty"`
}

// AvailableCommand is a slash command the user can type.
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
	Meta        Meta                   `json:"_meta,omitempty"`
}

// AvailableCommandInput describes the free text after a command name.
type AvailableCommandInput struct {
	Hint string `json:"hint"`
}

// AvailableCommandsUpdate replaces the list of slash commands.
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands"`
	Meta              Meta               `json:"_meta,omitempty"`
}

// CurrentModeUpdate announces a mode change made by the agent.
type CurrentModeUpdate struct {
	CurrentModeID string `json:"currentModeId"`
	Meta          Meta   `json:"_meta,omitempty"`
}

// ConfigOptionUpdate carries the complete config option list.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          Meta                  `json:"_meta,omitempty"`
}

// SessionInfoUpdate changes the session's title or activity time.
type SessionInfoUpdate struct {
	Title     *string `json:"title,omitempty"`
	UpdatedAt *string `json:"updatedAt,omitempty"`
	Meta      Meta    `json:"_meta,omitempty"`
}

// Cost is a cumulative session cost.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// UsageUpdate reports context-window use.
type UsageUpdate struct {
	Used uint64 `json:"used"`
	Size uint64 `json:"size"`
	Cost *Cost  `json:"cost,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// Notice severities; values starting with "_" are free for extensions.
const (
	NoticeInfo    = "info"
	NoticeWarning = "warning"
	NoticeError   = "error"
)

// Notice is information for the user that is not part of the session's
// history (session update "notice"). It may be sent only to a client that
// advertised clientCapabilities.session.notices.
type Notice struct {
	Severity    string  `json:"severity"`
	Title       string  `json:"title"` // non-empty plain text that stands alone
	Description *string `json:"description,omitempty"`
	Meta        Meta    `json:"_meta,omitempty"`
}

// SessionUpdate is the session/update union (discriminator "sessionUpdate").
// Exactly one variant is set.
type SessionUpdate struct {
	UserMessageChunk        *ContentChunk
	AgentMessageChunk       *ContentChunk
	AgentThoughtChunk       *ContentChunk
	ToolCall                *ToolCall
	ToolCallUpdate          *ToolCallUpdate
	Plan                    *Plan
	AvailableCommandsUpdate *AvailableCommandsUpdate
	CurrentModeUpdate       *CurrentModeUpdate
	ConfigOptionUpdate      *ConfigOptionUpdate
	SessionInfoUpdate       *SessionInfoUpdate
	UsageUpdate             *UsageUpdate
	Notice                  *Notice
}

// Kind returns the "sessionUpdate" value of the set variant.
func (u SessionUpdate) Kind() string {
	switch {
	case u.UserMessageChunk != nil:
		return "user_message_chunk"
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk"
	case u.ToolCall != nil:
		return "tool_call"
	case u.ToolCallUpdate != nil:
		return "tool_call_update"
	case u.Plan != nil:
		return "plan"
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update"
	case u.ConfigOptionUpdate != nil:
		return "config_option_update"
	case u.SessionInfoUpdate != nil:
		return "session_info_update"
	case u.UsageUpdate != nil:
		return "usage_update"
	case u.Notice != nil:
		return "notice"
	}
	return ""
}

func (u SessionUpdate) variant() any {
	switch {
	case u.UserMessageChunk != nil:
		return u.UserMessageChunk
	case u.AgentMessageChunk != nil:
		return u.AgentMessageChunk
	case u.AgentThoughtChunk != nil:
		return u.AgentThoughtChunk
	case u.ToolCall != nil:
		return u.ToolCall
	case u.ToolCallUpdate != nil:
		return u.ToolCallUpdate
	case u.Plan != nil:
		return u.Plan
	case u.AvailableCommandsUpdate != nil:
		return u.AvailableCommandsUpdate
	case u.CurrentModeUpdate != nil:
		return u.CurrentModeUpdate
	case u.ConfigOptionUpdate != nil:
		return u.ConfigOptionUpdate
	case u.SessionInfoUpdate != nil:
		return u.SessionInfoUpdate
	case u.UsageUpdate != nil:
		return u.UsageUpdate
	case u.Notice != nil:
		return u.Notice
	}
	return nil
}

// MarshalJSON writes the set variant with its "sessionUpdate".
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	v := u.variant()
	if v == nil {
		return nil, fmt.Errorf("marshal session update: no variant set")
	}
	return marshalTagged("sessionUpdate", u.Kind(), v)
}

// UnmarshalJSON decodes the variant named by "sessionUpdate".
func (u *SessionUpdate) UnmarshalJSON(b []byte) error {
	tag, ok, err := tagOf(b, "sessionUpdate")
	if err != nil {
		return err
	}
	if !ok {
		return &FieldError{Field: "sessionUpdate", Problem: "required"}
	}
	*u = SessionUpdate{}
	var v any
	var req []string
	switch tag {
	case "user_message_chunk":
		u.UserMessageChunk = new(ContentChunk)
		v, req = u.UserMessageChunk, []string{"content"}
	case "agent_message_chunk":
		u.AgentMessageChunk = new(ContentChunk)
		v, req = u.AgentMessageChunk, []string{"content"}
	case "agent_thought_chunk":
		u.AgentThoughtChunk = new(ContentChunk)
		v, req = u.AgentThoughtChunk, []string{"content"}
	case "tool_call":
		u.ToolCall = new(ToolCall)
		v, req = u.ToolCall, []string{"toolCallId", "title"}
	case "tool_call_update":
		u.ToolCallUpdate = new(ToolCallUpdate)
		v, req = u.ToolCallUpdate, []string{"toolCallId"}
	case "plan":
		u.Plan = new(Plan)
		v, req = u.Plan, []string{"entries"}
	case "available_commands_update":
		u.AvailableCommandsUpdate = new(AvailableCommandsUpdate)
		v, req = u.AvailableCommandsUpdate, []string{"availableCommands"}
	case "current_mode_update":
		u.CurrentModeUpdate = new(CurrentModeUpdate)
		v, req = u.CurrentModeUpdate, []string{"currentModeId"}
	case "config_option_update":
		u.ConfigOptionUpdate = new(ConfigOptionUpdate)
		v, req = u.ConfigOptionUpdate, []string{"configOptions"}
	case "session_info_update":
		u.SessionInfoUpdate = new(SessionInfoUpdate)
		v = u.SessionInfoUpdate
	case "usage_update":
		u.UsageUpdate = new(UsageUpdate)
		v, req = u.UsageUpdate, []string{"used", "size"}
	case "notice":
		u.Notice = new(Notice)
		v, req = u.Notice, []string{"severity", "title"}
	default:
		return &FieldError{Field: "sessionUpdate", Problem: fmt.Sprintf("unknown session update %q", tag)}
	}
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	return requireMembers(b, req...)
}
