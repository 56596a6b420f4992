package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// EnvVariable is a name/value pair (MCP server environment).
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPHeader is a name/value pair (MCP server headers).
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// McpServer configures one MCP server: stdio (Type "" — the wire form has no
// type member), "http" or "sse".
type McpServer struct {
	Type    string        `json:"-"`
	Name    string        `json:"name"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Env     []EnvVariable `json:"env,omitempty"`
	URL     string        `json:"url,omitempty"`
	Headers []HTTPHeader  `json:"headers,omitempty"`
	Meta    Meta          `json:"_meta,omitempty"`
}

// MarshalJSON writes the transport-specific shape.
func (s McpServer) MarshalJSON() ([]byte, error) {
	switch s.Type {
	case "", "stdio":
		args, env := s.Args, s.Env
		if args == nil {
			args = []string{}
		}
		if env == nil {
			env = []EnvVariable{}
		}
		return json.Marshal(struct {
			Name    string        `json:"name"`
			Command string        `json:"command"`
			Args    []string      `json:"args"`
			Env     []EnvVariable `json:"env"`
			Meta    Meta          `json:"_meta,omitempty"`
		}{s.Name, s.Command, args, env, s.Meta})
	case "http", "sse":
		h := s.Headers
		if h == nil {
			h = []HTTPHeader{}
		}
		return marshalTagged("type", s.Type, struct {
			Name    string       `json:"name"`
			URL     string       `json:"url"`
			Headers []HTTPHeader `json:"headers"`
			Meta    Meta         `json:"_meta,omitempty"`
		}{s.Name, s.URL, h, s.Meta})
	}
	return nil, fmt.Errorf("marshal mcp server: unknown type %q", s.Type)
}

// UnmarshalJSON decodes any transport; a stray "type":"stdio" is accepted.
func (s *McpServer) UnmarshalJSON(b []byte) error {
	type plain McpServer
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	tag, _, err := tagOf(b, "type")
	if err != nil {
		return err
	}
	switch tag {
	case "", "stdio":
		p.Type = ""
		if err := requireMembers(b, "name", "command"); err != nil {
			return err
		}
	case "http", "sse":
		p.Type = tag
		if err := requireMembers(b, "name", "url"); err != nil {
			return err
		}
	default:
		return &FieldError{Field: "type", Problem: fmt.Sprintf("unknown MCP transport %q", tag)}
	}
	*s = McpServer(p)
	return nil
}

// NewSessionRequest is the params of session/new.
type NewSessionRequest struct {
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer `json:"mcpServers"`
	Meta                  Meta        `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *NewSessionRequest) Validate() error {
	return validateRoots(r.Cwd, r.AdditionalDirectories)
}

func validateRoots(cwd string, extra []string) error {
	if cwd == "" {
		return &FieldError{Field: "cwd", Problem: "required"}
	}
	if !filepath.IsAbs(cwd) {
		return &FieldError{Field: "cwd", Problem: fmt.Sprintf("must be an absolute path, got %q", cwd)}
	}
	for i, d := range extra {
		if !filepath.IsAbs(d) {
			return &FieldError{Field: fmt.Sprintf("additionalDirectories[%d]", i), Problem: fmt.Sprintf("must be an absolute path, got %q", d)}
		}
	}
	return nil
}

// SessionMode is one selectable mode.
type SessionMode struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
}

// SessionModeState is the current mode and the modes available.
type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

// SessionConfigSelectOption is one value of a select option.
type SessionConfigSelectOption struct {
	Value       string  `json:"value"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
}

// SessionConfigOption is a select config option (the only type hermes-acp
// offers; boolean options need a client opt-in).
type SessionConfigOption struct {
	ID           string                      `json:"id"`
	Name         string                      `json:"name"`
	Description  *string                     `json:"description,omitempty"`
	Category     string                      `json:"category,omitempty"`
	CurrentValue string                      `json:"currentValue"`
	Options      []SessionConfigSelectOption `json:"options"`
	Meta         Meta                        `json:"_meta,omitempty"`
}

// MarshalJSON writes the option with "type":"select".
func (o SessionConfigOption) MarshalJSON() ([]byte, error) {
	type plain SessionConfigOption
	if o.Options == nil {
		o.Options = []SessionConfigSelectOption{}
	}
	return marshalTagged("type", "select", plain(o))
}

// UnmarshalJSON decodes a select option.
func (o *SessionConfigOption) UnmarshalJSON(b []byte) error {
	type plain SessionConfigOption
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*o = SessionConfigOption(p)
	return nil
}

// NewSessionResponse is the result of session/new.
type NewSessionResponse struct {
	SessionID     string                `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          Meta                  `json:"_meta,omitempty"`
}

// LoadSessionRequest is the params of session/load.
type LoadSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer `json:"mcpServers"`
	Meta                  Meta        `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *LoadSessionRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	return validateRoots(r.Cwd, r.AdditionalDirectories)
}

// LoadSessionResponse is the result of session/load and session/resume.
type LoadSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          Meta                  `json:"_meta,omitempty"`
}

// ResumeSessionRequest is the params of session/resume.
type ResumeSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer `json:"mcpServers,omitempty"`
	Meta                  Meta        `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *ResumeSessionRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	return validateRoots(r.Cwd, r.AdditionalDirectories)
}

// ForkSessionRequest is the params of the unstable session/fork: copy
// session SessionID into a new session on Cwd.
type ForkSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer `json:"mcpServers,omitempty"`
	Meta                  Meta        `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *ForkSessionRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	return validateRoots(r.Cwd, r.AdditionalDirectories)
}

// ListSessionsRequest is the params of session/list.
type ListSessionsRequest struct {
	Cwd    *string `json:"cwd,omitempty"`
	Cursor *string `json:"cursor,omitempty"`
	Meta   Meta    `json:"_meta,omitempty"`
}

// SessionInfo describes a stored session.
type SessionInfo struct {
	SessionID             string   `json:"sessionId"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	Title                 *string  `json:"title,omitempty"`
	UpdatedAt             *string  `json:"updatedAt,omitempty"`
	Meta                  Meta     `json:"_meta,omitempty"`
}

// ListSessionsResponse is the result of session/list.
type ListSessionsResponse struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor *string       `json:"nextCursor,omitempty"`
	Meta       Meta          `json:"_meta,omitempty"`
}

// SessionRequest is the params of methods that name only a session:
// session/close, session/delete and the session/cancel notification.
type SessionRequest struct {
	SessionID string `json:"sessionId"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *SessionRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	return nil
}

// SetSessionModeRequest is the params of session/set_mode.
type SetSessionModeRequest struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *SetSessionModeRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	if r.ModeID == "" {
		return &FieldError{Field: "modeId", Problem: "required"}
	}
	return nil
}

// SetSessionConfigOptionRequest is the params of session/set_config_option.
// Boolean values are decoded but hermes-acp offers only select options.
type SetSessionConfigOptionRequest struct {
	SessionID string `json:"sessionId"`
	ConfigID  string `json:"configId"`
	Type      string `json:"type,omitempty"`
	Value     any    `json:"value"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *SetSessionConfigOptionRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	if r.ConfigID == "" {
		return &FieldError{Field: "configId", Problem: "required"}
	}
	switch r.Value.(type) {
	case string:
	case bool:
		if r.Type != "boolean" {
			return &FieldError{Field: "value", Problem: "must be a string value id"}
		}
	default:
		return &FieldError{Field: "value", Problem: "required (a string value id)"}
	}
	return nil
}

// SetSessionConfigOptionResponse carries the complete config state.
type SetSessionConfigOptionResponse struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          Meta                  `json:"_meta,omitempty"`
}

// StopReason says why a prompt turn ended.
type StopReason string

// Stop reasons defined by ACP v1.
const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// PromptRequest is the params of session/prompt.
type PromptRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
	Meta      Meta           `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *PromptRequest) Validate() error {
	if r.SessionID == "" {
		return &FieldError{Field: "sessionId", Problem: "required"}
	}
	if r.Prompt == nil {
		return &FieldError{Field: "prompt", Problem: "required"}
	}
	return nil
}

// UnmarshalJSON decodes the prompt in one pass, and on failure decodes it
// again block by block to name the index of the bad block.
func (r *PromptRequest) UnmarshalJSON(b []byte) error {
	var fast struct {
		SessionID string      `json:"sessionId"`
		Prompt    []wireBlock `json:"prompt"`
		Meta      Meta        `json:"_meta"`
	}
	if err := json.Unmarshal(b, &fast); err == nil {
		blocks := make([]ContentBlock, len(fast.Prompt))
		ok := fast.Prompt != nil
		for i := range fast.Prompt {
			if blocks[i].fromWire(&fast.Prompt[i]) != nil {
				ok = false
				break
			}
		}
		if ok {
			*r = PromptRequest{SessionID: fast.SessionID, Prompt: blocks, Meta: fast.Meta}
			return nil
		}
	}
	var raw struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
		Meta      Meta              `json:"_meta"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*r = PromptRequest{SessionID: raw.SessionID, Meta: raw.Meta}
	if raw.Prompt != nil {
		r.Prompt = make([]ContentBlock, len(raw.Prompt))
	}
	for i, item := range raw.Prompt {
		if err := json.Unmarshal(item, &r.Prompt[i]); err != nil {
			return fieldErrorAt(fmt.Sprintf("prompt[%d]", i), err)
		}
	}
	return nil
}

// PromptResponse is the result of session/prompt.
type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
	Meta       Meta       `json:"_meta,omitempty"`
}

// CancelRequestParams is the params of $/cancel_request.
type CancelRequestParams struct {
	RequestID json.RawMessage `json:"requestId"`
}
