package registry

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// decodeJSON decodes exactly one JSON value from s with encoding/json into
// map[string]any, []any, string, bool and nil, with numbers as hermes's
// Python json module gives them: an integer literal (no fraction or
// exponent) that fits an int is an int, any other number a float64, and a
// literal beyond float64's range keeps its digits as a string rather than
// become an infinity. This is the one place the tool pipeline turns JSON
// numbers into Go values (ParseArgs, coercion, the guardrails' result
// hash, the registry's schema copies).
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	if off := dec.InputOffset(); strings.TrimLeft(s[off:], " \t\r\n") != "" {
		return nil, fmt.Errorf("decode json: offset %d: trailing data after value", off)
	}
	return pythonNumbers(v), nil
}

// pythonNumbers replaces, in place, every json.Number in v by its Python
// value (see decodeJSON) and returns v.
func pythonNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		return pythonNumber(string(t))
	case map[string]any:
		for k, x := range t {
			if needsNumbers(x) {
				t[k] = pythonNumbers(x)
			}
		}
	case []any:
		for i, x := range t {
			if needsNumbers(x) {
				t[i] = pythonNumbers(x)
			}
		}
	}
	return v
}

// needsNumbers reports whether v is a number or a container that may
// hold one: strings, booleans and nulls are left alone.
func needsNumbers(v any) bool {
	switch v.(type) {
	case json.Number, map[string]any, []any:
		return true
	}
	return false
}

// pythonNumber converts a JSON number literal (valid, as encoding/json
// checked it) like Python's json module.
func pythonNumber(lit string) any {
	if !strings.ContainsAny(lit, ".eE") {
		if n, err := strconv.ParseInt(lit, 10, strconv.IntSize); err == nil {
			return int(n)
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && math.IsInf(f, 0) {
		return lit
	}
	return f
}
