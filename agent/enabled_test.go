package agent_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools"
)

// TestDescriptionsNameOnlyOfferedTools: with the built-in tools bound as
// the composition root binds them and the default toolsets (hermes-acp,
// which lists tools this build does not have, and web_search, which
// cannot run without a search backend), no tool
// description offered to the model names a tool that is not offered
// (issue #10: the file tools told the model to use a terminal that does
// not exist).
func TestDescriptionsNameOnlyOfferedTools(t *testing.T) {
	t.Parallel()
	reg := registry.New(nil)
	if err := reg.RegisterAll(append(tools.Entries(), agent.Tools()...)...); err != nil {
		t.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{opts: agent.Options{
		Registry: reg,
		BindTools: func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
			return tools.Bind(tools.Deps{
				Workspace: env.Workspace(), Files: env.Files(), State: env.State(),
				Approver: env, Lint: env, Linter: env.Linter(),
				SavedResult: env.SavedResult, Enabled: env.Enabled,
			})
		},
	}})
	sid := h.newSession("")
	h.prompt(sid, "hi")
	req := fm.requests()[0]
	offered := map[string]bool{}
	for _, d := range req.Tools {
		offered[d.Name] = true
	}
	if !offered["read_file"] || offered["web_search"] {
		t.Fatalf("tools offered = %v, want read_file and no web_search (no search backend)", offered)
	}
	// Hermes tool names that a description could mention.
	mention := regexp.MustCompile(`\b(terminal|execute_code|vision_analyze|web_search|web_extract|browser_[a-z_]+)\b`)
	for _, d := range req.Tools {
		for _, m := range mention.FindAllString(d.Description, -1) {
			if !offered[m] {
				t.Errorf("%s's description names %s, which is not offered: %q", d.Name, m, d.Description)
			}
		}
	}
}
