package main_test

// Protocol edges against the real binary: request ids come back exactly as
// sent, JSON-RPC 2.0 envelopes are enforced (raw lines, which no SDK can
// produce); the TypeScript SDK plays an editor while an MCP server returns
// 20 MiB and while the editor never answers fs/read_text_file
// (conformance/protocol.mjs); and a killed agent takes its MCP servers
// with it.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// TestProtocolEdgesEndToEnd: ids of every valid kind are echoed byte for
// byte; id null, a missing or wrong "jsonrpc" and a fractional id are
// -32600 with the id echoed when there is a valid one.
func TestProtocolEdgesEndToEnd(t *testing.T) {
	t.Parallel()
	a := startRaw(t, nil, baseEnv(t))
	a.initialize(t)
	for _, id := range []string{`-1`, `9223372036854775807`, `9007199254740993`, `"abc"`, `-9007199254740993`} {
		a.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"session/list","params":{}}`)
		res, _ := a.until(t)
		if string(res.ID) != id || res.Error != nil || res.Result == nil {
			t.Errorf("session/list with id %s → id %s, error %+v; want a result with id %s", id, res.ID, res.Error, id)
		}
	}
	for _, tc := range []struct{ name, line, wantID string }{
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"session/list","params":{}}`, "null"},
		{"no jsonrpc", `{"id":5,"method":"session/list","params":{}}`, "5"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"v1","method":"session/list","params":{}}`, `"v1"`},
		{"fractional id", `{"jsonrpc":"2.0","id":2.5,"method":"session/list","params":{}}`, "null"},
	} {
		a.send(t, tc.line)
		res, _ := a.until(t)
		if string(res.ID) != tc.wantID || res.Error == nil || res.Error.Code != -32600 {
			t.Errorf("%s → id %s, error %+v; want -32600 with id %s", tc.name, res.ID, res.Error, tc.wantID)
		}
	}
}

// TestMCPServerDiesWithKilledAgent: kill -9 of the agent also ends its
// stdio MCP server (Pdeathsig), even one that ignores the end of its input
// and would otherwise live on, orphaned.
func TestMCPServerDiesWithKilledAgent(t *testing.T) {
	t.Parallel()
	server := mcptest.Build(t)
	events := filepath.Join(t.TempDir(), "events")
	a := startRaw(t, nil, baseEnv(t))
	a.initialize(t)
	a.result(t, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{
		map[string]any{"name": "test", "command": server, "args": []string{}, "env": []any{
			map[string]any{"name": mcptest.EventsEnv, "value": events},
			map[string]any{"name": mcptest.LingerEnv, "value": "1"}, // it would outlive the agent's pipes
		}},
	}}, nil)
	pid := serverPID(t, events)
	if !processAlive(pid) {
		t.Fatalf("MCP server %d is not running before the kill", pid)
	}
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	deadline := time.Now().Add(10 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("MCP server %d still runs 10 s after its agent was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serverPID waits for the mcptest server's start event and returns its pid.
func serverPID(t *testing.T, events string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(events)
		for line := range strings.SplitSeq(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, mcptest.EventStart+" "); ok {
				pid, err := strconv.Atoi(rest)
				if err != nil {
					t.Fatal(err)
				}
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the MCP server never started; events: %q", data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processAlive reports whether /proc shows pid running (a zombie, waiting
// to be reaped by whoever inherited it, counts as gone).
func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestTypeScriptSDKProtocol runs conformance/protocol.mjs: a 20 MiB MCP
// result keeps the server usable, and an editor that never answers
// fs/read_text_file times out (fs.timeout: 1) with the model told.
func TestTypeScriptSDKProtocol(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	server := mcptest.Build(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("fs:\n  timeout: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		toolResult := func(id string) string {
			for _, m := range r.Messages {
				if m.Role == "tool" && m.ToolCallID == id {
					return m.Content
				}
			}
			return "(none)"
		}
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "[big]"):
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_big", Name: "mcp_test_big", Arguments: `{"mib":20}`}}}
		case last.Role == "tool" && last.ToolCallID == "call_big":
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_echo", Name: "mcp_test_echo", Arguments: `{"text":"still here"}`}}}
		case last.Role == "tool" && last.ToolCallID == "call_echo":
			return modeltest.Turn{Text: []string{"big: " + truncate(toolResult("call_big"), 400) + " | echo: " + last.Content}}
		case last.Role == "user" && strings.Contains(last.Content, "[read]"):
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_read", Name: "read_file", Arguments: `{"path":"a.txt"}`}}}
		case last.Role == "tool" && last.ToolCallID == "call_read":
			return modeltest.Turn{Text: []string{"read: " + last.Content}}
		}
		t.Errorf("fake model: unexpected request; last message %s %q", last.Role, truncate(last.Content, 200))
		return modeltest.Turn{Status: 500}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("conformance", "protocol.mjs"), agentBin)
	cmd.Dir = repoRoot
	cmd.Env = baseEnv(t, append(modelEnv(srv), "HERMES_HOME="+home, "PROTOCOL_MCP_SERVER="+server, "CONFORMANCE_WORKDIR="+t.TempDir())...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node conformance/protocol.mjs %s: %v\n%s", agentBin, err, out)
	}
	t.Logf("%s", out)
}
