package main

import (
	"log/slog"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/lint/gotypes"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// goTypesChecker is the agent's Go type checker for lint.go_types (on,
// the default, or off): nil and why when it is off. Nothing is looked up
// or loaded until the first Go edit.
func goTypesChecker(off bool, log *slog.Logger) (*gotypes.Checker, string) {
	if off {
		return nil, "lint.go_types: off"
	}
	return gotypes.New(gotypes.Options{Log: log}), ""
}

// typeChecker is the tools' view of a session's type checks.
type typeChecker struct{ env *agent.Env }

func (t typeChecker) CheckTypes(callID string, changes []workspace.Change, lints []lint.Result) tools.TypeCheck {
	if tc := t.env.CheckTypes(callID, changes, lints); tc != nil {
		return tc
	}
	return nil
}
