package main_test

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// TestMCPServerEndToEnd: the real binary connects a stdio MCP server passed
// in session/new (a test server built with the same SDK), offers its tool to
// the model, runs the model's call, shows it completed, and returns the
// result to the model.
func TestMCPServerEndToEnd(t *testing.T) {
	t.Parallel()
	server := mcptest.Build(t)
	var mu sync.Mutex
	var offered []string // tool names of the first model request
	var toolResult string
	srv := startModel(t, func(req modeltest.Request) modeltest.Turn {
		mu.Lock()
		defer mu.Unlock()
		if offered == nil {
			for _, tl := range req.Tools {
				offered = append(offered, tl.Name)
			}
		}
		if last := req.Last(); last.Role == "tool" {
			toolResult = last.Content
			return modeltest.Turn{Text: []string{"done"}, Finish: "stop"}
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "mcp_call_1", Name: "mcp_test_add", Arguments: `{"a":2,"b":3}`}}, Finish: "tool_calls"}
	})
	a := startRaw(t, nil, append(baseEnv(t), modelEnv(srv)...))
	a.initialize(t)
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{
		map[string]any{"name": "test", "command": server, "args": []string{}, "env": []any{}},
	}}, &sess)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	updates := a.result(t, "session/prompt", map[string]any{
		"sessionId": sess.SessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": "add two and three"}},
	}, &res)
	if res.StopReason != "end_turn" {
		t.Fatalf("stop = %s", res.StopReason)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(offered, "mcp_test_add") {
		t.Errorf("tools offered to the model = %v, want mcp_test_add", offered)
	}
	if toolResult != `{"result":"5"}` {
		t.Errorf("tool result the model received = %q, want {\"result\":\"5\"}", toolResult)
	}
	var completed bool
	for _, m := range updates {
		var p struct {
			Update struct {
				Kind   string `json:"sessionUpdate"`
				ID     string `json:"toolCallId"`
				Status string `json:"status"`
			} `json:"update"`
		}
		if m.Method == "session/update" && json.Unmarshal(m.Params, &p) == nil &&
			p.Update.Kind == "tool_call_update" && p.Update.ID == "mcp_call_1" && p.Update.Status == "completed" {
			completed = true
		}
	}
	if !completed {
		t.Errorf("no completed tool_call_update for mcp_call_1 among %d updates", len(updates))
	}
}
