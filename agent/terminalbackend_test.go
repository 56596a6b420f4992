package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
)

// terminal backends (issue 18)

// TestTerminalBackendOption: the Terminal config option offers the
// backends with terminal.backend current; switching applies to the
// session (the tools read it at their next command), an unknown backend
// is refused, and /context says which backend is active and why it is
// unavailable.
func TestTerminalBackendOption(t *testing.T) {
	t.Parallel()
	var seen []string
	h := newHarness(t, &fakeModel{}, harnessOptions{opts: agent.Options{TerminalBackends: agent.TerminalBackends{
		Names: []string{"local", "docker"}, Default: "docker",
		Check: func(_ context.Context, name string) error {
			seen = append(seen, name)
			return errors.New("docker daemon unix:///nowhere.sock: connection refused")
		},
	}}})
	ctx := h.ctx()
	res, err := h.editor.NewSessionAt(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sid := res.SessionID
	var opt *acp.SessionConfigOption
	for i := range res.ConfigOptions {
		if res.ConfigOptions[i].ID == "terminal_backend" {
			opt = &res.ConfigOptions[i]
		}
	}
	if opt == nil || opt.CurrentValue != "docker" || len(opt.Options) != 2 || opt.Options[0].Value != "local" {
		t.Fatalf("terminal option = %+v, want local and docker, docker current", opt)
	}
	h.prompt(sid, "/context")
	if txt := h.editor.Text(sid); !strings.Contains(txt, "Terminal: `docker`, unavailable: docker daemon unix:///nowhere.sock: connection refused.") {
		t.Errorf("/context = %q, want the docker backend and why it is unavailable", txt[strings.LastIndex(txt, "Conversation:"):])
	}
	var cres acp.SetSessionConfigOptionResponse
	if err := h.editor.Call(ctx, "session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "terminal_backend", Value: "local"}, &cres); err != nil {
		t.Fatal(err)
	}
	if got := optionValue(cres.ConfigOptions, "terminal_backend"); got != "local" {
		t.Errorf("terminal after switch = %q, want local", got)
	}
	h.prompt(sid, "/context")
	if txt := h.editor.Text(sid); !strings.HasSuffix(strings.TrimSpace(txt), "Terminal: `local`.") {
		t.Errorf("/context after switching = %q, want local", txt[strings.LastIndex(txt, "Conversation:"):])
	}
	err = h.editor.Call(ctx, "session/set_config_option", &acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "terminal_backend", Value: "ssh"}, &cres)
	var rpcErr *acp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeInvalidParams {
		t.Errorf("switching to an unoffered backend: %v, want invalid params", err)
	}
	if len(seen) != 1 {
		t.Errorf("checks = %v, want docker checked once (local needs none)", seen)
	}
}

// TestNoTerminalOptionWithLocalOnly: with only the local machine offered
// the editor shows no Terminal option.
func TestNoTerminalOptionWithLocalOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &fakeModel{}, harnessOptions{})
	res, err := h.editor.NewSessionAt(h.ctx(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := optionValue(res.ConfigOptions, "terminal_backend"); got != "" {
		t.Errorf("terminal option = %q, want none", got)
	}
}

// TestContextSaysHowTheBackendRuns: /context shows how the active backend
// runs commands (a remote docker daemon, the workspace copied).
func TestContextSaysHowTheBackendRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &fakeModel{}, harnessOptions{opts: agent.Options{TerminalBackends: agent.TerminalBackends{
		Names: []string{"local", "docker"}, Default: "docker",
		Check: func(context.Context, string) error { return nil },
		Describe: func(name string) string {
			if name == "docker" {
				return "remote daemon tcp://build:2375, workspace copied"
			}
			return ""
		},
	}}})
	res, err := h.editor.NewSessionAt(h.ctx(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.prompt(res.SessionID, "/context")
	if txt := h.editor.Text(res.SessionID); !strings.Contains(txt, "Terminal: `docker` (remote daemon tcp://build:2375, workspace copied), available.") {
		t.Errorf("/context = %q, want the remote daemon and the copy named", txt[strings.LastIndex(txt, "Conversation:"):])
	}
}
