package model_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// encodedTools returns tools with ParametersJSON set as the registry sets
// it (json.Marshal of the schema).
func encodedTools(t testing.TB, tools []model.ToolDef) []model.ToolDef {
	t.Helper()
	out := make([]model.ToolDef, len(tools))
	for i, td := range tools {
		raw, err := json.Marshal(td.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		td.ParametersJSON = raw
		out[i] = td
	}
	return out
}

// sampleTools are tools whose descriptions and schemas need escaping.
func sampleTools() []model.ToolDef {
	return []model.ToolDef{
		{Name: "read_file", Description: "Read a file.\n\n<important> Use \"offset\" & `limit`; \\ paths. ☃", Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path":   map[string]any{"type": "string", "description": "a \"path\" <here>"},
				"offset": map[string]any{"type": "integer", "minimum": 1},
			},
			"required": []any{"path"},
		}},
		{Name: "todo", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}},
	}
}

// decoded returns a request body as generic JSON values.
func decoded(t testing.TB, raw json.RawMessage) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, raw)
	}
	return v
}

// A request whose tools come with their schemas already encoded sends the
// same request as one whose schemas the SDK encodes.
func TestOpenAIEncodedToolsSendTheSameRequest(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"ok"}}, modeltest.Turn{Text: []string{"ok"}})
	p := newProvider(t, s.URL(), nil)
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "You are a coding agent."},
		{Role: model.RoleUser, Content: "Say hello."},
	}
	plain := model.Request{Messages: msgs, Tools: sampleTools(), MaxTokens: 64}
	encoded := model.Request{Messages: msgs, Tools: encodedTools(t, sampleTools()), MaxTokens: 64}
	for _, req := range []model.Request{plain, encoded} {
		if _, _, err := run(t.Context(), p, req); err != nil {
			t.Fatalf("Stream() error = %v", err)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	want, got := decoded(t, reqs[0]), decoded(t, reqs[1])
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("encoded tools changed the request:\n got %s\nwant %s", reqs[1], reqs[0])
	}
	if got["stream"] != true {
		t.Fatalf("stream = %v, want true", got["stream"])
	}
	tools, _ := got["tools"].([]any)
	if len(tools) != 2 || !strings.Contains(string(reqs[1]), `"read_file"`) {
		t.Fatalf("tools = %v, want read_file and todo", got["tools"])
	}
}

// When one tool has no encoded schema, the SDK encodes them all: the
// request is the same.
func TestOpenAIPartlyEncodedToolsSendTheSameRequest(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"ok"}}, modeltest.Turn{Text: []string{"ok"}})
	p := newProvider(t, s.URL(), nil)
	msgs := []model.Message{{Role: model.RoleUser, Content: "Say hello."}}
	mixed := encodedTools(t, sampleTools())
	mixed[1].ParametersJSON = nil
	for _, req := range []model.Request{{Messages: msgs, Tools: sampleTools()}, {Messages: msgs, Tools: mixed}} {
		if _, _, err := run(t.Context(), p, req); err != nil {
			t.Fatalf("Stream() error = %v", err)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 || !reflect.DeepEqual(decoded(t, reqs[1]), decoded(t, reqs[0])) {
		t.Fatalf("requests differ:\n%s\n%s", reqs[0], reqs[len(reqs)-1])
	}
}
