package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/model"
)

// AuxModel is one task's entry under auxiliary: in config.yaml
// (auxiliary.web_extract, auxiliary.vision): the model that does the side
// work instead of the main model. With only model set, the main model's
// endpoint serves it.
type AuxModel struct {
	Provider string `yaml:"provider"` // auto (default), main, anthropic, openrouter, openai, custom, …
	Model    string `yaml:"model"`
	BaseURL  string `yaml:"base_url"`
	APIKey   string `yaml:"api_key"`
	Timeout  int    `yaml:"timeout"` // seconds per request
}

// AuxEndpoint is a resolved auxiliary model: its wire and endpoint.
type AuxEndpoint struct {
	Wire, Model, BaseURL, APIKey string
	Timeout                      time.Duration
}

// defaultVisionTimeout is hermes's auxiliary.vision.timeout.
const defaultVisionTimeout = 120 * time.Second

// resolveVision sets c.NoVision from model.vision (hermes's
// model.supports_vision also counts) and c.AuxVision from
// auxiliary.vision, whose model AUXILIARY_VISION_MODEL supplies when the
// file has none. The provider decides the wire and the endpoint's
// defaults: auto, main or none use the main model's; anthropic the
// Anthropic API (ANTHROPIC_API_KEY); openrouter OpenRouter
// (OPENROUTER_API_KEY); any other an OpenAI-compatible base_url
// (OPENAI_API_KEY). base_url and api_key override the defaults.
func resolveVision(c *Config, fc *fileConfig, env func(string) string) {
	switch {
	case fc.Model.Vision != nil:
		c.NoVision = !*fc.Model.Vision
	case fc.Model.SupportsVision != nil:
		c.NoVision = !*fc.Model.SupportsVision
	}
	c.AuxVision = resolveAux(c, "vision", fc.Auxiliary["vision"], env("AUXILIARY_VISION_MODEL"), defaultVisionTimeout, env)
}

// defaultApprovalTimeout bounds the smart-approval reviewer's answer.
const defaultApprovalTimeout = 30 * time.Second

// resolveAux resolves the auxiliary.<task> entry v, whose model envModel
// supplies when the file has none; nil when there is no model or its
// provider cannot be served (a problem says why).
func resolveAux(c *Config, task string, v AuxModel, envModel string, timeout time.Duration, env func(string) string) *AuxEndpoint {
	name := firstNonEmpty(strings.TrimSpace(v.Model), envModel)
	if name == "" {
		return nil
	}
	a := AuxEndpoint{Model: name, Timeout: timeout}
	if v.Timeout > 0 {
		a.Timeout = time.Duration(v.Timeout) * time.Second
	}
	switch prov := strings.ToLower(strings.TrimSpace(v.Provider)); prov {
	case "", "auto", "main":
		a.Wire, a.BaseURL, a.APIKey = c.Provider, c.BaseURL, c.APIKey
	case model.WireAnthropic:
		a.Wire, a.BaseURL, a.APIKey = model.WireAnthropic, env("ANTHROPIC_BASE_URL"), env("ANTHROPIC_API_KEY")
	default:
		a.Wire = model.WireOpenAI
		p, known := openAIProviders[prov]
		a.BaseURL = p.baseURL
		for _, k := range p.keyEnvs {
			if a.APIKey = env(k); a.APIKey != "" {
				break
			}
		}
		if a.APIKey == "" {
			a.APIKey = env("OPENAI_API_KEY")
		}
		if !known && strings.TrimSpace(v.BaseURL) == "" {
			c.problem(fmt.Sprintf("auxiliary.%[1]s.provider: %[2]q is one of hermes-agent's own integrations, which hermes-acp does not have; "+
				"set auxiliary.%[1]s.base_url to its OpenAI-compatible endpoint (%[3]s meanwhile)", task, v.Provider, auxFallback[task]))
			return nil
		}
	}
	if strings.TrimSpace(v.BaseURL) != "" {
		a.BaseURL = strings.TrimSpace(v.BaseURL)
	}
	if v.APIKey != "" {
		a.APIKey = v.APIKey
	}
	return &a
}

// auxFallback says what does an auxiliary task's work when its model
// cannot be used.
var auxFallback = map[string]string{
	"vision":   "vision_analyze uses the main model",
	"approval": "the session's model reviews commands",
}

// VisionReason says why no model can see images for this configuration,
// or "" when one can.
func (c *Config) VisionReason() string {
	if !c.NoVision || c.AuxVision != nil {
		return ""
	}
	return "no model can see images: model.vision is false and auxiliary.vision.model is not set"
}
