package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC and ACP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
	CodeAuthRequired     = -32000
	CodeResourceNotFound = -32002
)

// Error is an error with a JSON-RPC code. Handlers return it (possibly
// wrapped) to choose the code the client sees; Data is sent as error.data.
// It is also what [Client] methods return when the client answers with an
// error.
type Error struct {
	Code    int
	Message string
	Data    any
}

// Error is the message, the code and, when there is one, error.data as
// JSON (cut at maxErrorDataBytes): a client's reason for refusing a
// request is often only in data (the official SDKs answer a handler that
// threw with "Internal error" and data.details), and it must reach the
// model and the user whole.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s (code %d)", e.Message, e.Code)
	if e.Data == nil {
		return s
	}
	b, err := json.Marshal(e.Data)
	if err != nil || string(b) == "null" {
		return s
	}
	d := string(b)
	if len(d) > maxErrorDataBytes {
		cut := maxErrorDataBytes
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
		d = d[:cut] + "…"
	}
	return s + ": " + d
}

// maxErrorDataBytes bounds the error.data shown by [Error.Error].
const maxErrorDataBytes = 2000

// ErrNotAdvertised is returned by [Client] methods the client did not
// advertise in initialize; nothing is sent.
var ErrNotAdvertised = errors.New("acp: client did not advertise this method")

// ErrClosed is returned by [Client] methods after the connection closed.
var ErrClosed = errors.New("acp: connection closed")

// MethodNotFound returns the -32601 error for method.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method, Data: map[string]any{"method": method}}
}

// InvalidParams returns a -32602 error.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// SessionNotFound returns the -32002 error for an unknown session, with
// data.sessionId as the TypeScript SDK expects.
func SessionNotFound(id string) *Error {
	return &Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("Session not found: %s", id), Data: map[string]any{"sessionId": id}}
}

// AuthRequired returns the -32000 error.
func AuthRequired(msg string) *Error {
	return &Error{Code: CodeAuthRequired, Message: "Authentication required: " + msg}
}

// toRPCError converts err to a wire error. It is the only place Go errors
// become JSON-RPC errors.
func toRPCError(err error) *jsonrpc2.Error {
	var e *Error
	var fe *FieldError
	var rpc *jsonrpc2.Error
	switch {
	case errors.As(err, &e):
		out := &jsonrpc2.Error{Code: int64(e.Code), Message: e.Message}
		if e.Data != nil {
			setData(out, e.Data)
		}
		return out
	case errors.As(err, &fe):
		out := &jsonrpc2.Error{Code: CodeInvalidParams, Message: "Invalid params: " + fe.Error()}
		setData(out, map[string]any{"field": fe.Field})
		return out
	case errors.As(err, &rpc):
		return rpc
	case errors.Is(err, context.Canceled):
		return &jsonrpc2.Error{Code: CodeRequestCancelled, Message: "Request cancelled"}
	}
	return &jsonrpc2.Error{Code: CodeInternalError, Message: "Internal error: " + err.Error()}
}

func setData(e *jsonrpc2.Error, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	raw := json.RawMessage(b)
	e.Data = &raw
}

// fieldErrorAt turns a decoding error of the member at path into a
// *FieldError naming the most precise field it can.
func fieldErrorAt(path string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		if path == "" {
			return fe
		}
		return fe.prefix(path)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		problem := fmt.Sprintf("expected %s, got %s", jsonKind(te.Type), te.Value)
		if f == "" {
			return &FieldError{Field: path, Problem: problem}
		}
		if path == "" {
			return &FieldError{Field: f, Problem: problem}
		}
		return &FieldError{Field: path + "." + f, Problem: problem}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FieldError{Field: path, Problem: "malformed JSON: " + se.Error()}
	}
	return &FieldError{Field: path, Problem: err.Error()}
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value of another type"
}

// decodeParams decodes raw params into v, validating when v has a Validate
// method, and returns a *FieldError naming the bad member.
func decodeParams(raw *json.RawMessage, v any) error {
	if raw == nil || string(*raw) == "null" {
		return &FieldError{Field: "params", Problem: "required"}
	}
	b := []byte(*raw)
	if len(b) == 0 || b[0] != '{' {
		return &FieldError{Field: "params", Problem: "must be an object"}
	}
	var err error
	if u, ok := v.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(b) // jsonrpc2 re-encoded params: already valid JSON
	} else {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return fieldErrorAt("", err)
	}
	if val, ok := v.(interface{ Validate() error }); ok {
		if err := val.Validate(); err != nil {
			return err
		}
	}
	return nil
}
