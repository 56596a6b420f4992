package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Result is what a tool call returns. Value is what the model reads; it is
// encoded once, by [Result.Encode], just before the model sees it. IsError
// is the tool's own verdict: the guardrails, the editor's status and the
// result budget read it, and nothing parses the encoded text to guess it.
// Data carries structured extras for the tool's render function and the
// agent (lint findings, a file's resolved path); the model never sees it.
type Result struct {
	// Value is encoded as JSON (without HTML escaping), except that a
	// string is sent as it is (an MCP server's text, a pre-rendered note).
	Value   any
	IsError bool
	Data    any
	// Hint is text the model reads after the value, on a line of its own
	// (hermes appends "[Hint: …]" lines to some results).
	Hint string
}

// errorValue is the one shape of an error result: {"error": message}.
type errorValue struct {
	Error string `json:"error"`
}

// Error returns the failed result {"error": msg}.
func Error(msg string) Result { return Result{Value: errorValue{msg}, IsError: true} }

// Errorf returns the failed result {"error": fmt.Sprintf(format, args...)}.
func Errorf(format string, args ...any) Result { return Error(fmt.Sprintf(format, args...)) }

// OK returns a successful result whose value the model reads.
func OK(v any) Result { return Result{Value: v} }

// Failed returns a failed result with a value of the tool's own shape (hermes
// tools that report an error with more keys than "error").
func Failed(v any) Result { return Result{Value: v, IsError: true} }

// Text returns a result the model reads verbatim.
func Text(s string, isError bool) Result { return Result{Value: s, IsError: isError} }

// ErrorMessage returns the message of a result made by [Error], or "".
func (r Result) ErrorMessage() string {
	if e, ok := r.Value.(errorValue); ok {
		return e.Error
	}
	return ""
}

// Encode renders the value for the model: a string as it is, anything else
// as compact JSON without HTML escaping, followed by the hint if any. A value JSON cannot represent
// becomes an error result naming the problem.
func (r Result) Encode() string {
	s, _ := r.encode()
	return s
}

// encode is Encode, reporting false when the value could not be encoded
// (the text is then an error result, without the hint).
func (r Result) encode() (string, bool) {
	var s string
	switch v := r.Value.(type) {
	case string:
		s = v
	case nil:
		s = "null"
	default:
		var err error
		if s, err = marshalJSON(r.Value); err != nil {
			s, _ = marshalJSON(errorValue{"encode result: " + err.Error()})
			return s, false
		}
	}
	if r.Hint != "" {
		s += "\n\n" + r.Hint
	}
	return s, true
}

// DecodeArgs decodes the call's arguments (after coercion) into the
// tool's typed parameters p, a pointer to a struct with json tags. A value of
// the wrong type gives an *ArgError naming the argument, the type wanted and
// the type the model sent, in hermes's words. Numbers in fields of type any
// stay exact (json.Number).
func DecodeArgs(call *Call, p any) error {
	raw, err := marshalJSON(call.Args)
	if err != nil {
		return fmt.Errorf("%s: arguments: %w", call.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	if err := dec.Decode(p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if i := strings.LastIndexByte(field, '.'); i >= 0 && !strings.HasSuffix(field, "]") {
				field = field[i+1:]
			}
			return &ArgError{Tool: call.Name, Arg: field, Want: goTypeWord(te.Type), Got: pyType(call.Args[field], te.Value)}
		}
		return fmt.Errorf("%s: arguments: %w", call.Name, err)
	}
	return nil
}

// ArgError is an argument of the wrong type.
type ArgError struct {
	Tool, Arg, Want, Got string
}

// Error reads "<tool>: '<arg>' must be a <want>, got <got>.".
func (e *ArgError) Error() string {
	return fmt.Sprintf("%s: '%s' must be %s, got %s.", e.Tool, e.Arg, e.Want, e.Got)
}

// goTypeWord names a Go type as the model knows JSON types.
func goTypeWord(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// pyType names a decoded argument's type as Python would (the model reads
// hermes's messages): str, int, float, bool, list, dict, NoneType.
func pyType(v any, jsonKind string) string {
	switch v.(type) {
	case nil:
		if jsonKind == "" {
			return "NoneType"
		}
	case string:
		return "str"
	case bool:
		return "bool"
	case int, int64:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	switch {
	case jsonKind == "string":
		return "str"
	case jsonKind == "bool":
		return "bool"
	case strings.HasPrefix(jsonKind, "number"):
		return "int"
	case jsonKind == "array":
		return "list"
	case jsonKind == "object":
		return "dict"
	}
	return "NoneType"
}
