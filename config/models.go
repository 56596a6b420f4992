package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hermes-acp/hermes-acp/model"
)

// Model is the main model of a configuration, built: its provider, or why
// there is none.
type Model struct {
	// Provider is nil when no model is configured or Problem says why the
	// configured one cannot be used.
	Provider model.Provider
	// Name is the model's name ("script" for a scripted model, "" when
	// none is configured).
	Name string
	// Problem is what the agent tells the user on every prompt while the
	// model cannot be used, with the configuration file's problem, if any.
	Problem string
}

// NewModel builds the main model's provider; record is --record's file.
// A missing or broken model is not an error: Model says what is wrong, and
// the problem is logged.
func (c Config) NewModel(record string, log *slog.Logger) Model {
	m := Model{Name: c.Model}
	if c.ProviderProblem != "" && c.Model != "" {
		m.Problem = c.ProviderProblem
		log.Warn("model not usable", "model", c.Model, "error", c.ProviderProblem)
		return m
	}
	p, err := model.New(model.Config{
		Provider:        c.Provider,
		Model:           c.Model,
		BaseURL:         c.BaseURL,
		APIKey:          c.APIKey,
		Others:          c.Others,
		ThinkingBudget:  c.ThinkingBudget,
		ReasoningEffort: c.ReasoningEffort,
		Timeout:         c.ModelTimeout,
		RecordPath:      record,
		Log:             log,
	})
	switch {
	case errors.Is(err, model.ErrNoModel):
		m.Name = ""
	case err != nil:
		var me *model.Error
		if errors.As(err, &me) {
			m.Problem = me.Message
		} else {
			m.Problem = err.Error()
		}
		log.Warn("model not usable", "model", c.Model, "error", err)
	default:
		m.Provider = p
		if p.Name() == "script" {
			m.Name = "script"
		}
	}
	if c.FileErr != nil && m.Provider == nil {
		m.Problem = fmt.Sprintf("%s\n\n(configuration problem: %v)", m.Problem, c.FileErr)
	}
	return m
}

// NewVisionModel builds the auxiliary.vision model's provider and returns
// it with the model's name ("" for a scripted model); nil when there is
// none or it cannot be built (logged).
func (c Config) NewVisionModel(log *slog.Logger) (model.Provider, string) {
	a := c.AuxVision
	if a == nil {
		return nil, ""
	}
	p, err := model.New(model.Config{Provider: a.Wire, Model: a.Model, BaseURL: a.BaseURL, APIKey: a.APIKey, Timeout: a.Timeout, Log: log})
	if err != nil {
		log.Warn("auxiliary.vision model not usable", "model", a.Model, "error", err)
		return nil, ""
	}
	if strings.HasPrefix(a.Model, "script:") {
		return p, ""
	}
	return p, a.Model
}

// NewApprovalModel builds the auxiliary.approval model that reviews
// commands under approvals.mode: smart (issue 25): its provider and name,
// or nil (the session's model reviews) when smart approvals are off, no
// auxiliary model is set or it cannot be built (logged).
func (c Config) NewApprovalModel(log *slog.Logger) (model.Provider, string) {
	a := c.AuxApproval
	if !c.ApprovalsSmart || a == nil {
		return nil, ""
	}
	p, err := model.New(model.Config{Provider: a.Wire, Model: a.Model, BaseURL: a.BaseURL, APIKey: a.APIKey, Timeout: a.Timeout, Log: log})
	if err != nil {
		log.Warn("auxiliary.approval model not usable; the session's model reviews commands", "model", a.Model, "error", err)
		return nil, ""
	}
	return p, a.Model
}

// Summarizer asks a model to summarise a page for web_extract:
// instructions are the system message, text the page.
type Summarizer func(ctx context.Context, instructions, text string) (string, error)

// NewWebSummarizer returns how web_extract asks a model for a summary: the
// auxiliary.web_extract model (its own endpoint when base_url is set, else
// the main model's endpoint), else the main model (main, named name). Nil
// when there is no usable model: pages are then cut instead.
func (c Config) NewWebSummarizer(main model.Provider, name string, log *slog.Logger) Summarizer {
	p := main
	if aux := c.Web.Aux; aux.Model != "" {
		name = aux.Model
		if aux.BaseURL != "" {
			wire := model.WireOpenAI
			if strings.EqualFold(aux.Provider, model.WireAnthropic) {
				wire = model.WireAnthropic
			}
			ap, err := model.New(model.Config{Provider: wire, Model: aux.Model, BaseURL: aux.BaseURL,
				APIKey: aux.APIKey, Timeout: c.ModelTimeout, Log: log})
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
