package main_test

// The official ACP TypeScript SDK plays the editor of conformance/process.mjs
// while the model manages background commands with the `process` tool
// (issue #11): a command started with terminal background=true is listed,
// polled, waited for and its log paged; another is killed, with no process
// left; an unknown id is an error the model reads.

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// processStep matches the prompts of process.mjs: "[ID] TOOL ARGS".
var processStep = regexp.MustCompile(`^\[([a-zA-Z0-9]+)\] ([a-z_]+) (\{.*\})$`)

// processModel calls the prompt's tool with its arguments, then repeats the
// result to the editor.
func processModel(t *testing.T) func(modeltest.Request) modeltest.Turn {
	return func(r modeltest.Request) modeltest.Turn {
		// The last prompt of the editor; the agent's notices of exited
		// background processes come as user messages too, and are skipped.
		last, m := -1, []string(nil)
		for i, msg := range r.Messages {
			if msg.Role == "user" {
				if mm := processStep.FindStringSubmatch(msg.Content); mm != nil {
					last, m = i, mm
				}
			}
		}
		if last < 0 {
			t.Errorf("model request without a prompt: %+v", r.Messages)
			return text("no prompt")
		}
		for _, msg := range r.Messages[last+1:] {
			if msg.Role == "tool" {
				return text(m[1] + " done; the tool said: " + msg.Content)
			}
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_" + m[1], Name: m[2], Arguments: m[3]}}}
	}
}

func TestTypeScriptSDKProcess(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	srv := startModel(t, processModel(t))
	home, ws := t.TempDir(), t.TempDir()
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "process.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = baseEnv(t, append(modelEnv(srv),
		"HERMES_HOME="+home,
		"PROCESS_WS="+ws,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)
}
