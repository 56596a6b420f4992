package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// errNotObject reports tool arguments that are valid JSON but not an object.
var errNotObject = errors.New("tool arguments are not a JSON object")

// ParseArgs decodes a model's raw tool arguments the way hermes does: empty
// or whitespace-only text is {}, anything that is not a JSON object is an
// error. Numbers written without a fraction or exponent that fit in an int
// become int, every other number float64 (Python's json semantics).
func ParseArgs(raw string) (map[string]any, error) {
	if strings.TrimSpace(raw) == "" {
		return map[string]any{}, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return m, nil
}

// marshalJSON encodes v compactly without HTML escaping (the model reads it,
// not a browser). It only fails for values JSON cannot represent.
func marshalJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode json: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// String returns the string argument key.
func (c *Call) String(key string) (string, bool) {
	s, ok := c.Args[key].(string)
	return s, ok
}

// Int returns the integer argument key. It accepts int, int64 and integral
// float64 values (a JSON number may arrive either way).
func (c *Call) Int(key string) (int, bool) {
	switch n := c.Args[key].(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int(n), true
		}
	}
	return 0, false
}

// Float returns the numeric argument key as a float64.
func (c *Call) Float(key string) (float64, bool) {
	switch n := c.Args[key].(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// Bool returns the boolean argument key.
func (c *Call) Bool(key string) (bool, bool) {
	b, ok := c.Args[key].(bool)
	return b, ok
}

// Strings returns the argument key as a list of strings; it reports false
// when the value is not a list or holds a non-string.
func (c *Call) Strings(key string) ([]string, bool) {
	switch l := c.Args[key].(type) {
	case []string:
		return l, true
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
