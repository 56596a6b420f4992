package acp

import (
	"context"
	"encoding/json"
)

// Elicitation (stable since schema 1.21): the agent asks the user for
// structured input with elicitation/create. Only form mode, scoped to a
// session (and a tool call), is modelled here; the client must have
// advertised clientCapabilities.elicitation.form.

// ElicitationCapabilities are the elicitation modes the client supports:
// a non-nil member (an object, {} or with _meta) advertises its mode;
// elicitation {} alone advertises none.
type ElicitationCapabilities struct {
	Form *Marker `json:"form,omitempty"`
	URL  *Marker `json:"url,omitempty"`
	Meta Meta    `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes leniently: a malformed mode is not advertised (the
// schema's x-deserialize-default-on-error).
func (c *ElicitationCapabilities) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = ElicitationCapabilities{}
	mode := func(key string) *Marker {
		raw, ok := m[key]
		if !ok {
			return nil
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return nil // null, or not an object
		}
		return &Marker{}
	}
	c.Form, c.URL = mode("form"), mode("url")
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &c.Meta)
	}
	return nil
}

// FormElicitation reports whether the client advertised form elicitation.
func (c ClientCapabilities) FormElicitation() bool {
	return c.Elicitation != nil && c.Elicitation.Form != nil
}

// ElicitationModeForm is the form mode of elicitation/create.
const ElicitationModeForm = "form"

// CreateElicitationRequest is the params of a form-mode elicitation/create
// scoped to a session (and, optionally, one of its tool calls): the client
// shows Message and a form built from RequestedSchema.
type CreateElicitationRequest struct {
	SessionID       string            `json:"sessionId"`
	ToolCallID      string            `json:"toolCallId,omitempty"`
	Message         string            `json:"message"`
	Mode            string            `json:"mode"` // ElicitationModeForm
	RequestedSchema ElicitationSchema `json:"requestedSchema"`
	Meta            Meta              `json:"_meta,omitempty"`
}

// ElicitationSchema is the form: an object of primitive properties.
type ElicitationSchema struct {
	Type        string                         `json:"type"` // "object"
	Title       string                         `json:"title,omitempty"`
	Description string                         `json:"description,omitempty"`
	Properties  map[string]ElicitationProperty `json:"properties"`
	Required    []string                       `json:"required,omitempty"`
}

// ElicitationProperty is one string field of a form (a single-select when
// Enum is set). Other property types are not used by the agent.
type ElicitationProperty struct {
	Type        string   `json:"type"` // "string"
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	MinLength   *int     `json:"minLength,omitempty"`
	MaxLength   *int     `json:"maxLength,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Default     string   `json:"default,omitempty"`
}

// Elicitation actions of the client's answer.
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)

// CreateElicitationResponse is the client's answer: Action accept (with
// Content, the form's values by property), decline or cancel — or a
// custom action the agent treats as none of them.
type CreateElicitationResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Meta    Meta           `json:"_meta,omitempty"`
}

// CreateElicitation asks the user to fill in a form. It refuses, with
// [ErrNotAdvertised] and without sending anything, unless the client
// advertised form elicitation. When ctx ends first (the turn was
// cancelled) it sends $/cancel_request for the request, so that the
// editor takes the form down, and returns ctx's error.
func (cl *Client) CreateElicitation(ctx context.Context, req *CreateElicitationRequest) (*CreateElicitationResponse, error) {
	if !cl.Capabilities().FormElicitation() || req.Mode != ElicitationModeForm {
		return nil, ErrNotAdvertised
	}
	var res CreateElicitationResponse
	if err := cl.c.call(ctx, "elicitation/create", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
