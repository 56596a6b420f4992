package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestRunSetupStatus: --setup exits 0 when it saved the settings and 1,
// with the reason on stderr, when it could not (config.Setup's own tests
// check what it writes).
func TestRunSetupStatus(t *testing.T) {
	t.Parallel()
	var out, errOut strings.Builder
	in := strings.NewReader("\nhttp://localhost:8080/v1\nqwen2.5-coder\n\n")
	if code := runSetup(in, &out, &errOut, envMap(map[string]string{"HERMES_HOME": t.TempDir()})); code != 0 {
		t.Fatalf("runSetup = %d, stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Saved. hermes-acp will use qwen2.5-coder at http://localhost:8080/v1.") {
		t.Errorf("stdout = %q, want the saved settings", out.String())
	}
	errOut.Reset()
	if code := runSetup(strings.NewReader(""), &out, &errOut, envMap(map[string]string{"HERMES_HOME": t.TempDir()})); code != 1 ||
		errOut.String() != "\nhermes-acp: setup aborted: EOF\n" {
		t.Errorf("runSetup with closed stdin = %d, stderr %q; want 1 and the reason", code, errOut.String())
	}
}
