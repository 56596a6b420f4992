package main_test

// The official ACP TypeScript SDK plays an editor while the script model
// edits a Go package (conformance/gotypes.mjs): a patch calling an
// undefined function shows "introduces 1 type error" in the permission
// request and a go-types diagnostic after the write; the fix clears it.
// First, with the go command's dependency load held, the same patch is
// approved and written without waiting for the check, whose diagnostic
// follows once the load can finish.

import (
	"fmt"
	"os"
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
	// A go command that holds go list -export while the hold file exists.
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	hold := filepath.Join(t.TempDir(), "hold")
	wrapper := fmt.Sprintf("#!/bin/sh\nif [ \"$1 $2 $3\" = \"list -e -export\" ]; then while [ -e %q ]; do sleep 0.05; done; fi\nexec %q \"$@\"\n", hold, real)
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.exec(t, 3*time.Minute, "GOCACHE="+strings.TrimSpace(string(cache)), "CONFORMANCE_GO_HOLD="+hold,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	conns := r.transcriptOf(t)
	for _, c := range []string{"held", "gotypes"} {
		if len(conns[c]) == 0 {
			t.Errorf("transcript: no messages on connection %s", c)
		}
	}
}
