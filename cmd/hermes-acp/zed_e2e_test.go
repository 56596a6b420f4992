package main_test

// Zed cannot run here, so this file plays Zed: it reads the agent_servers
// entries documented in docs/editors/zed.md and starts exactly their
// command (looked up on PATH, as Zed does), args and env, then completes
// an ACP handshake, opens a thread in the entry's default_mode and sends a
// prompt.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// zedEntry is one agent_servers entry of Zed's settings.json.
type zedEntry struct {
	Type        string            `json:"type"`
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	DefaultMode string            `json:"default_mode"`
}

// zedEntries returns the agent_servers entries of the json blocks in
// docs/editors/zed.md, by display name.
func zedEntries(t *testing.T) map[string]zedEntry {
	t.Helper()
	doc, err := os.ReadFile("../../docs/editors/zed.md")
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]zedEntry{}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		var settings struct {
			AgentServers map[string]zedEntry `json:"agent_servers"`
		}
		dec := json.NewDecoder(strings.NewReader(m[1]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&settings); err != nil {
			t.Fatalf("docs/editors/zed.md: a json block is not a settings.json with agent_servers: %v\n%s", err, m[1])
		}
		for name, e := range settings.AgentServers {
			entries[name] = e
		}
	}
	return entries
}

func TestZedSettingsEntries(t *testing.T) {
	entries := zedEntries(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// want is text the answer to the first prompt must hold.
		want []string
	}{
		// No model configured yet (step 3 before step 2): the agent starts
		// and says how to configure one.
		{"Hermes", []string{"No language model is configured", "hermes-acp --setup"}},
		// The scripted entry answers with examples/hello.yaml's greeting.
		{"Hermes (scripted)", []string{helloGreeting(t)}},
	}
	if len(entries) != len(tests) {
		t.Errorf("docs/editors/zed.md documents %d agent_servers entries, this test knows %d", len(entries), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := entries[tt.name]
			if !ok {
				t.Fatalf("docs/editors/zed.md has no agent_servers entry %q", tt.name)
			}
			if e.Type != "custom" {
				t.Errorf("type = %q, want custom", e.Type)
			}
			// Zed finds the command on PATH; the test's PATH holds the
			// freshly built binary, as `make install` would.
			path := filepath.Dir(agentBin) + string(os.PathListSeparator) + os.Getenv("PATH")
			var env []string
			for _, kv := range baseEnv(t) {
				if !strings.HasPrefix(kv, "PATH=") {
					env = append(env, kv)
				}
			}
			env = append(env, "PATH="+path)
			for k, v := range e.Env {
				env = append(env, k+"="+v)
			}
			t.Setenv("PATH", path)
			found, err := exec.LookPath(e.Command)
			if err != nil {
				t.Fatalf("command %q: %v", e.Command, err)
			}
			if found != agentBin {
				t.Fatalf("command %q resolves to %s, want the built %s", e.Command, found, agentBin)
			}
			args := make([]string, len(e.Args))
			for i, a := range e.Args {
				args[i] = strings.ReplaceAll(a, "/path/to/hermes-acp", repo)
			}

			a := startRaw(t, args, env)
			var init struct {
				ProtocolVersion int `json:"protocolVersion"`
			}
			a.result(t, "initialize", map[string]any{
				"protocolVersion":    1,
				"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true},
				"clientInfo":         map[string]any{"name": "zed", "version": "0.221.0"},
			}, &init)
			if init.ProtocolVersion != 1 {
				t.Fatalf("initialize: protocolVersion = %d, want 1", init.ProtocolVersion)
			}
			var sess struct {
				SessionID string `json:"sessionId"`
				Modes     struct {
					AvailableModes []struct {
						ID string `json:"id"`
					} `json:"availableModes"`
				} `json:"modes"`
			}
			a.result(t, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}, &sess)
			if e.DefaultMode != "" {
				found := false
				for _, m := range sess.Modes.AvailableModes {
					found = found || m.ID == e.DefaultMode
				}
				if !found {
					t.Fatalf("default_mode %q is not one of the session's modes %+v", e.DefaultMode, sess.Modes.AvailableModes)
				}
				a.result(t, "session/set_mode", map[string]any{"sessionId": sess.SessionID, "modeId": e.DefaultMode}, nil)
			}
			stop, text := a.prompt(t, sess.SessionID, "Hello!")
			if stop != "end_turn" {
				t.Errorf("stopReason = %q, want end_turn", stop)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the answer does not hold %q:\n%s", w, text)
				}
			}
		})
	}
}
