package main_test

// The call pipeline's catch-all through the real binary: a build with the
// faultinject tag panics where HERMES_ACP_INJECT_PANIC says, here in the
// parallel worker that runs read_file — the stage whose panic used to end
// the process. The call fails with hermes's catch-all result, its
// neighbour in the batch completes, the model reads the error and finishes
// the turn, the stack is on stderr, and the process serves the next prompt.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// faultBin builds hermes-acp with the faultinject tag once, next to
// agentBin, for the tests that need it.
var faultBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(agentBin), "hermes-acp-faultinject")
	cmd := exec.Command("go", "build", "-tags", "faultinject", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -tags faultinject: %w\n%s", err, out)
	}
	return bin, nil
})

func TestCatchAllParallelWorkerPanic(t *testing.T) {
	t.Parallel()
	bin, err := faultBin()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("MARK one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		results = map[string]string{}
	)
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		mu.Lock()
		defer mu.Unlock()
		last := r.Last()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "look around"):
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{
				{ID: "call_read", Name: "read_file", Arguments: `{"path":"notes.txt"}`},
				{ID: "call_search", Name: "search_files", Arguments: `{"pattern":"MARK","target":"content"}`},
			}}
		case last.Role == "tool":
			for _, m := range r.Messages {
				if m.Role == "tool" {
					results[m.ToolCallID] = m.Content
				}
			}
			return text("looked")
		default:
			return text("still here")
		}
	})
	env := append(baseEnv(t, "HERMES_ACP_INJECT_PANIC=worker:read_file"), modelEnv(srv)...)
	a := startRawBin(t, bin, nil, env)
	a.initialize(t)
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	a.result(t, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &sess)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	updates := a.result(t, "session/prompt", map[string]any{
		"sessionId": sess.SessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": "look around"}},
	}, &res)
	if res.StopReason != "end_turn" {
		t.Errorf("the turn with the panic stopped with %q, want end_turn", res.StopReason)
	}

	const want = `{"error":"Error executing read_file: injected panic at worker of read_file"}`
	mu.Lock()
	if got := results["call_read"]; got != want {
		t.Errorf("the model read %q for the read_file call, want %s", got, want)
	}
	if got := results["call_search"]; !strings.Contains(got, "notes.txt") {
		t.Errorf("the search_files call in the same batch: the model read %q, want a match in notes.txt", got)
	}
	mu.Unlock()

	status := map[string]string{}
	var failedText string
	for _, m := range updates {
		var p struct {
			Update struct {
				Kind    string `json:"sessionUpdate"`
				ID      string `json:"toolCallId"`
				Status  string `json:"status"`
				Content []struct {
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"content"`
			} `json:"update"`
		}
		if m.Method != "session/update" || json.Unmarshal(m.Params, &p) != nil || p.Update.Kind != "tool_call_update" || p.Update.Status == "" {
			continue
		}
		status[p.Update.ID] = p.Update.Status
		if p.Update.ID == "call_read" {
			for _, c := range p.Update.Content {
				failedText += c.Content.Text
			}
		}
	}
	if status["call_read"] != "failed" || status["call_search"] != "completed" {
		t.Errorf("the editor saw the calls end as %v, want call_read failed and call_search completed", status)
	}
	if !strings.Contains(failedText, "injected panic at worker of read_file") {
		t.Errorf("the failed read_file shows %q, want the panic's message", failedText)
	}
	if log := a.stderr.String(); !strings.Contains(log, "tool call pipeline panicked") || !strings.Contains(log, "runtime/debug.Stack") {
		t.Errorf("stderr lacks the catch-all's log with the stack:\n%s", truncate(log, 4000))
	}

	// The process keeps serving.
	if stop, reply := a.prompt(t, sess.SessionID, "are you there"); stop != "end_turn" || reply != "still here" {
		t.Errorf("the next prompt: stop %q, reply %q; want end_turn, \"still here\"", stop, reply)
	}
}
