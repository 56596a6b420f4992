package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/tools"
)

// webTools returns the web tools' dependencies for one session; save keeps a
// long page's full text for the session's read_file.
func webTools(w config.Web, summarize func(context.Context, string, string) (string, error), save func(id, content string) (string, error)) *tools.Web {
	return &tools.Web{
		Backends:    w.Backends,
		Policy:      w.Policy(),
		CharLimit:   w.CharLimit,
		NoSummarize: w.NoSummarize,
		Summarize:   summarize,
		SaveResult:  save,
	}
}

// webSummarizer returns how web_extract asks a model for a summary: the
// auxiliary.web_extract model (its own endpoint when base_url is set, else
// the main model's endpoint), else the main model. Nil when there is no
// usable model: pages are then cut instead.
func webSummarizer(cfg config.Config, setup agent.ModelSetup, log *slog.Logger) func(context.Context, string, string) (string, error) {
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
