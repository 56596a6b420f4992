package config

import (
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
