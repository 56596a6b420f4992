package model_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// BenchmarkOpenAIReadFileRoundTrips50 measures what reading 50 files one
// model round trip at a time costs on the wire against the fake server:
// 50 requests, each answered with one read_file call, the history growing
// by the call and a 1 KB result each time (execute_code's benchmark,
// tools.BenchmarkExecuteCodeReadFile50, does the same reads in one call).
// One op is the 50 round trips; the model's own time is zero here.
func BenchmarkOpenAIReadFileRoundTrips50(b *testing.B) {
	turn := modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "r", Name: "read_file", Arguments: `{"path":"f.txt"}`}}}
	s := modeltest.StartOptions(modeltest.Options{Script: []modeltest.Turn{turn}, Loop: true})
	defer s.Close()
	p, err := model.New(model.Config{Model: "bench", BaseURL: s.URL()})
	if err != nil {
		b.Fatal(err)
	}
	result := `{"content":"` + strings.Repeat("1|some line of the file\\n", 40) + `","total_lines":40}`
	ctx := context.Background()
	for b.Loop() {
		msgs := []model.Message{
			{Role: model.RoleSystem, Content: strings.Repeat("You are a coding agent. ", 200)},
			{Role: model.RoleUser, Content: "Read the 50 files."},
		}
		for i := range 50 {
			r, err := p.Stream(ctx, model.Request{Messages: msgs}, func(model.Delta) {})
			if err != nil || len(r.ToolCalls) != 1 {
				b.Fatalf("Stream() = %v, %v", r, err)
			}
			id := fmt.Sprintf("call_%d", i)
			msgs = append(msgs,
				model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"f.txt"}`}}},
				model.Message{Role: model.RoleTool, ToolCallID: id, Name: "read_file", Content: result})
		}
	}
}
