package registry

import (
	"context"
	"fmt"
	"testing"
	"time"
)

type nopHook struct{}

func (nopHook) Pre(context.Context, *Call) (bool, string)          { return false, "" }
func (nopHook) Post(context.Context, *Call, Result, time.Duration) {}

// BenchmarkPipelineDispatch measures one call through the whole pipeline:
// parsing, coercion, guardrails, two hooks, dispatch to a trivial handler
// and the result budget.
func BenchmarkPipelineDispatch(b *testing.B) {
	schema := mustSchema(b, `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)
	p := newTestPipeline(b, PipelineOptions{Hooks: []Hook{nopHook{}, nopHook{}}, ResultsDir: b.TempDir()},
		Entry{Name: "lookup", Toolset: "t", Schema: schema, Handler: okHandler(`{"content":"1|package main","total_lines":1}`)})
	turn := p.NewTurn()
	ctx := context.Background()
	call := &Call{ID: "call_1", Name: "lookup", RawArgs: `{"path":"main.go","offset":"1","limit":50}`}
	batch := []*Call{call}
	b.ReportAllocs()
	for b.Loop() {
		if out := turn.Run(ctx, batch, RunOptions{}); out[0].Failed {
			b.Fatalf("unexpected failure: %s", out[0].Content)
		}
	}
}

// BenchmarkDefinitions100 measures advertising 100 tools, a quarter of them
// sharing one availability check.
func BenchmarkDefinitions100(b *testing.B) {
	r := New(nil)
	shared := NewCheck(func() error { return nil })
	names := make([]string, 100)
	for i := range 100 {
		names[i] = fmt.Sprintf("tool_%03d", 99-i)
		e := Entry{Name: names[i], Toolset: "ts", Description: "does things",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}
		if i%4 == 0 {
			e.Check = shared
		}
		mustRegister(b, r, e)
	}
	b.ReportAllocs()
	for b.Loop() {
		if defs := r.Definitions(names); len(defs) != 100 {
			b.Fatalf("got %d definitions", len(defs))
		}
	}
}
