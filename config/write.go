package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

// UpdateModel sets keys under "model:" in the YAML file at path,
// keeping everything else (comments included).
func UpdateModel(path string, kv map[string]string) error {
	var doc yaml.Node
	data, err := os.ReadFile(path)
	switch {
	case err == nil && len(strings.TrimSpace(string(data))) > 0:
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s is not valid YAML (fix or remove it first): %w", path, err)
		}
	case err == nil || errors.Is(err, fs.ErrNotExist):
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	default:
		return err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s must be a YAML mapping", path)
	}
	root := doc.Content[0]
	modelNode := mappingValue(root, "model")
	if modelNode.Kind != yaml.MappingNode {
		*modelNode = yaml.Node{Kind: yaml.MappingNode}
	}
	for _, k := range []string{"default", "provider", "base_url", "api_key_env"} {
		if v, ok := kv[k]; ok {
			*mappingValue(modelNode, k) = yaml.Node{Kind: yaml.ScalarNode, Value: v}
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, out, 0o600)
}

// mappingValue returns the value node of key in m, adding it when missing.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: key}
	v := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, k, v)
	return v
}

// SetDotEnv sets KEY=value in a .env file, keeping its other lines.
func SetDotEnv(path, key, value string) error {
	var lines []string
	if data, err := os.ReadFile(path); err == nil {
		for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			t := strings.TrimPrefix(strings.TrimSpace(l), "export ")
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
				continue
			}
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	lines = append(lines, key+"="+value)
	return atomicfile.Write(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}
