package main_test

// The official ACP TypeScript SDK drives the real binary through the shared
// scenario (conformance/run.mjs), validating every agent message with its
// zod schemas.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// repoRoot is the repository root, relative to the package folder.
const repoRoot = "../.."

func TestTypeScriptSDKConformance(t *testing.T) {
	t.Parallel()
	for _, dep := range []string{"@agentclientprotocol/sdk", "zod"} {
		if _, err := os.Stat(filepath.Join(repoRoot, "conformance", "node_modules", dep, "package.json")); err != nil {
			t.Fatalf("conformance/node_modules/%s is missing: run `npm ci --prefix conformance` (make check does)", dep)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (Node 20 or later is needed for the TypeScript SDK conformance test): %v", err)
	}
	scenarioFile, err := filepath.Abs(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	sc := loadScenario(t)
	srv := startModel(t, sc.responder(t))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "conformance/run.mjs", agentBin)
	cmd.Dir = repoRoot
	cmd.Env = baseEnv(t, append(modelEnv(srv), "CONFORMANCE_SCENARIO="+scenarioFile)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node conformance/run.mjs %s: %v\n%s", agentBin, err, out)
	}
	t.Logf("%s", out)

	// The run really played the scenario: two model requests for the tool
	// prompt, one for the cancelled prompt, one for the last prompt.
	if got := len(srv.Requests()); got != 4 {
		t.Errorf("the fake model received %d requests, want 4", got)
	}
	select {
	case <-srv.Disconnected():
	default:
		t.Error("the cancelled prompt did not stop its model request")
	}
}
