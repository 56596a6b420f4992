package main_test

// The official ACP TypeScript SDK plays the editor of
// conformance/approvals.mjs (issue #25): a hostile model runs every
// disguised dangerous command of terminal/danger/testdata/disguised.txtar
// through the real binary and the user rejects every request — none of
// them runs (each is followed by a line that would create its own marker
// file, and the files the commands aim at stay); with one rule approved
// for the session a compound command that also triggers another rule
// still asks; "always allow" for `rm -rf build` stores an entry that does
// not match `rm -rf src`.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
	"gopkg.in/yaml.v3"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// approvalCase is one command of approvals.mjs.
type approvalCase struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	Marker  string `json:"marker"`
}

func TestTypeScriptSDKApprovals(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	srv := startModel(t, terminalModel(t))
	home, ws := t.TempDir(), t.TempDir()
	// What the disguised commands aim at, and what the later sessions
	// delete or keep.
	for _, d := range []string{"build", "src", "build-a", "build-b", "build-c", ".git/hooks"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, "keep"), []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".env", "shared.txt", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("KEY=value\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	ar, err := txtar.ParseFile(filepath.Join(repoRoot, "terminal", "danger", "testdata", "disguised.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []approvalCase
	for i, f := range ar.Files {
		marker := filepath.Join(ws, fmt.Sprintf("ran-%d", i))
		cmd := strings.TrimSuffix(string(f.Data), "\n")
		cases = append(cases, approvalCase{ID: fmt.Sprintf("d%d", i), Command: cmd + "\ntouch " + marker, Marker: marker})
	}
	if len(cases) < 100 {
		t.Fatalf("only %d disguised commands", len(cases))
	}
	raw, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(casesFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "approvals.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = baseEnv(t, append(modelEnv(srv),
		"HERMES_HOME="+home,
		"APPROVALS_WS="+ws,
		"APPROVALS_CASES="+casesFile,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)

	// Nothing the disguised commands aim at changed.
	for _, c := range cases {
		if _, err := os.Stat(c.Marker); err == nil {
			t.Errorf("%s ran: %q", c.ID, c.Command)
		}
	}
	for _, f := range []string{"src/keep", ".git/hooks/keep", ".env", "shared.txt", "notes.txt", "build-b/keep"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s is gone: %v", f, err)
		}
	}
	if hooks, _ := os.ReadDir(filepath.Join(ws, ".git", "hooks")); len(hooks) != 1 {
		t.Errorf(".git/hooks holds %d files, want only keep", len(hooks))
	}
	if fi, err := os.Stat(filepath.Join(ws, "shared.txt")); err == nil && fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("shared.txt became group/world-writable: %v", fi.Mode())
	}

	// "Always allow" stored the exact command, and nothing that covers
	// rm -rf src.
	cfgRaw, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Allowlist []string `yaml:"command_allowlist"`
	}
	if err := yaml.Unmarshal(cfgRaw, &cfg); err != nil {
		t.Fatalf("config.yaml: %v\n%s", err, cfgRaw)
	}
	if len(cfg.Allowlist) != 1 || cfg.Allowlist[0] != "rm -rf build" {
		t.Errorf("command_allowlist = %q, want [\"rm -rf build\"]", cfg.Allowlist)
	}
}

// smartReviewer answers the smart-approval reviewer's requests (the
// system message is its instructions): APPROVE for rm -rf build-smart
// (with its marker in ws),
// DENY for rm -rf src, ESCALATE otherwise; everything else goes to next.
func smartReviewer(ws string, seen *[]string, mu *sync.Mutex, next func(modeltest.Request) modeltest.Turn) func(modeltest.Request) modeltest.Turn {
	return func(r modeltest.Request) modeltest.Turn {
		if len(r.Messages) == 0 || r.Messages[0].Role != "system" || !strings.HasPrefix(r.Messages[0].Content, "You are a security reviewer") {
			return next(r)
		}
		_, rest, _ := strings.Cut(r.Messages[len(r.Messages)-1].Content, "<command>\n")
		cmd, _, _ := strings.Cut(rest, "\n</command>")
		mu.Lock()
		*seen = append(*seen, cmd)
		mu.Unlock()
		switch cmd {
		case "rm -rf build-smart\ntouch " + filepath.Join(ws, "marker-smart"):
			return text("APPROVE")
		case "rm -rf src":
			return text("DENY")
		}
		return text("ESCALATE")
	}
}

// TestTypeScriptSDKSmartApprovals runs approvals.mjs's smart phase: an
// agent with approvals.mode: smart whose reviewer (the same scripted
// model) approves, denies and escalates.
func TestTypeScriptSDKSmartApprovals(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	home, ws := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	var seen []string
	srv := startModel(t, smartReviewer(ws, &seen, &mu, terminalModel(t)))
	for _, d := range []string{"build-smart", "src", "docs"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, "keep"), []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("approvals:\n  mode: smart\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "approvals.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = baseEnv(t, append(modelEnv(srv),
		"HERMES_HOME="+home,
		"APPROVALS_WS="+ws,
		"APPROVALS_CASES="+filepath.Join(t.TempDir(), "none.json"),
		"APPROVALS_PHASE=smart",
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[2] != "rm -rf docs" {
		t.Errorf("the reviewer saw %q, want three commands, the last without its comment", seen)
	}
}
