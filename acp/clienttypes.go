package acp

import (
	"encoding/json"
	"fmt"
)

// PermissionOptionKind hints how the client shows a permission option.
type PermissionOptionKind string

// Permission option kinds defined by ACP v1.
const (
	AllowOnce    PermissionOptionKind = "allow_once"
	AllowAlways  PermissionOptionKind = "allow_always"
	RejectOnce   PermissionOptionKind = "reject_once"
	RejectAlways PermissionOptionKind = "reject_always"
)

// PermissionOption is one answer the user can pick.
type PermissionOption struct {
	OptionID string               `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
	Meta     Meta                 `json:"_meta,omitempty"`
}

// RequestPermissionRequest is the params of session/request_permission.
type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	Meta      Meta               `json:"_meta,omitempty"`
}

// PermissionOutcome is the user's answer: Cancelled, or the selected OptionID.
type PermissionOutcome struct {
	Cancelled bool
	OptionID  string
}

// MarshalJSON writes the outcome union.
func (o PermissionOutcome) MarshalJSON() ([]byte, error) {
	if o.Cancelled {
		return []byte(`{"outcome":"cancelled"}`), nil
	}
	return marshalTagged("outcome", "selected", struct {
		OptionID string `json:"optionId"`
	}{o.OptionID})
}

// UnmarshalJSON decodes the outcome union.
func (o *PermissionOutcome) UnmarshalJSON(b []byte) error {
	tag, _, err := tagOf(b, "outcome")
	if err != nil {
		return err
	}
	switch tag {
	case "cancelled":
		*o = PermissionOutcome{Cancelled: true}
	case "selected":
		var v struct {
			OptionID string `json:"optionId"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		if v.OptionID == "" {
			return &FieldError{Field: "optionId", Problem: "required"}
		}
		*o = PermissionOutcome{OptionID: v.OptionID}
	default:
		return &FieldError{Field: "outcome", Problem: fmt.Sprintf("unknown outcome %q", tag)}
	}
	return nil
}

// RequestPermissionResponse is the result of session/request_permission.
type RequestPermissionResponse struct {
	Outcome PermissionOutcome `json:"outcome"`
	Meta    Meta              `json:"_meta,omitempty"`
}

// ReadTextFileRequest is the params of fs/read_text_file. Line is 1-based.
type ReadTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// ReadTextFileResponse is the result of fs/read_text_file.
type ReadTextFileResponse struct {
	Content string `json:"content"`
	Meta    Meta   `json:"_meta,omitempty"`
}

// WriteTextFileRequest is the params of fs/write_text_file.
type WriteTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// CreateTerminalRequest is the params of terminal/create.
type CreateTerminalRequest struct {
	SessionID       string        `json:"sessionId"`
	Command         string        `json:"command"`
	Args            []string      `json:"args,omitempty"`
	Env             []EnvVariable `json:"env,omitempty"`
	Cwd             *string       `json:"cwd,omitempty"`
	OutputByteLimit *uint64       `json:"outputByteLimit,omitempty"`
	Meta            Meta          `json:"_meta,omitempty"`
}

// CreateTerminalResponse is the result of terminal/create.
type CreateTerminalResponse struct {
	TerminalID string `json:"terminalId"`
}

// TerminalRequest is the params of terminal/output, wait_for_exit, kill and
// release.
type TerminalRequest struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

// TerminalExitStatus is how a terminal command ended.
type TerminalExitStatus struct {
	ExitCode *uint32 `json:"exitCode,omitempty"`
	Signal   *string `json:"signal,omitempty"`
}

// TerminalOutputResponse is the result of terminal/output.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
}
