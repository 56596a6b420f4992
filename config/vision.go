package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// auxModelConfig is one of hermes's auxiliary.<task> model settings.
type auxModelConfig struct {
	Provider string `yaml:"provider"` // auto (default), main, anthropic, openrouter, openai, custom, …
	Model    string `yaml:"model"`
	BaseURL  string `yaml:"base_url"`
	APIKey   string `yaml:"api_key"`
	Timeout  int    `yaml:"timeout"` // seconds per request
}

// auxModel is a resolved auxiliary model: its wire and endpoint.
type auxModel struct {
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
func resolveVision(c *config, fc *fileConfig, env func(string) string) {
	switch {
	case fc.Model.Vision != nil:
		c.NoVision = !*fc.Model.Vision
	case fc.Model.SupportsVision != nil:
		c.NoVision = !*fc.Model.SupportsVision
	}
	v := fc.Auxiliary["vision"]
	name := firstNonEmpty(strings.TrimSpace(v.Model), env("AUXILIARY_VISION_MODEL"))
	if name == "" {
		return
	}
	a := auxModel{Model: name, Timeout: defaultVisionTimeout}
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
			c.problem(fmt.Sprintf("auxiliary.vision.provider: %q is one of hermes-agent's own integrations, which hermes-acp does not have; "+
				"set auxiliary.vision.base_url to its OpenAI-compatible endpoint (vision_analyze uses the main model meanwhile)", v.Provider))
			return
		}
	}
	if strings.TrimSpace(v.BaseURL) != "" {
		a.BaseURL = strings.TrimSpace(v.BaseURL)
	}
	if v.APIKey != "" {
		a.APIKey = v.APIKey
	}
	c.AuxVision = &a
}

// visionReason says why no model can see images for this configuration,
// or "" when one can.
func (c *config) visionReason() string {
	if !c.NoVision || c.AuxVision != nil {
		return ""
	}
	return "no model can see images: model.vision is false and auxiliary.vision.model is not set"
}

// visionSetup adds the vision settings to setup: model.vision and the
// auxiliary.vision model's provider (nil, logged, when it cannot be built).
func visionSetup(setup *agent.ModelSetup, cfg config, log *slog.Logger) {
	setup.NoVision = cfg.NoVision
	a := cfg.AuxVision
	if a == nil {
		return
	}
	p, err := model.New(model.Config{Provider: a.Wire, Model: a.Model, BaseURL: a.BaseURL, APIKey: a.APIKey, Timeout: a.Timeout, Log: log})
	if err != nil {
		log.Warn("auxiliary.vision model not usable", "model", a.Model, "error", err)
		return
	}
	setup.VisionProvider, setup.VisionModel = p, a.Model
	if strings.HasPrefix(a.Model, "script:") {
		setup.VisionModel = ""
	}
}

// visionDeps are vision_analyze's seams for a session: Vision asks the
// session's model or the auxiliary.vision model (nil when neither can see
// images), and FetchImage downloads image URLs under the web tools'
// network policy (policy).
func visionDeps(env *agent.Env, policy *web.Policy) (vision func(context.Context, []byte, string, string) (string, error), fetch func(context.Context, string, int64) ([]byte, string, error)) {
	if env.CanSee() {
		vision = env.Vision
	}
	return vision, func(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
		return fetchImage(ctx, policy, url, maxBytes)
	}
}

// imageFetchTimeout bounds the download of an image URL.
const imageFetchTimeout = 30 * time.Second

// fetchImage downloads url with policy's client: http and https only,
// private, loopback and metadata addresses refused (unless
// web.allow_private_urls) after DNS and on every redirect; at most
// maxBytes are read, more is an error.
func fetchImage(ctx context.Context, policy *web.Policy, url string, maxBytes int64) ([]byte, string, error) {
	if err := policy.CheckURL(ctx, url); err != nil {
		return nil, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("fetch image: %w", err)
	}
	req.Header.Set("Accept", "image/png,image/jpeg,image/gif,image/webp,image/*;q=0.8")
	res, err := policy.Client(imageFetchTimeout).Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("fetch image %s: %w", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("fetch image %s: the server answered %s", url, res.Status)
	}
	if res.ContentLength > maxBytes {
		return nil, "", fmt.Errorf("fetch image %s: %d bytes, more than the %d allowed", url, res.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("fetch image %s: %w", url, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, "", fmt.Errorf("fetch image %s: more than the %d bytes allowed", url, maxBytes)
	}
	return data, res.Header.Get("Content-Type"), nil
}

// markVisionUnavailable makes the declared vision_analyze unavailable in
// reg with reason, for `hermes-acp tools` (sessions bind it unavailable
// themselves).
func markVisionUnavailable(reg *registry.Registry, reason string) error {
	e, ok := reg.Snapshot().Lookup("vision_analyze")
	if !ok || reason == "" {
		return nil
	}
	e.Check = func() error { return errors.New(reason) }
	return reg.Register(e)
}
