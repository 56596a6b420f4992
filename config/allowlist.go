package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

// allowlistMu serialises this process's writes of the configuration file.
var allowlistMu sync.Mutex

// SaveAllowlistEntry adds entry to command_allowlist in the configuration
// file at path ("allow always"), creating the file or the key when needed.
// The file is read again just before (another editor's agent may have
// changed it) and the rest of it is kept: keys, order and comments.
func SaveAllowlistEntry(path, entry string) error {
	allowlistMu.Lock()
	defer allowlistMu.Unlock()
	mode := fs.FileMode(0o600)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("save command_allowlist: %w", err)
		}
	case err != nil:
		return fmt.Errorf("save command_allowlist: %w", err)
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("save command_allowlist: %s is not valid YAML, so it was left as it is: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("save command_allowlist: %s is not a mapping of settings, so it was left as it is", path)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "command_allowlist" {
			list = root.Content[i+1]
		}
	}
	switch {
	case list == nil:
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "command_allowlist"}, list)
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
		*list = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	case list.Kind != yaml.SequenceNode:
		return fmt.Errorf("save command_allowlist: command_allowlist in %s is not a list, so it was left as it is", path)
	}
	for _, n := range list.Content {
		if n.Value == entry {
			return nil
		}
	}
	list.Style = 0 // block style, one entry per line
	list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: entry, Style: yaml.DoubleQuotedStyle})
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("save command_allowlist: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("save command_allowlist: %w", err)
	}
	if err := atomicfile.Write(path, out.Bytes(), mode); err != nil {
		return fmt.Errorf("save command_allowlist: %w", err)
	}
	return nil
}
