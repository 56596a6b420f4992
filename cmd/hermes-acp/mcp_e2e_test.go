package main_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestMCPServerEnvironment: a stdio MCP server gets only the safe variables
// of the agent's environment (PATH, HOME, the locale, XDG_*…) and the ones
// its own configuration names — never the model's API key or another
// credential the agent was started with (hermes's _build_safe_env).
func TestMCPServerEnvironment(t *testing.T) {
	t.Parallel()
	server := mcptest.Build(t)
	names := []string{"PATH", "HOME", "LANG", "XDG_CONFIG_HOME", "FOR_THE_SERVER", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL"}
	var mu sync.Mutex
	var toolResult string
	srv := startModel(t, func(req modeltest.Request) modeltest.Turn {
		mu.Lock()
		defer mu.Unlock()
		if last := req.Last(); last.Role == "tool" {
			toolResult = last.Content
			return modeltest.Turn{Text: []string{"done"}, Finish: "stop"}
		}
		args, _ := json.Marshal(map[string]any{"names": names})
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "env_1", Name: "mcp_test_env", Arguments: string(args)}}, Finish: "tool_calls"}
	})
	home := t.TempDir()
	env := append(baseEnv(t), modelEnv(srv)...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "HOME=") {
			env[i] = "HOME=" + home
		}
	}
	env = append(env, "XDG_CONFIG_HOME="+home+"/.config", "AWS_SECRET_ACCESS_KEY=aws-secret", "DATABASE_URL=postgres://u:pw@db/x")
	a := startRaw(t, nil, env)
	a.initialize(t)
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{
		map[string]any{"name": "test", "command": server, "args": []string{}, "env": []any{
			map[string]any{"name": "FOR_THE_SERVER", "value": "configured"},
		}},
	}}, &sess)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	a.result(t, "session/prompt", map[string]any{
		"sessionId": sess.SessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": "show the server's environment"}},
	}, &res)
	if res.StopReason != "end_turn" {
		t.Fatalf("stop = %s", res.StopReason)
	}
	mu.Lock()
	defer mu.Unlock()
	var got struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(toolResult), &got); err != nil {
		t.Fatalf("tool result %q: %v", toolResult, err)
	}
	want := strings.Join([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + home + "/.config",
		"FOR_THE_SERVER=configured",
		"OPENAI_API_KEY=(unset)",
		"AWS_SECRET_ACCESS_KEY=(unset)",
		"DATABASE_URL=(unset)",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, got.Result); diff != "" {
		t.Errorf("the MCP server's environment (-want +got):\n%s", diff)
	}
}
