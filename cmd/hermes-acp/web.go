package main

import (
	"context"
	"log/slog"
	"os"
	"strings"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/web"
)

// webTools returns the web tools' dependencies for one session; save keeps a
// long page's full text for the session's read_file.
func webTools(w config.Web, summarize func(context.Context, string, string) (string, error), save func(id, content string) (string, error), dec web.Decoder) *tools.Web {
	return &tools.Web{
		Backends:    w.Backends,
		Policy:      w.Policy(),
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
