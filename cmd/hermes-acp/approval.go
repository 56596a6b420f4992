package main

import (
	"log/slog"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/model"
)

// approvalSetup adds the auxiliary.approval model of approvals.mode: smart
// to setup (issue 25): its provider, or nothing (the session's model
// reviews) when there is none or it cannot be built (logged).
func approvalSetup(setup *agent.ModelSetup, cfg config.Config, log *slog.Logger) {
	a := cfg.AuxApproval
	if !cfg.ApprovalsSmart || a == nil {
		return
	}
	p, err := model.New(model.Config{Provider: a.Wire, Model: a.Model, BaseURL: a.BaseURL, APIKey: a.APIKey, Timeout: a.Timeout, Log: log})
	if err != nil {
		log.Warn("auxiliary.approval model not usable; the session's model reviews commands", "model", a.Model, "error", err)
		return
	}
	setup.ApprovalProvider, setup.ApprovalModel = p, a.Model
}
