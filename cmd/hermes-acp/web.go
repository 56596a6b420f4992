package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/web"
)

// webFileConfig is the web section of config.yaml (hermes's keys, plus
// hermes-acp's allow_private_urls and extract_summarize).
type webFileConfig struct {
	Backend          string `yaml:"backend"`
	SearchBackend    string `yaml:"search_backend"`
	ExtractBackend   string `yaml:"extract_backend"`
	ExtractCharLimit int    `yaml:"extract_char_limit"`
	ExtractSummarize *bool  `yaml:"extract_summarize"`
	AllowPrivateURLs bool   `yaml:"allow_private_urls"`
	// Deny is web.deny: address ranges, addresses, hosts and *.domains
	// refused for the web tools, vision and the browser.
	Deny []string `yaml:"deny"`
}

// auxiliaryModel is one task's entry under auxiliary: in config.yaml
// (auxiliary.web_extract): the model that does the side work instead of the
// main model. With only model set, the main model's endpoint serves it.
type auxiliaryModel = auxModelConfig

// webConfig is the web tools' configuration, resolved.
type webConfig struct {
	Backends     web.Config
	CharLimit    int
	NoSummarize  bool
	AllowPrivate bool
	Deny         web.DenyList   // web.deny
	Aux          auxiliaryModel // auxiliary.web_extract
}

// webSettings resolves the web section; env reads the environment and
// $HERMES_HOME/.env (the backends' credentials live there in hermes).
func webSettings(c *config, fc *fileConfig, env func(string) string) {
	w := fc.Web
	c.Web = webConfig{
		Backends: web.Config{
			Backend: w.Backend, SearchBackend: w.SearchBackend, ExtractBackend: w.ExtractBackend,
			Getenv: env,
		},
		NoSummarize:  w.ExtractSummarize != nil && !*w.ExtractSummarize,
		AllowPrivate: w.AllowPrivateURLs,
		Aux:          fc.Auxiliary["web_extract"],
	}
	switch v := strings.ToLower(env("HERMES_ALLOW_PRIVATE_URLS")); v {
	case "1", "true", "yes":
		c.Web.AllowPrivate = true
	case "0", "false", "no":
		c.Web.AllowPrivate = false
	}
	deny, err := web.ParseDeny(w.Deny)
	if err != nil {
		c.problem(err.Error() + "; those entries are ignored, the others apply")
	}
	c.Web.Deny = deny
	switch n := w.ExtractCharLimit; {
	case n == 0:
	case n < 2000:
		c.problem(fmt.Sprintf("web.extract_char_limit: %d is below the minimum of 2000 characters; using 2000", n))
		c.Web.CharLimit = 2000
	default:
		c.Web.CharLimit = n
	}
	if _, err := c.Web.Backends.ExtractBackendName(); err != nil {
		c.problem(err.Error() + "; web_extract will fail until it is fixed")
	}
	if _, err := c.Web.Backends.SearchBackendName(); err != nil && !errors.Is(err, web.ErrNoSearchBackend) {
		c.problem(err.Error() + "; web_search is not offered")
	}
}

// policy is the URL policy of the web tools and vision.
func (w webConfig) policy() *web.Policy {
	return &web.Policy{AllowPrivate: w.AllowPrivate, Deny: w.Deny}
}

// browserPolicy is the URL policy of every request of the browser: the web
// tools' rules (web.deny included) except that loopback is allowed (local
// dev servers are the main use in an editor) and browser.allow_private_urls
// widens it to private addresses.
func browserPolicy(cfg config) *web.Policy {
	return &web.Policy{AllowLoopback: true, AllowPrivate: cfg.BrowserAllowPrivate, Setting: "browser.allow_private_urls", Deny: cfg.Web.Deny}
}

// tools returns the web tools' dependencies for one session; save keeps a
// long page's full text for the session's read_file.
func (w webConfig) tools(summarize func(context.Context, string, string) (string, error), save func(id, content string) (string, error), dec web.Decoder) *tools.Web {
	return &tools.Web{
		Backends:    w.Backends,
		Policy:      w.policy(),
		Decoder:     dec,
		CharLimit:   w.CharLimit,
		NoSummarize: w.NoSummarize,
		Summarize:   summarize,
		SaveResult:  save,
	}
}

// webDecoder is how web_extract decodes the pages it fetches: in a child
// process of this binary (web.DecodeCommand) under a memory budget, or in
// process when the binary cannot be found (logged).
func webDecoder(log *slog.Logger) web.Decoder {
	exe, err := os.Executable()
	if err != nil {
		log.Warn("web_extract decodes pages in process, without a memory budget: the agent's executable is unknown", "error", err)
		return web.InProcess{}
	}
	return web.Isolated{Exe: exe}
}

// webSummarizer returns how web_extract asks a model for a summary: the
// auxiliary.web_extract model (its own endpoint when base_url is set, else
// the main model's endpoint), else the main model. Nil when there is no
// usable model: pages are then cut instead.
func webSummarizer(cfg config, setup agent.ModelSetup, log *slog.Logger) func(context.Context, string, string) (string, error) {
	p, name := setup.Provider, setup.Name
	aux := cfg.Web.Aux
	if aux.Model != "" {
		name = aux.Model
		if aux.BaseURL != "" {
			wire := model.WireOpenAI
			if strings.EqualFold(aux.Provider, model.WireAnthropic) {
				wire = model.WireAnthropic
			}
			ap, err := model.New(model.Config{Provider: wire, Model: aux.Model, BaseURL: aux.BaseURL,
				APIKey: aux.APIKey, Timeout: cfg.ModelTimeout, Log: log})
			if err != nil {
				log.Warn("auxiliary.web_extract model not usable; web_extract cuts long pages instead", "error", err)
				return nil
			}
			p = ap
		}
	}
	if p == nil || name == "" || name == "script" {
		// No model, or the scripted test model (its replies are the test's).
		return nil
	}
	return func(ctx context.Context, instructions, text string) (string, error) {
		reply, err := p.Stream(ctx, model.Request{
			Model:     name,
			Messages:  []model.Message{{Role: model.RoleSystem, Content: instructions}, {Role: model.RoleUser, Content: text}},
			MaxTokens: 4000,
		}, func(model.Delta) {})
		if err != nil {
			return "", err
		}
		return reply.Text, nil
	}
}
