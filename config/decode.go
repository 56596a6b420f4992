package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decodeConfig decodes config.yaml into fc key by key, so that one bad
// value costs only its own setting. It returns the bad values, in plain
// words, each naming its key and what it should be; a file that is not YAML
// at all is one problem. Unknown keys are skipped here and listed by
// [unknownKeys].
func decodeConfig(data []byte, fc *fileConfig) (problems []string) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return []string{fmt.Sprintf("it is not valid YAML (%s), so none of its settings apply", strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	if len(doc.Content) == 0 {
		return nil // empty file
	}
	d := configDecoder{}
	d.decode(doc.Content[0], reflect.ValueOf(fc).Elem(), "")
	return d.problems
}

type configDecoder struct {
	problems []string
}

func (d *configDecoder) decode(n *yaml.Node, v reflect.Value, path string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // `key:` with nothing after it: the default
	}
	custom := v.CanAddr() && v.Addr().Type().Implements(reflect.TypeFor[yaml.Unmarshaler]())
	switch {
	case v.Kind() == reflect.Struct && !custom:
		if n.Kind != yaml.MappingNode {
			d.bad(n, path, "a section of `key: value` lines")
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			f, ok := fieldByKey(v, key)
			if !ok {
				continue // listed by unknownKeys
			}
			d.decode(n.Content[i+1], f, join(path, key))
		}
	case v.Kind() == reflect.Map && v.Type().Elem().Kind() == reflect.Struct && !custom:
		if n.Kind != yaml.MappingNode {
			d.bad(n, path, "a section of `name: settings` entries")
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			elem := reflect.New(v.Type().Elem()).Elem()
			d.decode(n.Content[i+1], elem, join(path, key))
			v.SetMapIndex(reflect.ValueOf(key), elem)
		}
	default:
		tmp := reflect.New(v.Type())
		if err := n.Decode(tmp.Interface()); err != nil {
			d.bad(n, path, describe(v.Type()))
			return
		}
		v.Set(tmp.Elem())
	}
}

// bad records a value of the wrong kind.
func (d *configDecoder) bad(n *yaml.Node, path, want string) {
	d.problems = append(d.problems, fmt.Sprintf("%s: %s is not %s; this setting is ignored", path, shown(n), want))
}

// fieldByKey returns the field of struct v whose yaml tag is key.
func fieldByKey(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// describe says in plain words what a value of type t looks like.
func describe(t reflect.Type) string {
	if t == reflect.TypeFor[time.Duration]() {
		return "a duration like 30s"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return describe(t.Elem())
	case reflect.String:
		return "a single text value"
	case reflect.Slice:
		return "a list like [a, b]"
	case reflect.Map:
		return "a section of `name: value` lines"
	}
	return "a value of the right kind"
}

// shown is how the user wrote a value, for messages.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		v := n.Value
		if len([]rune(v)) > 40 {
			v = string([]rune(v)[:39]) + "…"
		}
		if n.Tag == "!!str" {
			return fmt.Sprintf("%q", v)
		}
		return v
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a section"
	}
	return "the value"
}
