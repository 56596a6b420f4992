package registry

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// SchemaOf derives the JSON Schema of a tool's arguments object from
// params, a value of the tool's parameters struct — the struct the
// handler decodes the arguments into, so the two cannot drift apart.
//
// Each exported field with a json name is a property (json:"-" and
// unexported fields are skipped). Its type follows the Go type: string,
// bool, the integer kinds ("integer"), the float kinds ("number"), slices
// ("array" with items), structs and maps ("object"); pointers are their
// element (optional, nullable in Go only). Tags add the rest:
//
//	schema:"-"               not in the schema: an argument the handler
//	                         reads (a misuse it answers) but never offers
//	desc:"…"                 the description
//	enum:"a,b,c"             the allowed values (of the field's type)
//	schema:"required,…"      required, and keywords: type=… (overrides the
//	                         Go type), items=… (the type of an array's
//	                         items), default=…, minimum=…, maximum=…,
//	                         minItems=…, maxItems=…, minLength=…, maxLength=…,
//	                         additionalProperties=…, properties=… (of an
//	                         object whose members the handler reads itself)
//
// Keyword values are JSON, except default of a string property, which is
// the text itself. The top-level object always lists "required" (empty
// when no field is), as hermes's schemas do; nested objects list it only
// when some field is required.
func SchemaOf(params any) (map[string]any, error) {
	t := reflect.TypeOf(params)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema of %T: the parameters must be a struct", params)
	}
	s, err := objectSchema(t, true)
	if err != nil {
		return nil, fmt.Errorf("schema of %v: %w", t, err)
	}
	return s, nil
}

// objectSchema is the schema of struct type t; top says it is the
// arguments object itself.
func objectSchema(t reflect.Type, top bool) (map[string]any, error) {
	props := map[string]any{}
	required := []any{}
	for f := range fieldsOf(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() || f.Tag.Get("schema") == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p, req, err := propertySchema(f)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		props[name] = p
		if req {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if top || len(required) > 0 {
		s["required"] = required
	}
	return s, nil
}

// fieldsOf yields t's fields, those of embedded structs in their place.
func fieldsOf(t reflect.Type) func(yield func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
				for g := range fieldsOf(f.Type) {
					if !yield(g) {
						return
					}
				}
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

// propertySchema is the schema of one field and whether it is required.
func propertySchema(f reflect.StructField) (map[string]any, bool, error) {
	s, err := typeSchema(f.Type)
	if err != nil {
		return nil, false, err
	}
	if d, ok := f.Tag.Lookup("desc"); ok {
		s["description"] = d
	}
	required := false
	if opts, ok := f.Tag.Lookup("schema"); ok {
		for _, opt := range strings.Split(opts, ",") {
			k, v, hasValue := strings.Cut(strings.TrimSpace(opt), "=")
			switch {
			case k == "required" && !hasValue:
				required = true
			case k == "type" && hasValue:
				s["type"] = v
			case k == "items" && hasValue:
				s["items"] = map[string]any{"type": v}
			case hasValue && isKeyword(k):
				val, err := keywordValue(k, v, s["type"])
				if err != nil {
					return nil, false, err
				}
				s[k] = val
			default:
				return nil, false, fmt.Errorf("unknown schema option %q", opt)
			}
		}
	}
	if e, ok := f.Tag.Lookup("enum"); ok {
		var values []any
		for _, v := range strings.Split(e, ",") {
			val, err := keywordValue("enum", v, s["type"])
			if err != nil {
				return nil, false, err
			}
			values = append(values, val)
		}
		s["enum"] = values
	}
	return s, required, nil
}

// isKeyword reports whether k is a schema keyword the schema tag may set.
func isKeyword(k string) bool {
	switch k {
	case "default", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength",
		"additionalProperties", "properties":
		return true
	}
	return false
}

// keywordValue decodes the value v of keyword k for a property of type
// typ: the text itself for a string's default or enum, JSON otherwise.
func keywordValue(k, v string, typ any) (any, error) {
	if typ == "string" && (k == "default" || k == "enum") {
		return v, nil
	}
	var val any
	if err := json.Unmarshal([]byte(v), &val); err != nil {
		return nil, fmt.Errorf("%s=%s: %w", k, v, err)
	}
	if n, ok := val.(float64); ok && n == math.Trunc(n) && math.Abs(n) < 1<<53 {
		return int(n), nil // the shape decoded arguments have (see copyJSONShaped)
	}
	return val, nil
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// typeSchema is the schema of Go type t without annotations.
func typeSchema(t reflect.Type) (map[string]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessage {
		return map[string]any{}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice, reflect.Array:
		items, err := typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	case reflect.Map:
		return map[string]any{"type": "object"}, nil
	case reflect.Struct:
		return objectSchema(t, false)
	case reflect.Interface:
		return map[string]any{}, nil // any JSON value; a schema tag's type= says more
	}
	return nil, fmt.Errorf("type %v has no JSON Schema", t)
}
