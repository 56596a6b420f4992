package registry

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// coerce repairs a tool call's arguments against the tool's JSON Schema, as
// hermes's coerce_tool_args does: models often send "42" for 42, "true" for
// true, a JSON-encoded string for an array or object, or a bare value where
// the schema wants a list. Each top-level property with a schema is tried:
//
//   - a string becomes an integer or number ("42" → 42, "2.5" → 2.5); an
//     integral value becomes an int; "42.5" stays a string for "integer";
//     "inf" and "nan" stay strings;
//   - only "true"/"false" (trimmed, any case) become booleans, never "1"/"0";
//   - union types (["integer","string"]) are tried in order;
//   - a JSON string is decoded when the schema wants an array or object and
//     kept when it decodes to the wrong shape;
//   - a bare value where the schema wants an array becomes a one-element list
//     (nil is kept);
//   - "null" becomes nil only where the schema allows null;
//   - JSON-encoded elements and sub-fields are repaired recursively, guided by
//     items, properties and anyOf/oneOf/allOf.
//
// Properties without a schema are untouched. Without inPlace it never mutates args or
// anything inside it: when something changes it returns a new map (and new
// containers along the changed path), otherwise args itself.
//
// With inPlace it updates args itself, for maps the pipeline has just
// decoded and nobody else holds.
func coerce(args map[string]any, schema map[string]any, inPlace bool) map[string]any {
	if len(args) == 0 {
		return args
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return args
	}
	var out map[string]any
	set := func(k string, v any) {
		if out == nil {
			if out = args; !inPlace {
				out = maps.Clone(args)
			}
		}
		out[k] = v
	}
	for k, v := range args {
		ps, _ := props[k].(map[string]any)
		if len(ps) == 0 {
			continue
		}
		expected := ps["type"]
		if expected == "array" && v != nil && !isList(v) {
			if s, ok := v.(string); ok {
				if c, changed := coerceValue(s, expected, ps); changed {
					if c != nil {
						c, _ = normalizeForSchema(c, ps)
					}
					set(k, c)
					continue
				}
			}
			set(k, []any{v})
			continue
		}
		s, isString := v.(string)
		if !isString {
			if expected == "array" || expected == "object" {
				if n, changed := normalizeForSchema(v, ps); changed {
					set(k, n)
				}
			}
			continue
		}
		if isFalsy(expected) && !allowsNull(ps) {
			continue
		}
		if c, changed := coerceValue(s, expected, ps); changed {
			if isList(c) || isMap(c) {
				c, _ = normalizeForSchema(c, ps)
			}
			set(k, c)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// coerceValue tries to turn the string s into the schema type expected
// (hermes _coerce_value). It reports whether it changed anything.
func coerceValue(s string, expected any, schema map[string]any) (any, bool) {
	if allowsNull(schema) && strings.ToLower(strings.TrimSpace(s)) == "null" {
		return nil, true
	}
	if types, ok := typeList(expected); ok {
		for _, t := range types {
			if c, changed := coerceValue(s, t, schema); changed {
				return c, true
			}
		}
		return s, false
	}
	switch expected {
	case "integer", "number":
		return coerceNumber(s, expected == "integer")
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case "array":
		if v, err := decodeJSON(s); err == nil && isList(v) {
			return v, true
		}
	case "object":
		if v, err := decodeJSON(s); err == nil && isMap(v) {
			return v, true
		}
	case "null":
		if strings.ToLower(strings.TrimSpace(s)) == "null" {
			return nil, true
		}
	}
	return s, false
}

// coerceNumber parses s with Python float() syntax. Infinities and NaN stay
// strings; integral values become int; a fractional value stays a string
// when the schema wants an integer.
func coerceNumber(s string, integerOnly bool) (any, bool) {
	f, ok := parseNumber(s)
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return s, false
	}
	if f == math.Trunc(f) {
		if f >= math.MinInt64 && f < math.MaxInt64 {
			return int(f), true
		}
		return f, true // integral but beyond int: Python keeps an exact int; float64 is the closest Go value
	}
	if integerOnly {
		return s, false
	}
	return f, true
}

// parseNumber parses a number the model sent as a string, with the syntax
// of Python's float() that hermes coerces with: surrounding space, a sign,
// decimal digits with single underscores between digits ("1_000"), a
// fraction, an exponent, or inf, infinity and nan. strconv.ParseFloat
// does the work; the hexadecimal floats it also accepts are refused.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "xX") {
		return 0, false
	}
	if strings.Contains(s, "_") {
		for i := range len(s) {
			if s[i] == '_' && (i == 0 || !isDigit(s[i-1]) || i+1 == len(s) || !isDigit(s[i+1])) {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// normalizeForSchema parses JSON-encoded strings that the schema expects to
// be arrays or objects, recursing into list items and object properties
// (hermes _normalize_json_strings_for_schema). Changed containers are new.
func normalizeForSchema(v any, schema map[string]any) (any, bool) {
	if schema == nil {
		return v, false
	}
	changed := false
	if s, ok := v.(string); ok {
		trimmed := strings.TrimSpace(s)
		wantArray, wantObject := acceptsKind(schema, "array"), acceptsKind(schema, "object")
		if !(wantArray && strings.HasPrefix(trimmed, "[") || wantObject && strings.HasPrefix(trimmed, "{")) {
			return v, false
		}
		parsed, err := decodeJSON(trimmed)
		switch {
		case err != nil:
			return v, false
		case wantArray && isList(parsed), wantObject && isMap(parsed):
			v, changed = parsed, true
		default:
			return v, false
		}
	}
	switch t := v.(type) {
	case []any:
		items, ok := schema["items"].(map[string]any)
		if !ok {
			return v, changed
		}
		var out []any
		for i, item := range t {
			if n, c := normalizeForSchema(item, items); c {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = n
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		props, ok := schema["properties"].(map[string]any)
		if !ok {
			return v, changed
		}
		var out map[string]any
		for k, p := range props {
			ps, ok := p.(map[string]any)
			x, present := t[k]
			if !ok || !present {
				continue
			}
			if n, c := normalizeForSchema(x, ps); c {
				if out == nil {
					out = maps.Clone(t)
				}
				out[k] = n
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, changed
}

// acceptsKind reports whether schema permits JSON type kind, looking through
// anyOf/oneOf/allOf branches.
func acceptsKind(schema any, kind string) bool {
	m, ok := schema.(map[string]any)
	if !ok {
		return false
	}
	t := m["type"]
	if t == kind {
		return true
	}
	if types, ok := typeList(t); ok && slices.Contains(types, any(kind)) {
		return true
	}
	for _, key := range [...]string{"anyOf", "oneOf", "allOf"} {
		if branches, ok := m[key].([]any); ok {
			for _, b := range branches {
				if acceptsKind(b, kind) {
					return true
				}
			}
		}
	}
	return false
}

// allowsNull reports whether a schema fragment explicitly permits null.
func allowsNull(schema map[string]any) bool {
	t := schema["type"]
	if t == "null" {
		return true
	}
	if types, ok := typeList(t); ok && slices.Contains(types, any("null")) {
		return true
	}
	if schema["nullable"] == true {
		return true
	}
	for _, key := range [...]string{"anyOf", "oneOf"} {
		if variants, ok := schema[key].([]any); ok {
			for _, v := range variants {
				if m, ok := v.(map[string]any); ok && m["type"] == "null" {
					return true
				}
			}
		}
	}
	return false
}

// typeList returns a union "type" as a list of values.
func typeList(t any) ([]any, bool) {
	switch l := t.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// isFalsy mirrors Python truthiness for a schema "type" value.
func isFalsy(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case []any:
		return len(t) == 0
	case []string:
		return len(t) == 0
	}
	return false
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// isList reports whether v is a list (any slice except raw bytes).
func isList(v any) bool {
	switch v.(type) {
	case []any, []string:
		return true
	case nil, string, map[string]any, bool, int, float64:
		return false
	}
	k := reflect.TypeOf(v).Kind()
	return (k == reflect.Slice || k == reflect.Array) && reflect.TypeOf(v).Elem().Kind() != reflect.Uint8
}
