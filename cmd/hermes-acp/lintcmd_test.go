package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLintFlags: the lint subcommand's flags reach report.Files (the
// engine's own tests are in lint/report), and usage errors exit 2.
func TestRunLintFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "config.json")
	if err := os.WriteFile(broken, []byte("{\"a\": 1,}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string // substring of stdout
		wantErr    string // substring of stderr
	}{
		{"text", []string{broken}, 1, broken + ":1:9: invalid character '}'", ""},
		{"json", []string{"--json", "--types=false", broken}, 1, `"code":"json-syntax"`, ""},
		{"no files", nil, 2, "", "no files given"},
		{"unknown flag", []string{"--bogus", broken}, 2, "", "flag provided but not defined"},
		{"help", []string{"-h"}, 0, "", "usage: hermes-acp lint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if status := runLint(tc.args, &stdout, &stderr); status != tc.wantStatus {
				t.Errorf("runLint(%q) = %d, want %d (stderr %q)", tc.args, status, tc.wantStatus, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.wantOut) {
				t.Errorf("runLint(%q) stdout = %q, want it to contain %q", tc.args, stdout.String(), tc.wantOut)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("runLint(%q) stderr = %q, want it to contain %q", tc.args, stderr.String(), tc.wantErr)
			}
		})
	}
}
