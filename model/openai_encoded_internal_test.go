package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOpenAIRequestBody measures encoding the body of a request with
// 30 tools (about 40 KB of schemas and descriptions, like the built-in
// tools): "sdk" lets the SDK encode the schema maps, as before; "encoded"
// appends schemas the registry encoded once (ToolDef.ParametersJSON).
func BenchmarkOpenAIRequestBody(b *testing.B) {
	var tools []ToolDef
	for i := range 30 {
		props := map[string]any{}
		for j := range 6 {
			props[fmt.Sprintf("arg_%d", j)] = map[string]any{"type": "string", "description": strings.Repeat("What the argument means. ", 4),
				"enum": []any{"a", "b", "c"}}
		}
		tools = append(tools, ToolDef{Name: fmt.Sprintf("tool_%02d", i), Description: strings.Repeat("Does one thing \"well\"; see <docs>.\n", 20),
			Parameters: map[string]any{"type": "object", "properties": props, "required": []any{"arg_0"}}})
	}
	msgs := []Message{{Role: RoleSystem, Content: strings.Repeat("You are a coding agent. ", 200)}, {Role: RoleUser, Content: "Say hello."}}
	p := &openAIProvider{model: "m"}
	encoded := make([]ToolDef, len(tools))
	for i, t := range tools {
		t.ParametersJSON, _ = json.Marshal(t.Parameters)
		encoded[i] = t
	}
	b.Run("sdk", func(b *testing.B) {
		req := Request{Messages: msgs, Tools: tools}
		b.ReportAllocs()
		for b.Loop() {
			body, err := p.params(req).MarshalJSON()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
		}
	})
	b.Run("encoded", func(b *testing.B) {
		req := Request{Messages: msgs, Tools: encoded}
		b.ReportAllocs()
		for b.Loop() {
			body, err := requestBody(p.params(req), req.Tools)
			if err != nil || body == nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
		}
	})
}
