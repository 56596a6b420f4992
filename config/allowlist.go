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
	err := editAllowlist(path, true, func(list *yaml.Node) bool {
		for _, n := range list.Content {
			if n.Value == entry {
				return false
			}
		}
		list.Style = 0 // block style, one entry per line
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: entry, Style: yaml.DoubleQuotedStyle})
		return true
	})
	if err != nil {
		return fmt.Errorf("save command_allowlist: %w", err)
	}
	return nil
}

// RemoveAllowlistEntry removes every copy of entry from command_allowlist
// in the configuration file at path (/allowlist remove), keeping the rest
// of the file as SaveAllowlistEntry does. An entry that is not there, or a
// file that does not exist, is not an error: found reports whether the
// file held it.
func RemoveAllowlistEntry(path, entry string) (found bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	err = editAllowlist(path, false, func(list *yaml.Node) bool {
		kept := list.Content[:0]
		for _, n := range list.Content {
			if n.Value == entry {
				found = true
				continue
			}
			kept = append(kept, n)
		}
		list.Content = kept
		return found
	})
	if err != nil {
		return false, fmt.Errorf("remove from command_allowlist: %w", err)
	}
	return found, nil
}

// editAllowlist changes the command_allowlist list of the configuration
// file at path with edit, under this process's lock, and writes the file
// back atomically (mode kept) when edit reports a change. create makes the
// file and the key when they are missing.
func editAllowlist(path string, create bool, edit func(list *yaml.Node) bool) error {
	allowlistMu.Lock()
	defer allowlistMu.Unlock()
	mode := fs.FileMode(0o600)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s is not valid YAML, so it was left as it is: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s is not a mapping of settings, so it was left as it is", path)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "command_allowlist" {
			list = root.Content[i+1]
		}
	}
	switch {
	case list == nil && !create:
		return nil
	case list == nil:
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "command_allowlist"}, list)
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
		*list = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	case list.Kind != yaml.SequenceNode:
		return fmt.Errorf("command_allowlist in %s is not a list, so it was left as it is", path)
	}
	if !edit(list) {
		return nil
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return atomicfile.Write(path, out.Bytes(), mode)
}
