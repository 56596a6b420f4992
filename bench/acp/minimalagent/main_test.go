package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// converse runs the agent on input lines and returns the messages it wrote
// as compact JSON lines.
func converse(t *testing.T, env map[string]string, lines ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if code := run(context.Background(), in, &out, &errOut, func(k string) string { return env[k] }, http.DefaultClient); code != 0 {
		t.Fatalf("run exit code = %d, want 0; stderr: %s", code, errOut.String())
	}
	var got []string
	for line := range strings.Lines(out.String()) {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("output line %q is not JSON: %v", line, err)
		}
		b, _ := json.Marshal(v) // sorted keys: stable to compare
		got = append(got, string(b))
	}
	return got
}

func TestMinimalAgent(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewServer(t, modeltest.Turn{Text: []string{"Hel", "lo"}})
	failing := modeltest.NewServer(t, modeltest.Turn{Status: http.StatusUnauthorized})
	const (
		initReq   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`
		newReq    = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`
		promptReq = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hi"}]}}`
		initResp  = `{"id":0,"jsonrpc":"2.0","result":{"agentCapabilities":{"promptCapabilities":{}},"agentInfo":{"name":"minimalagent","version":"1"},"authMethods":[],"protocolVersion":1}}`
		newResp   = `{"id":1,"jsonrpc":"2.0","result":{"sessionId":"sess-1"}}`
	)
	chunk := func(text string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"content":{"text":"` + text + `","type":"text"},"sessionUpdate":"agent_message_chunk"}}}`
	}
	tests := []struct {
		name  string
		env   map[string]string
		lines []string
		want  []string
	}{
		{
			name:  "prompt streams the model's text",
			env:   map[string]string{"OPENAI_BASE_URL": srv.URL(), "HERMES_MODEL": "m", "OPENAI_API_KEY": "k"},
			lines: []string{initReq, newReq, promptReq},
			want:  []string{initResp, newResp, chunk("Hel"), chunk("lo"), `{"id":2,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`},
		},
		{
			name:  "no model configured",
			lines: []string{promptReq},
			want:  []string{chunk("No model configured: set OPENAI_BASE_URL and HERMES_MODEL."), `{"id":2,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`},
		},
		{
			name:  "model error",
			env:   map[string]string{"OPENAI_BASE_URL": failing.URL(), "HERMES_MODEL": "m"},
			lines: []string{promptReq},
			want:  []string{`{"error":{"code":-32603,"message":"model: 401 Unauthorized: {\"error\":{\"code\":\"invalid_api_key\",\"message\":\"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.\",\"param\":null,\"type\":\"invalid_request_error\"}}"},"id":2,"jsonrpc":"2.0"}`},
		},
		{
			name:  "bad input, unknown methods and notifications",
			lines: []string{`{not json`, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, `{"jsonrpc":"2.0","id":"x","method":"fs/nope"}`, ``},
			want:  []string{`{"error":{"code":-32700,"message":"parse error"},"id":null,"jsonrpc":"2.0"}`, `{"error":{"code":-32601,"message":"method not found: fs/nope"},"id":"x","jsonrpc":"2.0"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := converse(t, tt.env, tt.lines...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("agent output mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
