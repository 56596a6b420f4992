package main_test

// The ACP registry's admission check and the terminal authentication it
// asks for, through the real binary. The registry's CI
// (agentclientprotocol/registry, .github/workflows/client.py) starts every
// agent with an environment of a few passed-through variables, TERM=dumb and
// a fresh empty HOME, writes one initialize request (Python's json.dumps of
// the params below) and reads one line back: it must be the initialize
// response, with at least one auth method of type "agent" or "terminal"
// (the type comes from "type", else from the _meta keys "terminal-auth" /
// "agent-auth", else it is "agent"). Editors then run the terminal method:
// Zed (without its ACP beta flag) runs the command _meta["terminal-auth"]
// names in a terminal and reconnects when it exits 0.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/hermes-acp/hermes-acp/internal/schematest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// registryPassthrough is client.py's AGENT_ENV_PASSTHROUGH: the only
// variables of the validator's own environment the agent sees.
var registryPassthrough = []string{
	"CI", "COMSPEC", "NPM_CONFIG_CACHE", "NODE_EXTRA_CA_CERTS", "PATH", "PATHEXT",
	"PYTHON_KEYRING_BACKEND", "PYTHON_KEYRING_DISABLED", "REQUESTS_CA_BUNDLE",
	"SSL_CERT_DIR", "SSL_CERT_FILE", "SystemRoot", "TMP", "TMPDIR", "TEMP",
	"UV_CACHE_DIR", "WINDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
}

// registryInitialize is the line client.py writes: json.dumps of its
// request, with Python's default separators.
const registryInitialize = `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"}, "clientCapabilities": {"terminal": true, "fs": {"readTextFile": true, "writeTextFile": true}, "_meta": {"terminal_output": true, "terminal-auth": true}}}}`

// registryEnv is the environment client.py gives the agent.
func registryEnv(t *testing.T) []string {
	env := []string{}
	for _, k := range registryPassthrough {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return append(env, "TERM=dumb", "HOME="+t.TempDir())
}

// registryAuthMethod is an auth method as client.py reads it.
type registryAuthMethod struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Type string         `json:"type"`
	Args []string       `json:"args"`
	Env  map[string]any `json:"env"`
	Meta map[string]any `json:"_meta"`
}

// registryType is client.py's parse_auth_methods: "type", else the _meta
// keys, else "agent".
func (m registryAuthMethod) registryType() string {
	switch {
	case m.Type != "":
		return m.Type
	case m.Meta["terminal-auth"] != nil:
		return "terminal"
	case m.Meta["agent-auth"] != nil:
		return "agent"
	}
	return "agent"
}

// registryHandshake starts the binary as client.py does, writes line and
// returns the first line the agent answers, decoded, and the agent's
// stderr. The agent is then terminated with SIGTERM, as client.py does,
// and must exit.
func registryHandshake(t *testing.T, env []string, line string) (map[string]json.RawMessage, string) {
	t.Helper()
	checker := schematest.Attach(t)
	cmd := exec.Command(agentBin)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = exitDeadline
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	checker.Line(false, []byte(line))
	if _, err := io.WriteString(stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := bufio.NewReader(stdout).ReadBytes('\n')
		got <- b
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var first []byte
	select {
	case first = <-got:
	case <-time.After(60 * time.Second): // client.py's timeout: a hang guard
		_ = cmd.Process.Kill()
		t.Fatalf("no answer to the registry's initialize within client.py's 60 s\nstderr:\n%s", stderr.String())
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil && !strings.Contains(err.Error(), "terminated") && !strings.Contains(err.Error(), "exit status") {
		t.Errorf("after SIGTERM: %v", err)
	}
	checker.Line(true, bytes.TrimSuffix(first, []byte("\n")))
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(first, &msg); err != nil {
		t.Fatalf("the first line on stdout is not JSON (client.py reports an ACP spec violation): %q", first)
	}
	if _, ok := msg["error"]; ok {
		t.Fatalf("initialize answered an error: %s", first)
	}
	if string(msg["id"]) != "1" {
		t.Fatalf("the first line is not the initialize response: %s", first)
	}
	return msg, stderr.String()
}

func authMethodsOf(t *testing.T, msg map[string]json.RawMessage) []registryAuthMethod {
	t.Helper()
	var res struct {
		AuthMethods []registryAuthMethod `json:"authMethods"`
	}
	if err := json.Unmarshal(msg["result"], &res); err != nil {
		t.Fatalf("initialize result %s: %v", msg["result"], err)
	}
	return res.AuthMethods
}

// TestRegistryAuthCheck plays client.py's run_auth_check, and the same
// handshake with no client capabilities and with auth.terminal: every one
// finds a valid auth method.
func TestRegistryAuthCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		line     string
		wantType string
		legacy   bool // _meta["terminal-auth"] names the command
	}{
		{"the registry validator", registryInitialize, "terminal", true},
		{"no client capabilities", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`, "agent", false},
		{"auth.terminal", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"auth":{"terminal":true}}}}`, "terminal", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg, stderr := registryHandshake(t, registryEnv(t), tt.line)
			methods := authMethodsOf(t, msg)
			// validate_auth_methods: at least one of type agent or terminal.
			valid := slices.IndexFunc(methods, func(m registryAuthMethod) bool {
				return m.registryType() == "agent" || m.registryType() == "terminal"
			})
			if valid < 0 {
				t.Fatalf("no auth method of type agent or terminal: %+v\nstderr:\n%s", methods, stderr)
			}
			m := methods[valid]
			if m.registryType() != tt.wantType || m.ID == "" || m.Name == "" {
				t.Errorf("auth method %+v, want type %s with an id and a name", m, tt.wantType)
			}
			if tt.wantType == "terminal" && !slices.Equal(m.Args, []string{"--setup"}) {
				t.Errorf("terminal method args = %q, want [--setup]", m.Args)
			}
			ta, _ := m.Meta["terminal-auth"].(map[string]any)
			if !tt.legacy {
				if ta != nil {
					t.Errorf("_meta[\"terminal-auth\"] = %v for a client that did not ask for it", ta)
				}
				return
			}
			// Zed runs the legacy form's command itself: it must be this
			// executable, by absolute path, with --setup, and a label.
			cmdPath, _ := ta["command"].(string)
			if !filepath.IsAbs(cmdPath) || ta["label"] == nil || !slices.Equal(anyStrings(ta["args"]), []string{"--setup"}) {
				t.Fatalf("_meta[\"terminal-auth\"] = %v, want an absolute command, args [--setup] and a label", ta)
			}
			same, err := sameFile(cmdPath, agentBin)
			if err != nil || !same {
				t.Errorf("_meta[\"terminal-auth\"].command = %s, want this binary %s (%v)", cmdPath, agentBin, err)
			}
		})
	}
}

func anyStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, s := range a {
			str, _ := s.(string)
			out = append(out, str)
		}
	}
	return out
}

func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

// TestTerminalAuthSetsUpTheModel plays Zed's terminal authentication: the
// agent runs with HERMES_HOME from the editor's agent settings and no model;
// the editor runs the command of _meta["terminal-auth"] in a terminal (a
// pseudo-terminal, with only the terminal's own environment and what the
// method names); the user answers the setup's questions, the API key
// without echo; the command exits 0; the editor restarts the agent, whose
// first prompt reaches the model the user chose.
func TestTerminalAuthSetsUpTheModel(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		if r.Model != "setup-model" {
			t.Errorf("model request for %q, want the model chosen in the setup", r.Model)
		}
		return modeltest.Turn{Text: []string{"configured now"}}
	})
	home, hermesHome := t.TempDir(), filepath.Join(t.TempDir(), "hermes")
	agentEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "HERMES_HOME=" + hermesHome, "LANG=C.UTF-8"}

	// 1. The editor connects; it is offered the terminal method.
	a := startRaw(t, nil, agentEnv)
	var res struct {
		AuthMethods []registryAuthMethod `json:"authMethods"`
	}
	a.result(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true,
		"auth": map[string]any{"terminal": true}, "_meta": map[string]any{"terminal_output": true, "terminal-auth": true},
	}}, &res)
	if len(res.AuthMethods) != 1 || res.AuthMethods[0].registryType() != "terminal" {
		t.Fatalf("authMethods = %+v, want one terminal method", res.AuthMethods)
	}
	ta, _ := res.AuthMethods[0].Meta["terminal-auth"].(map[string]any)
	command, _ := ta["command"].(string)
	taEnv, _ := ta["env"].(map[string]any)
	if command == "" || taEnv["HERMES_HOME"] != hermesHome {
		t.Fatalf("_meta[\"terminal-auth\"] = %v, want the command and HERMES_HOME %s", ta, hermesHome)
	}
	_, _ = a.waitExit(t)

	// 2. The editor's terminal runs it; the user answers.
	setup := exec.Command(command, anyStrings(ta["args"])...)
	setup.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=xterm-256color"}
	for k, v := range taEnv {
		setup.Env = append(setup.Env, k+"="+v.(string))
	}
	setup.Dir = t.TempDir()
	term, err := pty.Start(setup)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	screen := &screenBuffer{changed: make(chan struct{})}
	go func() { _, _ = io.Copy(screen, term) }()
	const apiKey = "sk-setup-secret-1234"
	for _, step := range []struct{ prompt, answer string }{
		{"Provider", ""}, // the default, openai
		{"Model server base URL", srv.URL()},
		{"Model name", "setup-model"},
		{"API key", apiKey},
	} {
		if !screen.waitFor(step.prompt, callTimeout) {
			t.Fatalf("the setup never asked %q; the terminal shows:\n%s", step.prompt, screen.String())
		}
		if _, err := io.WriteString(term, step.answer+"\r"); err != nil {
			t.Fatal(err)
		}
	}
	if !screen.waitFor("Saved.", callTimeout) {
		t.Fatalf("the setup did not finish; the terminal shows:\n%s", screen.String())
	}
	if err := waitCmd(setup, exitDeadline); err != nil {
		t.Fatalf("hermes-acp --setup in a terminal: %v\n%s", err, screen.String())
	}
	if strings.Contains(screen.String(), apiKey) {
		t.Errorf("the API key was echoed in the terminal:\n%s", screen.String())
	}
	if env, err := os.ReadFile(filepath.Join(hermesHome, ".env")); err != nil || !strings.Contains(string(env), "OPENAI_API_KEY="+apiKey) {
		t.Errorf("%s/.env = %q, %v; want the key", hermesHome, env, err)
	}

	// 3. The editor reconnects: the configured model answers.
	b := startRaw(t, nil, agentEnv)
	b.initialize(t)
	b.result(t, "authenticate", map[string]any{"methodId": "hermes-model"}, nil)
	sid := b.newSession(t)
	if stop, text := b.prompt(t, sid, "Hello?"); stop != "end_turn" || text != "configured now" {
		t.Errorf("after the setup: %s %q, want end_turn and the model's reply", stop, text)
	}
}

// screenBuffer collects what a terminal shows. It is safe for concurrent
// use.
type screenBuffer struct {
	mu      sync.Mutex // guards the fields below
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (s *screenBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

func (s *screenBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the screen shows text (a hang guard of d).
func (s *screenBuffer) waitFor(text string, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		s.mu.Lock()
		ok, ch := strings.Contains(s.b.String(), text), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// waitCmd waits for cmd, killing it after d (a hang guard).
func waitCmd(cmd *exec.Cmd, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		return <-done
	}
}
