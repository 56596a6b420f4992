package main_test

// The official ACP TypeScript SDK plays an editor while a session switches
// from an OpenAI-compatible model to an Anthropic one mid-conversation
// (conformance/anthropic.mjs). Both models are fakes on loopback; the
// Anthropic one speaks the Messages API's event stream. This side checks
// what the Anthropic server was sent: the earlier OpenAI turn's tool call
// and result converted to tool_use and tool_result, and its own signed
// thinking sent back exactly during its tool round.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

const todoArgs = `{"todos":[{"id":"1","content":"Read the code","status":"in_progress"}]}`

// anthropicWire is the part of a Messages request this test reads.
type anthropicWire struct {
	Model    string `json:"model"`
	System   []map[string]any
	Messages []struct {
		Role    string           `json:"role"`
		Content []map[string]any `json:"content"`
	} `json:"messages"`
}

func TestTypeScriptSDKProviderSwitch(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	oai := startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		switch {
		case last.Role == "tool":
			return modeltest.Turn{Text: []string{"openai done: ", last.Content}}
		case strings.Contains(last.Content, "[openai]"):
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_oai.1", Name: "todo", Arguments: todoArgs}}}
		}
		t.Errorf("the OpenAI-compatible model got an unexpected request ending %+v", last)
		return modeltest.Turn{Text: []string{"unexpected"}}
	})
	ant := modeltest.StartAnthropic(modeltest.AnthropicOptions{APIKey: "ant-key", Errorf: t.Errorf, Respond: func(body json.RawMessage) modeltest.AnthropicTurn {
		var w anthropicWire
		_ = json.Unmarshal(body, &w)
		last := w.Messages[len(w.Messages)-1]
		for _, b := range last.Content {
			if b["type"] == "tool_result" && b["tool_use_id"] == "toolu_ant_1" {
				return modeltest.AnthropicTurn{Text: []string{"anthropic done."}, Usage: &modeltest.AnthropicUsage{InputTokens: 20, CacheReadInputTokens: 900, CacheCreationInputTokens: 80, OutputTokens: 5}}
			}
		}
		return modeltest.AnthropicTurn{Thinking: []string{"The plan ", "needs an update."}, Signature: "sig-e2e",
			ToolCalls: []modeltest.ToolCall{{ID: "toolu_ant_1", Name: "todo", Arguments: todoArgs}}}
	}})
	t.Cleanup(ant.Close)

	home := t.TempDir()
	cfg := "model:\n  default: test-model\n  provider: custom\n  base_url: " + oai.URL() + "\n  choices: [\"anthropic:claude-e2e\"]\n  thinking_budget: 2048\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("conformance", "anthropic.mjs"), agentBin)
	cmd.Dir = repoRoot
	cmd.Env = baseEnv(t, "HERMES_HOME="+home, "ANTHROPIC_API_KEY=ant-key", "ANTHROPIC_BASE_URL="+ant.URL(),
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"))
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node conformance/anthropic.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)

	reqs := ant.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the Anthropic server got %d requests, want 2 (tool round and answer)", len(reqs))
	}
	var first, second anthropicWire
	if err := json.Unmarshal(reqs[0], &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(reqs[1], &second); err != nil {
		t.Fatal(err)
	}
	if first.Model != "claude-e2e" || len(first.System) != 1 || first.System[0]["cache_control"] == nil {
		t.Errorf("first request: model %q, system %v; want claude-e2e and a cached system prompt", first.Model, first.System)
	}
	// The OpenAI turn, converted: user prompt, assistant tool_use, user
	// tool_result followed by its answer text, then the new prompt.
	var shape []string
	for _, m := range first.Messages {
		s := m.Role + ":"
		for _, b := range m.Content {
			s += " " + b["type"].(string)
		}
		shape = append(shape, s)
	}
	want := []string{"user: text", "assistant: tool_use", "user: tool_result", "assistant: text", "user: text"}
	if strings.Join(shape, " | ") != strings.Join(want, " | ") {
		t.Fatalf("the earlier turn reached Anthropic as %q, want %q", shape, want)
	}
	use, result := first.Messages[1].Content[0], first.Messages[2].Content[0]
	if use["id"] != "call_oai_1" || use["name"] != "todo" || result["tool_use_id"] != "call_oai_1" {
		t.Errorf("tool_use %v / tool_result %v: want the OpenAI call id made valid (call_oai_1) on both", use, result)
	}
	if !strings.Contains(jsonText(result), "Read the code") || !strings.Contains(jsonText(first.Messages[3].Content), "openai done") {
		t.Errorf("the OpenAI turn's tool result or answer is missing: %v / %v", result, first.Messages[3].Content)
	}
	// The Anthropic tool round sends its signed thinking back first.
	a := second.Messages[len(second.Messages)-2]
	if a.Role != "assistant" || a.Content[0]["type"] != "thinking" || a.Content[0]["signature"] != "sig-e2e" || a.Content[0]["thinking"] != "The plan needs an update." {
		t.Errorf("the Anthropic tool round's assistant turn = %v, want its signed thinking first", a.Content)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
