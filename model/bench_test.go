package model_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// benchTurn is a typical reply: 100 text chunks and two tool calls.
func benchTurn() modeltest.Turn {
	text := make([]string, 100)
	for i := range text {
		text[i] = "word "
	}
	return modeltest.Turn{
		Reasoning: []string{"thinking ", "about it"},
		Text:      text,
		ToolCalls: []modeltest.ToolCall{
			{ID: "a", Name: "read_file", Arguments: `{"path":"internal/server/handler.go","offset":1,"limit":400}`, Pieces: 8},
			{ID: "b", Name: "search_files", Arguments: `{"pattern":"func New","path":"."}`, Pieces: 8},
		},
	}
}

// BenchmarkOpenAIStream measures one streamed completion of 120 chunks
// against the fake server on loopback, request building and SSE decoding
// included.
func BenchmarkOpenAIStream(b *testing.B) {
	s := modeltest.StartOptions(modeltest.Options{Script: []modeltest.Turn{benchTurn()}, Loop: true})
	defer s.Close()
	p, err := model.New(model.Config{Model: "bench", BaseURL: s.URL()})
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: strings.Repeat("You are a coding agent. ", 200)},
		{Role: model.RoleUser, Content: "Find the handler."},
	}}
	ctx := context.Background()
	for b.Loop() {
		r, err := p.Stream(ctx, req, func(model.Delta) {})
		if err != nil || len(r.ToolCalls) != 2 {
			b.Fatalf("Stream() = %v, %v", r, err)
		}
	}
}

// BenchmarkOpenAIStreamParallel measures several sessions sharing one
// provider.
func BenchmarkOpenAIStreamParallel(b *testing.B) {
	s := modeltest.StartOptions(modeltest.Options{Script: []modeltest.Turn{benchTurn()}, Loop: true})
	defer s.Close()
	p, err := model.New(model.Config{Model: "bench", BaseURL: s.URL()})
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Find the handler."}}}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := p.Stream(context.Background(), req, func(model.Delta) {}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkScriptStream measures replaying a scripted reply.
func BenchmarkScriptStream(b *testing.B) {
	s, err := model.ParseScript("bench.yaml", []byte(`
replies:
  - thought: "The user greets me."
    text: "Hello! I am hermes-acp, a coding agent for your editor, and this is a longer answer to stream word by word."
    tool_calls:
      - name: echo
        arguments: {text: "hello", n: 1}
`))
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Stream(ctx, req, func(model.Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAnthropicTurn is benchTurn in the Messages API's events: thinking,
// 100 text deltas and two tool_use blocks of 8 input pieces each.
func benchAnthropicTurn() modeltest.AnthropicTurn {
	t := benchTurn()
	return modeltest.AnthropicTurn{Thinking: t.Reasoning, Text: t.Text, ToolCalls: t.ToolCalls}
}

// BenchmarkAnthropicStream is BenchmarkOpenAIStream for the Anthropic
// provider: one streamed Messages reply against the fake server on
// loopback, request building (cache breakpoints included) and event
// decoding included.
func BenchmarkAnthropicStream(b *testing.B) {
	s := modeltest.StartAnthropic(modeltest.AnthropicOptions{Respond: func(json.RawMessage) modeltest.AnthropicTurn { return benchAnthropicTurn() }})
	defer s.Close()
	p, err := model.New(model.Config{Provider: model.WireAnthropic, Model: "bench", BaseURL: s.URL(), APIKey: "k"})
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: strings.Repeat("You are a coding agent. ", 200)},
		{Role: model.RoleUser, Content: "Find the handler."},
	}}
	ctx := context.Background()
	for b.Loop() {
		r, err := p.Stream(ctx, req, func(model.Delta) {})
		if err != nil || len(r.ToolCalls) != 2 {
			b.Fatalf("Stream() = %v, %v", r, err)
		}
	}
}
