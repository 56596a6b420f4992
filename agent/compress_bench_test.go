package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
)

// noCall is a provider that must not be called: the benchmarks stay under
// the threshold.
type noCall struct{ b *testing.B }

func (noCall) Name() string { return "none" }
func (p noCall) Stream(context.Context, model.Request, func(model.Delta)) (*model.Reply, error) {
	p.b.Fatal("compression triggered")
	return nil, nil
}

// BenchmarkCompressionCheck measures what context compression adds to a
// turn that does not compress (docs/benchmarks.md, "Context compression
// (#13)"): the size check before each model request, on a 1 000-message
// conversation of about 1 MB with 30 tool definitions. "usage": the
// provider reported the last call's tokens (the common case); "estimate":
// it did not, so the whole request is estimated.
func BenchmarkCompressionCheck(b *testing.B) {
	history := make([]model.Message, 0, 1000)
	for i := range 250 {
		id := fmt.Sprintf("call_%d", i)
		history = append(history,
			model.Message{Role: model.RoleUser, Content: fmt.Sprintf("question %d: %s", i, strings.Repeat("q", 200))},
			model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}},
			model.Message{Role: model.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat("x", 3500)},
			model.Message{Role: model.RoleAssistant, Content: strings.Repeat("a", 300)})
	}
	tools := make([]model.ToolDef, 30)
	for i := range tools {
		tools[i] = model.ToolDef{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("d", 400),
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}
	}
	a := New(Options{HermesHome: b.TempDir()})
	defer a.Close()
	setup := ModelSetup{Provider: noCall{b}, Name: "m", ContextWindow: 10_000_000}
	for _, c := range []struct {
		name  string
		usage model.Usage
	}{{"usage", model.Usage{InputTokens: 300_000, OutputTokens: 100}}, {"estimate", model.Usage{}}} {
		b.Run(c.name, func(b *testing.B) {
			s := &Session{a: a, id: "bench", log: a.log, cwd: "/work", modelName: "m"}
			s.history = history[:len(history)-4]
			s.noteUsage(c.usage)
			s.history = history // a turn later: a prompt, a call, its result, an answer
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				s.maybeCompress(ctx, setup, tools)
			}
		})
	}
}
