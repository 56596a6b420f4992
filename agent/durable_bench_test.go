package agent_test

import (
	"context"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// BenchmarkPromptTurnSaved measures a prompt turn in process against a
// model that answers at once: the prompt, a tool call, its result and a
// text answer (4 messages), with the session saved to a database already
// open (docs/benchmarks.md, "Durable saves (#13)").
func BenchmarkPromptTurnSaved(b *testing.B) {
	reg := registry.New(nil)
	err := reg.Register(registry.Entry{
		Name: "echo", Toolset: "test", Description: "Echo text back.",
		Schema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}},
		Handler: func(ctx context.Context, c *registry.Call) (registry.Result, error) {
			s, _ := c.String("text")
			return registry.OK(map[string]string{"echo": s}), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if lastMessage(req).Role == model.RoleUser {
			return toolReply(model.ToolCall{ID: "call_1", Name: "echo", Arguments: `{"text":"hello"}`}), nil
		}
		return textReply("The tool said hello.", emit), nil
	}}
	a := agent.New(agent.Options{Registry: reg, Toolsets: reg.Snapshot().Toolsets(), HermesHome: b.TempDir(),
		Pipeline: registry.PipelineOptions{ResultsDir: b.TempDir()},
		Model:    agent.ModelSetup{Provider: fm, Name: "fake-model"}})
	defer a.Close()
	e := acptest.New(b, a, acptest.Options{})
	ctx := context.Background()
	if _, err := e.Init(ctx); err != nil {
		b.Fatal(err)
	}
	res, err := e.NewSessionAt(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.PromptText(ctx, res.SessionID, "warm up"); err != nil { // opens the database
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := e.PromptText(ctx, res.SessionID, "say hello with the tool"); err != nil {
			b.Fatal(err)
		}
	}
}
