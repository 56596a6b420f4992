package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
)

func TestSetupWritesConfigAndKey(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{
		"config.yaml": "# my settings\nmodel:\n  default: old-model # keep me\nlint:\n  on_new_errors: refuse\n",
		".env":        "OTHER=1\nOPENAI_API_KEY=old\n",
	})
	var out strings.Builder
	in := strings.NewReader("\nhttp://localhost:8080/v1\nqwen2.5-coder\nsecret-key\n")
	if err := Setup(in, &out, envMap(map[string]string{"HERMES_HOME": home})); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.Model != "qwen2.5-coder" || c.BaseURL != "http://localhost:8080/v1" || c.APIKey != "secret-key" || !c.LintRefuse {
		t.Errorf("after setup: %+v", c)
	}
	data, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if !strings.Contains(string(data), "# my settings") {
		t.Errorf("setup dropped comments:\n%s", data)
	}
	env, _ := os.ReadFile(filepath.Join(home, ".env"))
	if !strings.Contains(string(env), "OTHER=1") || strings.Count(string(env), "OPENAI_API_KEY") != 1 {
		t.Errorf(".env = %q", env)
	}
	if fi, _ := os.Stat(filepath.Join(home, ".env")); fi.Mode().Perm() != 0o600 {
		t.Errorf(".env mode = %v, want 0600", fi.Mode().Perm())
	}
	if err := Setup(strings.NewReader(""), &out, envMap(map[string]string{"HERMES_HOME": t.TempDir()})); !errors.Is(err, ErrAborted) {
		t.Errorf("Setup with closed stdin = %v, want ErrAborted", err)
	}
}

func TestSetupOffersAnthropic(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": "model:\n  default: gpt-4.1\n  base_url: http://127.0.0.1:8/v1\n"})
	var out strings.Builder
	in := strings.NewReader("anthropic\n\nclaude-sonnet-4-5\nsk-ant-secret\n")
	if err := Setup(in, &out, envMap(map[string]string{"HERMES_HOME": home})); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.Provider != model.WireAnthropic || c.Model != "claude-sonnet-4-5" || c.BaseURL != model.DefaultAnthropicBaseURL ||
		c.APIKey != "sk-ant-secret" || c.APIKeySource != "ANTHROPIC_API_KEY" {
		t.Errorf("after setup: wire %q model %q url %q key %q (%s)", c.Provider, c.Model, c.BaseURL, c.APIKey, c.APIKeySource)
	}
	env, _ := os.ReadFile(filepath.Join(home, ".env"))
	if !strings.Contains(string(env), "ANTHROPIC_API_KEY=sk-ant-secret") {
		t.Errorf(".env = %q", env)
	}
	if err := Setup(strings.NewReader("gemini\n"), &out, envMap(map[string]string{"HERMES_HOME": t.TempDir()})); err == nil || !strings.Contains(err.Error(), `"gemini"`) {
		t.Errorf("Setup with provider gemini = %v, want an error naming it", err)
	}
}
