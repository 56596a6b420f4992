package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model"
)

func TestConfigVision(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		yaml        string
		env         map[string]string
		noVision    bool
		aux         *AuxEndpoint
		problem     string // in c.Problems
		unavailable bool   // VisionReason not empty
	}{
		{name: "default: the model sees", yaml: "model:\n  default: gpt-4.1\n"},
		{name: "model.vision false, no auxiliary", yaml: "model:\n  default: m\n  vision: false\n", noVision: true, unavailable: true},
		{name: "hermes's supports_vision", yaml: "model:\n  default: m\n  supports_vision: false\n", noVision: true, unavailable: true},
		{name: "model.vision wins over supports_vision", yaml: "model:\n  default: m\n  vision: true\n  supports_vision: false\n"},
		{
			name: "auxiliary on the main endpoint",
			yaml: "model:\n  default: m\n  vision: false\n  base_url: http://127.0.0.1:9/v1\nauxiliary:\n  vision:\n    model: qwen-vl\n",
			env:  map[string]string{"OPENAI_API_KEY": "k"}, noVision: true,
			aux: &AuxEndpoint{Wire: model.WireOpenAI, Model: "qwen-vl", BaseURL: "http://127.0.0.1:9/v1", APIKey: "k", Timeout: 120 * time.Second},
		},
		{
			name: "auxiliary on Anthropic",
			yaml: "model:\n  default: m\n  vision: false\nauxiliary:\n  vision:\n    provider: anthropic\n    model: claude-haiku\n    timeout: 30\n",
			env:  map[string]string{"ANTHROPIC_API_KEY": "ak"}, noVision: true,
			aux: &AuxEndpoint{Wire: model.WireAnthropic, Model: "claude-haiku", APIKey: "ak", Timeout: 30 * time.Second},
		},
		{
			name: "auxiliary on OpenRouter",
			yaml: "model:\n  default: m\nauxiliary:\n  vision:\n    provider: openrouter\n    model: google/gemini-2.5-flash\n",
			env:  map[string]string{"OPENROUTER_API_KEY": "or"},
			aux:  &AuxEndpoint{Wire: model.WireOpenAI, Model: "google/gemini-2.5-flash", BaseURL: "https://openrouter.ai/api/v1", APIKey: "or", Timeout: 120 * time.Second},
		},
		{
			name: "base_url and api_key win",
			yaml: "model:\n  default: m\nauxiliary:\n  vision:\n    provider: custom\n    model: llava\n    base_url: http://127.0.0.1:11434/v1\n    api_key: local\n",
			env:  map[string]string{"OPENAI_API_KEY": "k"},
			aux:  &AuxEndpoint{Wire: model.WireOpenAI, Model: "llava", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "local", Timeout: 120 * time.Second},
		},
		{
			name: "AUXILIARY_VISION_MODEL",
			yaml: "model:\n  default: m\n  vision: false\n",
			env:  map[string]string{"AUXILIARY_VISION_MODEL": "gpt-4o"}, noVision: true,
			aux: &AuxEndpoint{Wire: model.WireOpenAI, Model: "gpt-4o", Timeout: 120 * time.Second},
		},
		{
			name:     "hermes's own integration without base_url",
			yaml:     "model:\n  default: m\n  vision: false\nauxiliary:\n  vision:\n    provider: nous\n    model: x\n",
			noVision: true, unavailable: true, problem: `auxiliary.vision.provider: "nous" is one of hermes-agent's own integrations`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HERMES_HOME": writeHome(t, map[string]string{"config.yaml": tc.yaml})}
			for k, v := range tc.env {
				env[k] = v
			}
			c := Load(envMap(env), "", "")
			if c.NoVision != tc.noVision {
				t.Errorf("NoVision = %v, want %v", c.NoVision, tc.noVision)
			}
			if d := cmp.Diff(tc.aux, c.AuxVision); d != "" {
				t.Errorf("AuxVision (-want +got):\n%s", d)
			}
			if got := c.VisionReason(); (got != "") != tc.unavailable {
				t.Errorf("VisionReason() = %q, want unavailable %v", got, tc.unavailable)
			}
			problems := strings.Join(c.Problems, "\n")
			if tc.problem == "" && problems != "" || !strings.Contains(problems, tc.problem) {
				t.Errorf("Problems = %q, want %q", problems, tc.problem)
			}
			if slices := c.Ignored; len(slices) != 0 {
				t.Errorf("Ignored = %v: the vision keys must be known", slices)
			}
		})
	}
}
