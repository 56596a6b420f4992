package agent

import (
	"context"
	"fmt"

	"github.com/hermes-acp/hermes-acp/acp"
)

// Authentication. hermes-acp has no account of its own: it is "signed in"
// once a model is configured. initialize always offers one method, as the
// ACP registry requires of every agent it lists:
//
//   - to a client that runs terminal authentication (clientCapabilities.auth.
//     terminal, or Zed's older _meta["terminal-auth"]), the terminal method
//     SetupMethodID: the client starts `hermes-acp --setup` in a terminal,
//     the user answers its questions, and the client reconnects;
//   - to any other client, the agent method ModelMethodID, whose
//     authenticate succeeds when a model is configured and otherwise fails
//     with the guidance a prompt would give.
//
// Nothing requires authenticating: session/new works without a model (a
// scripted model needs none, and the first prompt explains a missing one).

// The authentication method ids.
const (
	// SetupMethodID is the terminal method: `hermes-acp --setup`.
	SetupMethodID = "hermes-setup"
	// ModelMethodID is the agent method: use the configured model.
	ModelMethodID = "hermes-model"
)

// setupLabel names the terminal method, as editors show it on their
// "set up" button.
const setupLabel = "Set up hermes-acp"

// SetupCommand is how a client starts the interactive setup for the legacy
// _meta["terminal-auth"] form, which names a whole command instead of
// arguments for the agent's own.
type SetupCommand struct {
	// Path is the absolute path of this hermes-acp executable; "" means
	// "hermes-acp" on the PATH.
	Path string
	// Env are variables the setup needs to write the configuration this
	// process reads (HERMES_HOME when it is set); sent with both forms.
	Env map[string]string
}

// authMethods returns the one method initialize offers a client with caps.
func (a *Agent) authMethods(caps acp.ClientCapabilities) []acp.AuthMethod {
	legacy := caps.Meta["terminal-auth"] == true
	if !caps.Auth.Terminal && !legacy {
		desc := "Uses the model of --model, HERMES_MODEL or $HERMES_HOME/config.yaml (run `hermes-acp --setup` in a terminal to choose one); nothing to sign in to."
		return []acp.AuthMethod{{ID: ModelMethodID, Name: "Use the configured model", Description: &desc}}
	}
	desc := "Choose the model server, the model and its API key in a terminal; writes $HERMES_HOME/config.yaml (default ~/.hermes)."
	setup := a.opts.Setup
	args := []string{"--setup"}
	m := acp.AuthMethod{ID: SetupMethodID, Name: setupLabel, Description: &desc, Terminal: true, Args: args}
	if len(setup.Env) > 0 {
		m.Env = setup.Env
	}
	if legacy {
		command := setup.Path
		if command == "" {
			command = "hermes-acp"
		}
		ta := map[string]any{"command": command, "args": args, "label": setupLabel}
		if len(setup.Env) > 0 {
			ta["env"] = setup.Env
		}
		m.Meta = acp.Meta{"terminal-auth": ta}
	}
	return []acp.AuthMethod{m}
}

// Authenticate re-reads the configuration (the user may just have run the
// setup) and succeeds when a model is configured; otherwise it fails with
// -32000 and the guidance the first prompt would give.
func (a *Agent) Authenticate(ctx context.Context, req *acp.AuthenticateRequest) (*acp.Empty, error) {
	switch req.MethodID {
	case SetupMethodID, ModelMethodID:
	default:
		return nil, acp.InvalidParams("methodId: unknown authentication method %q (hermes-acp offers %s and %s)", req.MethodID, ModelMethodID, SetupMethodID)
	}
	if a.opts.ReloadModel != nil {
		setup, err := a.opts.ReloadModel()
		if err != nil {
			return nil, acp.AuthRequired(fmt.Sprintf("reading the configuration failed: %v", err))
		}
		a.mu.Lock()
		a.setup = setup
		a.mu.Unlock()
	}
	if setup := a.modelSetup(); setup.Provider == nil {
		a.log.Info("authenticate: no model is configured", "method", req.MethodID)
		return nil, acp.AuthRequired(noModelText(setup.Problem))
	}
	return &acp.Empty{}, nil
}
