package acp

import (
	"encoding/json"
	"fmt"
)

// ProtocolVersion is the ACP major version this package speaks.
const ProtocolVersion = 1

// Implementation names a client or an agent.
type Implementation struct {
	Name    string  `json:"name"`
	Title   *string `json:"title,omitempty"`
	Version string  `json:"version"`
	Meta    Meta    `json:"_meta,omitempty"`
}

// FileSystemCapabilities says which fs/* methods the client serves.
type FileSystemCapabilities struct {
	ReadTextFile  bool `json:"readTextFile,omitempty"`
	WriteTextFile bool `json:"writeTextFile,omitempty"`
	Meta          Meta `json:"_meta,omitempty"`
}

// AuthCapabilities says which authentication method types the client runs.
type AuthCapabilities struct {
	Terminal bool `json:"terminal,omitempty"`
	Meta     Meta `json:"_meta,omitempty"`
}

// ClientSessionCapabilities are session-related client extensions.
type ClientSessionCapabilities struct {
	ConfigOptions *struct {
		Boolean *struct{} `json:"boolean,omitempty"`
	} `json:"configOptions,omitempty"`
	// Notices: the client presents "notice" session updates.
	Notices *Marker `json:"notices,omitempty"`
	Meta    Meta    `json:"_meta,omitempty"`
}

// ClientCapabilities are what the client advertised in initialize. Omitted
// capabilities are unsupported.
type ClientCapabilities struct {
	FS       FileSystemCapabilities     `json:"fs"`
	Terminal bool                       `json:"terminal,omitempty"`
	Auth     AuthCapabilities           `json:"auth"`
	Session  *ClientSessionCapabilities `json:"session,omitempty"`
	// Elicitation is the elicitation modes the client supports (nil:
	// none); see [ClientCapabilities.FormElicitation].
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
	Meta        Meta                     `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes leniently: a malformed optional member falls back to
// its default, as the schema's x-deserialize-default-on-error asks.
func (c *ClientCapabilities) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = ClientCapabilities{}
	lenient := func(key string, v any) {
		if raw, ok := m[key]; ok {
			if err := json.Unmarshal(raw, v); err != nil {
				// Reset to the default on error.
				switch p := v.(type) {
				case *FileSystemCapabilities:
					*p = FileSystemCapabilities{}
				case *bool:
					*p = false
				case *AuthCapabilities:
					*p = AuthCapabilities{}
				case **ClientSessionCapabilities:
					*p = nil
				case **ElicitationCapabilities:
					*p = nil
				case *Meta:
					*p = nil
				}
			}
		}
	}
	lenient("fs", &c.FS)
	lenient("terminal", &c.Terminal)
	lenient("auth", &c.Auth)
	lenient("session", &c.Session)
	lenient("elicitation", &c.Elicitation)
	lenient("_meta", &c.Meta)
	return nil
}

// InitializeRequest is the params of initialize.
type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               Meta               `json:"_meta,omitempty"`
}

// UnmarshalJSON requires protocolVersion and decodes clientInfo leniently.
func (r *InitializeRequest) UnmarshalJSON(b []byte) error {
	var raw struct {
		ProtocolVersion    *json.RawMessage   `json:"protocolVersion"`
		ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
		ClientInfo         json.RawMessage    `json:"clientInfo"`
		Meta               Meta               `json:"_meta"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.ProtocolVersion == nil {
		return &FieldError{Field: "protocolVersion", Problem: "required"}
	}
	var v int
	if err := json.Unmarshal(*raw.ProtocolVersion, &v); err != nil || v < 0 || v > 65535 {
		return &FieldError{Field: "protocolVersion", Problem: "must be an integer between 0 and 65535"}
	}
	*r = InitializeRequest{ProtocolVersion: v, ClientCapabilities: raw.ClientCapabilities, Meta: raw.Meta}
	if len(raw.ClientInfo) > 0 {
		var info Implementation
		if json.Unmarshal(raw.ClientInfo, &info) == nil && info.Name != "" {
			r.ClientInfo = &info
		}
	}
	return nil
}

// PromptCapabilities lists the prompt content types the agent accepts
// besides text and resource links.
type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// McpCapabilities lists the MCP transports the agent supports besides stdio.
type McpCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// Marker is an empty capability object whose presence means "supported".
type Marker struct{}

// SessionCapabilities are the optional session methods the agent supports.
type SessionCapabilities struct {
	List                  *Marker `json:"list,omitempty"`
	Fork                  *Marker `json:"fork,omitempty"` // unstable session/fork
	Delete                *Marker `json:"delete,omitempty"`
	AdditionalDirectories *Marker `json:"additionalDirectories,omitempty"`
	Resume                *Marker `json:"resume,omitempty"`
	Close                 *Marker `json:"close,omitempty"`
}

// AgentCapabilities are what the agent advertises in initialize.
type AgentCapabilities struct {
	LoadSession         bool                `json:"loadSession"`
	PromptCapabilities  PromptCapabilities  `json:"promptCapabilities"`
	McpCapabilities     McpCapabilities     `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities `json:"sessionCapabilities"`
	Meta                Meta                `json:"_meta,omitempty"`
}

// AuthMethod is an authentication method: an agent method (handled by
// authenticate) or, with Terminal set, a terminal method the client runs.
type AuthMethod struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description *string           `json:"description,omitempty"`
	Terminal    bool              `json:"-"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

// MarshalJSON writes "type":"terminal" for terminal methods and no type for
// agent methods.
func (a AuthMethod) MarshalJSON() ([]byte, error) {
	type plain AuthMethod
	if a.Terminal {
		return marshalTagged("type", "terminal", plain(a))
	}
	p := plain(a)
	p.Args, p.Env = nil, nil
	return json.Marshal(p)
}

// UnmarshalJSON decodes both method types.
func (a *AuthMethod) UnmarshalJSON(b []byte) error {
	type plain AuthMethod
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	tag, _, err := tagOf(b, "type")
	if err != nil {
		return err
	}
	switch tag {
	case "", "agent":
	case "terminal":
		p.Terminal = true
	default:
		return &FieldError{Field: "type", Problem: fmt.Sprintf("unknown auth method type %q", tag)}
	}
	*a = AuthMethod(p)
	return nil
}

// InitializeResponse is the result of initialize.
type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	Meta              Meta              `json:"_meta,omitempty"`
}

// AuthenticateRequest is the params of authenticate.
type AuthenticateRequest struct {
	MethodID string `json:"methodId"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// Validate checks required members.
func (r *AuthenticateRequest) Validate() error {
	if r.MethodID == "" {
		return &FieldError{Field: "methodId", Problem: "required"}
	}
	return nil
}

// Empty is the {} result of methods without a result payload.
type Empty struct {
	Meta Meta `json:"_meta,omitempty"`
}
