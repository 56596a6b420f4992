package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file converts tool-call arguments between JSON text and YAML nodes,
// keeping the order of object keys both ways, so a recorded script replays
// the arguments exactly as the model wrote them (up to white space).

// nodeJSON writes the YAML value n as JSON to buf.
func nodeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	return nodeJSONDepth(buf, n, 0)
}

const maxJSONDepth = 200

func nodeJSONDepth(buf *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > maxJSONDepth {
		return errors.New("nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return nodeJSONDepth(buf, n.Content[0], depth+1)
	case yaml.AliasNode:
		return nodeJSONDepth(buf, n.Alias, depth+1)
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a mapping key must be a plain value", k.Line)
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k.Value)
			buf.WriteByte(':')
			if err := nodeJSONDepth(buf, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := nodeJSONDepth(buf, c, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return scalarJSON(buf, n)
	}
	return fmt.Errorf("line %d: unsupported YAML value", n.Line)
}

// scalarJSON writes a YAML scalar as JSON.
func scalarJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		buf.WriteString("null")
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return err
		}
		fmt.Fprint(buf, b)
		return nil
	case "!!int", "!!float":
		if isJSONNumber(n.Value) {
			buf.WriteString(n.Value)
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("line %d: %s cannot be written as JSON", n.Line, n.Value)
		}
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
	writeJSONString(buf, n.Value)
	return nil
}

// isJSONNumber reports whether s is a JSON number literal.
func isJSONNumber(s string) bool {
	if s == "" || strings.ContainsAny(s, "_xXoO") {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	n, ok := v.(json.Number)
	return ok && n.String() == s && !dec.More()
}

func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // drop the newline Encode adds
}

// jsonNode converts JSON text holding an object or array to a block-style
// YAML node, keeping key order. It reports false for anything else,
// including invalid JSON.
func jsonNode(text string) (*yaml.Node, bool) {
	t := strings.TrimSpace(text)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	n, err := tokenNode(dec, 0)
	if err != nil {
		return nil, false
	}
	return n, true
}

// tokenNode reads one JSON value from dec as a YAML node.
func tokenNode(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				val, err := tokenNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, strNode(k), val)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return n, nil
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := tokenNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			if len(n.Content) == 0 {
				n.Style = yaml.FlowStyle // "[]"
			}
			return n, nil
		}
		return nil, io.ErrUnexpectedEOF
	case string:
		return strNode(v), nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(v.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
