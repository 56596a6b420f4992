package main

import (
	"context"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/tools"
)

// The command tools' seams (tools/commands.go) over a session's agent.Env.

type commandApprover struct{ env *agent.Env }

func (c commandApprover) ApproveCommand(ctx context.Context, callID string, req tools.CommandRequest) tools.CommandDecision {
	d := c.env.ApproveCommand(ctx, callID, agent.CommandRequest{Command: req.Command, Workdir: req.Workdir, Network: req.Network, Credentials: req.Credentials,
		ConfinesNetwork: req.Confines.Network, ConfinesCredentials: req.Confines.Credentials})
	return tools.CommandDecision{Allowed: d.Allowed, Message: d.Message, Hardline: d.Hardline, Approval: d.Approval, Description: d.Description,
		Network: d.Network, Credentials: d.Credentials, Asked: d.Asked, GrantNote: d.GrantNote}
}

type editorTerminals struct{ env *agent.Env }

func (e editorTerminals) Run(ctx context.Context, callID string, cmd tools.TerminalCommand) (tools.TerminalOutcome, error) {
	r, err := e.env.RunInTerminal(ctx, callID, agent.TerminalRun{Argv: cmd.Argv, Dir: cmd.Dir, Env: cmd.Env, OutputByteLimit: cmd.OutputByteLimit, Timeout: cmd.Timeout})
	return tools.TerminalOutcome{Output: r.Output, Truncated: r.Truncated, ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut, Cancelled: r.Cancelled}, err
}

func (c commandApprover) ApproveScript(ctx context.Context, callID string, req tools.ScriptRequest) tools.CommandDecision {
	cmds := make([]agent.ScriptCommand, len(req.Commands))
	for i, c := range req.Commands {
		cmds[i] = agent.ScriptCommand{Line: c.Line, Call: c.Call, Text: c.Text, Check: c.Check, Hidden: c.Hidden, Why: c.Why, Tool: c.Tool}
	}
	d := c.env.ApproveScript(ctx, callID, agent.ScriptRequest{Code: req.Code, Commands: cmds, Where: req.Where,
		ConfinesNetwork: req.Confines.Network, ConfinesCredentials: req.Confines.Credentials})
	return tools.CommandDecision{Allowed: d.Allowed, Message: d.Message, Hardline: d.Hardline, Approval: d.Approval, Description: d.Description,
		Network: d.Network, Credentials: d.Credentials, Asked: d.Asked, GrantNote: d.GrantNote}
}

// commandDeps fills the command seams of d for env's session.
func commandDeps(d *tools.Deps, env *agent.Env) {
	d.Commands = commandApprover{env}
	d.Scripts = commandApprover{env}
	if env.HasTerminals() {
		d.Terminals = editorTerminals{env}
	}
	d.Output = env
	d.Announce = env.Announce
	d.OnClose = env.OnClose
}
