package agent_test

import (
	"context"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools"
)

// BenchmarkSessionNew measures session/new in process with the built-in tools
// bound to each new session (docs/benchmarks.md, "One contract per tool").
func BenchmarkSessionNew(b *testing.B) {
	reg := registry.New(nil)
	if err := reg.RegisterAll(append(tools.Entries(), agent.Tools()...)...); err != nil {
		b.Fatal(err)
	}
	a := agent.New(agent.Options{Registry: reg, HermesHome: b.TempDir(), BindTools: func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
		return tools.Bind(tools.Deps{Workspace: env.Workspace(), Files: env.Files(), State: env.State(), Approver: env, Lint: env, Linter: env.Linter(), SavedResult: env.SavedResult, Enabled: env.Enabled})
	}})
	defer a.Close()
	e := acptest.New(b, a, acptest.Options{})
	ctx := context.Background()
	if _, err := e.Init(ctx); err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	b.ResetTimer()
	for range b.N {
		if _, err := e.NewSessionAt(ctx, ws); err != nil {
			b.Fatal(err)
		}
	}
}
