package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
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

// BenchmarkSessionLoad1000 measures session/load of a stored session of
// 1 000 messages (250 turns: prompt, tool call, tool result, answer),
// replayed to the in-memory editor (docs/benchmarks.md, "Long sessions").
func BenchmarkSessionLoad1000(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	ctx := context.Background()
	st := store.New(home, nil, nil)
	var msgs []model.Message
	for i := range 250 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			model.Message{Role: model.RoleUser, Content: fmt.Sprintf("Step %d: look at main.go and tell me what it does.", i)},
			model.Message{Role: model.RoleAssistant, Content: "Reading it.", ToolCalls: []model.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"main.go"}`}}},
			model.Message{Role: model.RoleTool, ToolCallID: id, Name: "read_file", Content: `{"content":"1|package main\n2|\n3|func main() {}\n","total_lines":3}`},
			model.Message{Role: model.RoleAssistant, Content: "It declares an empty main function; nothing else happens when it runs."})
	}
	now := time.Now()
	if err := st.Save(ctx, store.Record{ID: "sess_load", Cwd: ws, Title: "load", Created: now, Updated: now}, false, msgs); err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	reg := registry.New(nil)
	if err := reg.RegisterAll(append(tools.Entries(), agent.Tools()...)...); err != nil {
		b.Fatal(err)
	}
	a := agent.New(agent.Options{Registry: reg, HermesHome: home})
	defer a.Close()
	e := acptest.New(b, a, acptest.Options{})
	if _, err := e.Init(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		var loaded acp.LoadSessionResponse
		if err := e.Call(ctx, "session/load", &acp.LoadSessionRequest{SessionID: "sess_load", Cwd: ws, McpServers: []acp.McpServer{}}, &loaded); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := len(e.Updates("sess_load")); n < 1000*b.N {
		b.Fatalf("the editor received %d updates for %d loads, want at least 1 000 each", n, b.N)
	}
}
