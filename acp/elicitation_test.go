package acp_test

import (
	"encoding/json"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// TestFormElicitationCapability: only an explicit, well-formed
// elicitation.form advertises forms (the schema: {} alone is no mode, a
// malformed mode is not advertised, and neither breaks initialize).
func TestFormElicitationCapability(t *testing.T) {
	t.Parallel()
	cases := []struct {
		caps string
		want bool
	}{
		{`{"elicitation":{"form":{}}}`, true},
		{`{"elicitation":{"form":{"_meta":{"x":1}},"url":{}}}`, true},
		{`{"elicitation":{"url":{}}}`, false},
		{`{"elicitation":{}}`, false},
		{`{"elicitation":null}`, false},
		{`{"elicitation":{"form":null}}`, false},
		{`{"elicitation":{"form":true}}`, false},
		{`{"elicitation":"yes","fs":{"readTextFile":true}}`, false},
		{`{}`, false},
	}
	for _, c := range cases {
		var caps acp.ClientCapabilities
		if err := json.Unmarshal([]byte(c.caps), &caps); err != nil {
			t.Errorf("decode %s: %v", c.caps, err)
			continue
		}
		if got := caps.FormElicitation(); got != c.want {
			t.Errorf("FormElicitation(%s) = %v, want %v", c.caps, got, c.want)
		}
	}
	var caps acp.ClientCapabilities
	if err := json.Unmarshal([]byte(`{"elicitation":"yes","fs":{"readTextFile":true}}`), &caps); err != nil || !caps.FS.ReadTextFile {
		t.Errorf("a malformed elicitation lost the other capabilities: %+v, %v", caps, err)
	}
}

// TestCreateElicitationRequestShape: the form-mode request is the
// schema's (flattened scope, mode form, requestedSchema).
func TestCreateElicitationRequestShape(t *testing.T) {
	t.Parallel()
	one := 1
	req := acp.CreateElicitationRequest{SessionID: "s", ToolCallID: "c", Message: "Q?", Mode: acp.ElicitationModeForm,
		RequestedSchema: acp.ElicitationSchema{Type: "object", Required: []string{"answer"},
			Properties: map[string]acp.ElicitationProperty{"answer": {Type: "string", Title: "Q?", MinLength: &one}}}}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sessionId":"s","toolCallId":"c","message":"Q?","mode":"form","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","title":"Q?","minLength":1}},"required":["answer"]}}`
	if string(b) != want {
		t.Errorf("request = %s\nwant      %s", b, want)
	}
}
