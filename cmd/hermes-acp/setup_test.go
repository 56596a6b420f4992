package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/model"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestSetupWritesConfigAndKey(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{
		"config.yaml": "# my settings\nmodel:\n  default: old-model # keep me\nlint:\n  on_new_errors: refuse\n",
		".env":        "OTHER=1\nOPENAI_API_KEY=old\n",
	})
	var out, errOut strings.Builder
	in := strings.NewReader("\nhttp://localhost:8080/v1\nqwen2.5-coder\nsecret-key\n")
	if code := runSetup(in, &out, &errOut, envMap(map[string]string{"HERMES_HOME": home})); code != 0 {
		t.Fatalf("runSetup = %d, stderr %q", code, errOut.String())
	}
	c := config.Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
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
	if code := runSetup(strings.NewReader(""), &out, &errOut, envMap(map[string]string{"HERMES_HOME": t.TempDir()})); code == 0 {
		t.Error("setup with closed stdin succeeded")
	}
}

func TestSetupOffersAnthropic(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": "model:\n  default: gpt-4.1\n  base_url: http://127.0.0.1:8/v1\n"})
	var out, errOut strings.Builder
	in := strings.NewReader("anthropic\n\nclaude-sonnet-4-5\nsk-ant-secret\n")
	if code := runSetup(in, &out, &errOut, envMap(map[string]string{"HERMES_HOME": home})); code != 0 {
		t.Fatalf("runSetup = %d, stderr %q", code, errOut.String())
	}
	c := config.Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.Provider != model.WireAnthropic || c.Model != "claude-sonnet-4-5" || c.BaseURL != model.DefaultAnthropicBaseURL ||
		c.APIKey != "sk-ant-secret" || c.APIKeySource != "ANTHROPIC_API_KEY" {
		t.Errorf("after setup: wire %q model %q url %q key %q (%s)", c.Provider, c.Model, c.BaseURL, c.APIKey, c.APIKeySource)
	}
	env, _ := os.ReadFile(filepath.Join(home, ".env"))
	if !strings.Contains(string(env), "ANTHROPIC_API_KEY=sk-ant-secret") {
		t.Errorf(".env = %q", env)
	}
	if code := runSetup(strings.NewReader("gemini\n"), &out, &errOut, envMap(map[string]string{"HERMES_HOME": t.TempDir()})); code == 0 {
		t.Error("setup accepted a provider it cannot use")
	}
}
