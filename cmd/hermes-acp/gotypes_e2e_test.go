package main_test

// The official ACP TypeScript SDK plays an editor while the script model
// edits a Go package (conformance/gotypes.mjs): a patch calling an
// undefined function shows "introduces 1 type error" in the permission
// request and a go-types diagnostic after the write; the fix clears it.

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKGoTypes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	r := sdkRun{
		script:     filepath.Join("conformance", "gotypes.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	// The shared build cache: the agent's first check in the module
	// builds the export data of fmt and strings there (the test's HOME is
	// a fresh folder).
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	r.exec(t, 3*time.Minute, "GOCACHE="+strings.TrimSpace(string(cache)))
	if conns := r.transcriptOf(t); len(conns["gotypes"]) == 0 {
		t.Error("transcript: no messages")
	}
}
