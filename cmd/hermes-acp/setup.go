package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"golang.org/x/term"
	"gopkg.in/yaml.v3"
)

// runSetup is `hermes-acp --setup`, the terminal authentication flow: it asks
// for the model server, model and API key and writes them to
// $HERMES_HOME/config.yaml (and the key to $HERMES_HOME/.env, mode 0600).
func runSetup(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	home := hermesHome(getenv)
	cfgPath := filepath.Join(home, "config.yaml")
	cur := loadConfig(getenv, "", "")
	in := bufio.NewReader(stdin)
	fmt.Fprintf(stdout, "hermes-acp setup — writes %s\n\n", cfgPath)
	ask := func(question, def string) (string, error) {
		if def != "" {
			fmt.Fprintf(stdout, "%s [%s]: ", question, def)
		} else {
			fmt.Fprintf(stdout, "%s: ", question)
		}
		line, err := in.ReadString('\n')
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			return "", err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			return def, nil
		}
		return line, nil
	}
	curProvider := "openai"
	if cur.Provider == model.WireAnthropic {
		curProvider = "anthropic"
	}
	provider, err := ask("Provider: openai (any OpenAI-compatible server) or anthropic", curProvider)
	if err != nil {
		return setupAborted(stderr, err)
	}
	provider = strings.ToLower(provider)
	if provider != "openai" && provider != "anthropic" {
		fmt.Fprintf(stderr, "hermes-acp: provider %q is not openai or anthropic\n", provider)
		return 1
	}
	urlQuestion, urlDefault, modelDefault, keyVar := "Model server base URL (OpenAI-compatible, e.g. http://localhost:11434/v1)", "https://api.openai.com/v1", "gpt-4.1", "OPENAI_API_KEY"
	if provider == "anthropic" {
		urlQuestion, urlDefault, modelDefault, keyVar = "Anthropic API base URL", model.DefaultAnthropicBaseURL, "claude-sonnet-4-5", "ANTHROPIC_API_KEY"
	}
	if provider != curProvider {
		cur.BaseURL, cur.Model = "", ""
	}
	baseURL, err := ask(urlQuestion, firstNonEmpty(cur.BaseURL, urlDefault))
	if err != nil {
		return setupAborted(stderr, err)
	}
	modelName, err := ask("Model name", firstNonEmpty(cur.Model, modelDefault))
	if err != nil {
		return setupAborted(stderr, err)
	}
	keyPrompt := "API key (stored in " + filepath.Join(home, ".env") + " as " + keyVar + "; empty keeps the current one or uses none)"
	var key string
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if key, err = readSecret(f, stdout, keyPrompt+": "); err != nil {
			return setupAborted(stderr, err)
		}
		key = strings.TrimSpace(key)
	} else if key, err = ask(keyPrompt, ""); err != nil {
		return setupAborted(stderr, err)
	}
	if strings.Contains(modelName, " ") || modelName == "" {
		fmt.Fprintf(stderr, "hermes-acp: %q is not a model name\n", modelName)
		return 1
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		fmt.Fprintf(stderr, "hermes-acp: %v\n", err)
		return 1
	}
	updates := map[string]string{"default": modelName, "base_url": baseURL, "provider": provider}
	if key != "" {
		updates["api_key_env"] = keyVar
		if err := setDotEnv(filepath.Join(home, ".env"), keyVar, key); err != nil {
			fmt.Fprintf(stderr, "hermes-acp: %v\n", err)
			return 1
		}
	}
	if err := updateModelConfig(cfgPath, updates); err != nil {
		fmt.Fprintf(stderr, "hermes-acp: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nSaved. hermes-acp will use %s at %s.\n", modelName, baseURL)
	return 0
}

// setupCommand is how an editor that runs terminal authentication starts
// this executable's --setup (agent.SetupCommand): its absolute path, and
// HERMES_HOME (absolute) when it is set, so that the setup writes the
// configuration this process reads even from a terminal that does not have
// the editor's environment for the agent.
func setupCommand(getenv func(string) string, executable func() (string, error)) agent.SetupCommand {
	var c agent.SetupCommand
	if exe, err := executable(); err == nil {
		c.Path = exe
	}
	if h := getenv("HERMES_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			h = abs
		}
		c.Env = map[string]string{"HERMES_HOME": h}
	}
	return c
}

// readSecret shows prompt on the terminal f and reads a line without
// echoing it. The terminal leaves echo mode before the prompt appears, so a
// key typed or pasted as soon as the prompt shows is never echoed (the
// setup runs in an editor's terminal for terminal authentication).
func readSecret(f *os.File, out io.Writer, prompt string) (string, error) {
	fd := int(f.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return "", fmt.Errorf("read the key: %w", err)
	}
	defer term.Restore(fd, old)
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{f, out}, "")
	line, err := t.ReadPassword(prompt)
	if err != nil {
		return "", fmt.Errorf("read the key: %w", err)
	}
	return line, nil
}

func setupAborted(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "\nhermes-acp: setup aborted: %v\n", err)
	return 1
}

// updateModelConfig sets keys under "model:" in the YAML file at path,
// keeping everything else (comments included).
func updateModelConfig(path string, kv map[string]string) error {
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
	return writeFileAtomic(path, out, 0o600)
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

// setDotEnv sets KEY=value in a .env file, keeping its other lines.
func setDotEnv(path, key, value string) error {
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
	return writeFileAtomic(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

// writeFileAtomic writes data to a temporary file next to path and renames it.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hermes-tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
