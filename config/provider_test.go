package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model"
)

// TestHermesExampleConfigLoads loads a trimmed copy of hermes-agent's
// cli-config.yaml.example: the model settings apply, and the sections
// hermes-acp does not use are named in one line.
func TestHermesExampleConfigLoads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "hermes-cli-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	home := writeHome(t, map[string]string{"config.yaml": string(data), ".env": "OPENROUTER_API_KEY=or-key\n"})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.FileErr != nil || c.ProviderProblem != "" {
		t.Fatalf("FileErr %v, problem %q", c.FileErr, c.ProviderProblem)
	}
	if c.TerminalTimeout != 180*time.Second {
		t.Errorf("terminal.timeout = %v, want the file's 180s", c.TerminalTimeout)
	}
	if c.BrowserIdleTimeout != 120*time.Second {
		t.Errorf("browser.inactivity_timeout: idle timeout %v, want 2m0s", c.BrowserIdleTimeout)
	}
	if c.Model != "anthropic/claude-opus-4.6" || c.Provider != model.WireOpenAI || c.BaseURL != "https://openrouter.ai/api/v1" ||
		c.APIKey != "or-key" || c.APIKeySource != "OPENROUTER_API_KEY" || c.MaxTurns != 60 || c.ReasoningEffort != "medium" {
		t.Errorf("model settings not applied: %+v", c)
	}
	want := []string{"_config_version", "database", "runtime", "attachments", "plugins", "kanban", "cron",
		"terminal.cwd", "terminal.home_mode", "terminal.docker_mount_cwd_to_workspace", "terminal.lifetime_seconds",
		"terminal.container_disk", "terminal.container_persistent", "browser.extension_control", "tool_loop_guardrails.non_interactive_hard_stop_enabled"}
	if diff := cmp.Diff(want, c.Ignored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	note := IgnoredNote(c.File, c.Ignored)
	if strings.Contains(note, "\n") || !strings.Contains(note, "ignores them: _config_version, database, runtime") || strings.Contains(note, "main.") || strings.Contains(note, "struct") {
		t.Errorf("note = %q, want one plain line naming the sections", note)
	}
}

func TestProviderSelection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		env        map[string]string
		flagModel  string
		wantWire   string
		wantURL    string
		wantKey    string
		wantOthers []string
		problem    string
	}{
		{name: "anthropic provider uses the Anthropic variables",
			yaml:     "model:\n  default: claude-sonnet-4-5\n  provider: anthropic\n",
			env:      map[string]string{"ANTHROPIC_API_KEY": "ak", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/", "OPENAI_API_KEY": "ok", "OPENAI_BASE_URL": "http://127.0.0.1:8/v1"},
			wantWire: model.WireAnthropic, wantURL: "http://127.0.0.1:9/", wantKey: "ak", wantOthers: []string{model.WireOpenAI}},
		{name: "auto with only an Anthropic key is Anthropic",
			yaml: "model:\n  default: claude-sonnet-4-5\n  provider: auto\n", env: map[string]string{"ANTHROPIC_API_KEY": "ak"},
			wantWire: model.WireAnthropic, wantKey: "ak"},
		{name: "an anthropic: model name selects the wire",
			flagModel: "anthropic:claude-x", env: map[string]string{"ANTHROPIC_API_KEY": "ak", "OPENAI_BASE_URL": "http://127.0.0.1:8/v1"},
			wantWire: model.WireAnthropic, wantKey: "ak", wantOthers: []string{model.WireOpenAI}},
		{name: "OpenAI-compatible default with an anthropic: choice",
			yaml:     "model:\n  default: qwen\n  base_url: http://127.0.0.1:8/v1\n  choices: [\"anthropic:claude-x\"]\n",
			wantWire: model.WireOpenAI, wantURL: "http://127.0.0.1:8/v1", wantOthers: []string{model.WireAnthropic}},
		{name: "lmstudio has its default URL and key",
			yaml: "model:\n  default: qwen\n  provider: lmstudio\n", env: map[string]string{"LM_API_KEY": "lm"},
			wantWire: model.WireOpenAI, wantURL: "http://127.0.0.1:1234/v1", wantKey: "lm"},
		{name: "custom with api_key in the file",
			yaml:     "model:\n  model: qwen\n  provider: custom\n  base_url: http://127.0.0.1:8/v1\n  api_key: fk\n",
			wantWire: model.WireOpenAI, wantURL: "http://127.0.0.1:8/v1", wantKey: "fk"},
		{name: "a hermes-only provider is reported",
			yaml:     "model:\n  default: gemini-3\n  provider: gemini\n",
			wantWire: model.WireOpenAI, problem: `model.provider "gemini"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HERMES_HOME": writeHome(t, map[string]string{"config.yaml": tc.yaml})}
			for k, v := range tc.env {
				env[k] = v
			}
			c := Load(envMap(env), tc.flagModel, "")
			var others []string
			for w := range c.Others {
				others = append(others, w)
			}
			slices.Sort(others)
			if c.Provider != tc.wantWire || c.BaseURL != tc.wantURL || c.APIKey != tc.wantKey || !slices.Equal(others, tc.wantOthers) {
				t.Errorf("wire %q url %q key %q others %v, want %q %q %q %v", c.Provider, c.BaseURL, c.APIKey, others, tc.wantWire, tc.wantURL, tc.wantKey, tc.wantOthers)
			}
			if !strings.Contains(c.ProviderProblem, tc.problem) || (tc.problem == "") != (c.ProviderProblem == "") {
				t.Errorf("problem = %q, want one containing %q", c.ProviderProblem, tc.problem)
			}
		})
	}
}
