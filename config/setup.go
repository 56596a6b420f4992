package config

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/model"
	"golang.org/x/term"
)

// ErrAborted is the error [Setup] returns, wrapping the reason, when its
// input ends or fails before every answer is in.
var ErrAborted = errors.New("setup aborted")

// Setup is `hermes-acp --setup`, the terminal authentication flow: it asks
// on stdout for the model server, model and API key, reads the answers from
// stdin (the key without echo when stdin is a terminal) and writes them to
// $HERMES_HOME/config.yaml (and the key to $HERMES_HOME/.env, mode 0600),
// keeping the files' other settings and comments.
func Setup(stdin io.Reader, stdout io.Writer, getenv func(string) string) error {
	home := Home(getenv)
	cfgPath := filepath.Join(home, "config.yaml")
	cur := Load(getenv, "", "")
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
		return fmt.Errorf("%w: %w", ErrAborted, err)
	}
	provider = strings.ToLower(provider)
	if provider != "openai" && provider != "anthropic" {
		return fmt.Errorf("provider %q is not openai or anthropic", provider)
	}
	urlQuestion, urlDefault, modelDefault, keyVar := "Model server base URL (OpenAI-compatible, e.g. http://localhost:11434/v1)", "https://api.openai.com/v1", "gpt-4.1", "OPENAI_API_KEY"
	if provider == "anthropic" {
		urlQuestion, urlDefault, modelDefault, keyVar = "Anthropic API base URL", model.DefaultAnthropicBaseURL, "claude-sonnet-4-5", "ANTHROPIC_API_KEY"
	}
	if provider != curProvider {
		cur.BaseURL, cur.Model = "", ""
	}
	baseURL, err := ask(urlQuestion, cmp.Or(cur.BaseURL, urlDefault))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAborted, err)
	}
	modelName, err := ask("Model name", cmp.Or(cur.Model, modelDefault))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAborted, err)
	}
	keyPrompt := "API key (stored in " + filepath.Join(home, ".env") + " as " + keyVar + "; empty keeps the current one or uses none)"
	var key string
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if key, err = readSecret(f, stdout, keyPrompt+": "); err != nil {
			return fmt.Errorf("%w: %w", ErrAborted, err)
		}
		key = strings.TrimSpace(key)
	} else if key, err = ask(keyPrompt, ""); err != nil {
		return fmt.Errorf("%w: %w", ErrAborted, err)
	}
	if strings.Contains(modelName, " ") || modelName == "" {
		return fmt.Errorf("%q is not a model name", modelName)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	updates := map[string]string{"default": modelName, "base_url": baseURL, "provider": provider}
	if key != "" {
		updates["api_key_env"] = keyVar
		if err := SetDotEnv(filepath.Join(home, ".env"), keyVar, key); err != nil {
			return err
		}
	}
	if err := UpdateModel(cfgPath, updates); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nSaved. hermes-acp will use %s at %s.\n", modelName, baseURL)
	return nil
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
