package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Meta is the free-form _meta object every ACP type may carry.
type Meta map[string]any

// marshalTagged marshals v, whose JSON form is an object, with key set to tag
// as its first member. It is how every tagged union in this package is written.
func marshalTagged(key, tag string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("marshal %s %q: variant is not an object", key, tag)
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + len(key) + len(tag) + 8)
	buf.WriteString(`{"`)
	buf.WriteString(key)
	buf.WriteString(`":`)
	buf.WriteString(strconv.Quote(tag))
	if len(b) > 2 {
		buf.WriteByte(',')
	}
	buf.Write(b[1:])
	return buf.Bytes(), nil
}

// tagOf returns the string value of member key in the JSON object data, and
// whether it was present.
func tagOf(data []byte, key string) (string, bool, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return "", false, err
	}
	raw, ok := m[key]
	if !ok {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, &FieldError{Field: key, Problem: "must be a string"}
	}
	return s, true, nil
}

// FieldError reports a params member with a missing or malformed value. The
// dispatcher turns it into a -32602 error whose message names the field.
type FieldError struct {
	Field   string // dotted path such as "prompt[0].type"
	Problem string // e.g. "required", "unknown value \"x\""
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

// prefix returns e with its field path prefixed by p.
func (e *FieldError) prefix(p string) *FieldError {
	if e.Field == "" {
		return &FieldError{Field: p, Problem: e.Problem}
	}
	sep := "."
	if e.Field[0] == '[' {
		sep = ""
	}
	return &FieldError{Field: p + sep + e.Field, Problem: e.Problem}
}
