package main_test

// The official ACP TypeScript SDK plays the editor of conformance/terminal.mjs
// while the model runs commands with the `terminal` tool (issue #11): in the
// editor's terminals when it has them (terminal/* released on every path,
// also on timeout and cancel), else run by the agent with its output
// streamed as a bounded number of updates; a dangerous command asks first,
// never runs after "Deny", and "Allow always" survives a restart of the
// agent; a cancel leaves no process behind.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// promptStep matches the prompts of terminal.mjs: "[ID] ARGS".
var promptStep = regexp.MustCompile(`^\[([a-zA-Z0-9]+)\] (\{.*\})$`)

// terminalModel calls terminal with the prompt's arguments, then repeats
// the result to the editor.
func terminalModel(t *testing.T) func(modeltest.Request) modeltest.Turn {
	return func(r modeltest.Request) modeltest.Turn {
		last := -1
		for i, msg := range r.Messages {
			if msg.Role == "user" {
				last = i
			}
		}
		if last < 0 {
			t.Errorf("model request without a user message")
			return text("no prompt")
		}
		m := promptStep.FindStringSubmatch(r.Messages[last].Content)
		if m == nil {
			t.Errorf("unexpected prompt %q", r.Messages[last].Content)
			return text("?")
		}
		for _, msg := range r.Messages[last+1:] {
			if msg.Role == "tool" {
				return text(m[1] + " done; the tool said: " + msg.Content)
			}
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_" + m[1], Name: "terminal", Arguments: m[2]}}}
	}
}

func runTerminalScript(t *testing.T, node string, env []string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "terminal.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = env
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)
}

func TestTypeScriptSDKTerminal(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	srv := startModel(t, terminalModel(t))
	home, ws := t.TempDir(), t.TempDir()
	env := func(phase string) []string {
		return baseEnv(t, append(modelEnv(srv),
			"HERMES_HOME="+home,
			"TERMINAL_WS="+ws,
			"TERMINAL_PHASE="+phase,
			"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
		)...)
	}
	runTerminalScript(t, node, env("main"))
	cfg, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "command_allowlist") {
		t.Fatalf("\"Allow always\" saved nothing in config.yaml (%v):\n%s", err, cfg)
	}
	t.Logf("config.yaml after \"Allow always\":\n%s", cfg)
	runTerminalScript(t, node, env("restart"))
}
