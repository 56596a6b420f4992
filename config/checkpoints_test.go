package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckpointsSection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml  string
		off         bool
		total, file int64
		files       int
		problem     string
	}{
		{name: "defaults", yaml: "model:\n  default: m\n"},
		{name: "off", yaml: "checkpoints:\n  enabled: false\n", off: true},
		{name: "limits", yaml: "checkpoints:\n  max_total_size_mb: 20\n  max_file_size_mb: 2\n  max_files: 300\n", total: 20 << 20, file: 2 << 20, files: 300},
		{name: "negative", yaml: "checkpoints:\n  max_files: -1\n", problem: "checkpoints.max_files: -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
			if c.CheckpointsOff != tc.off || c.CheckpointMaxTotal != tc.total || c.CheckpointMaxFile != tc.file || c.CheckpointMaxFiles != tc.files {
				t.Errorf("checkpoints = off %v, total %d, file %d, files %d; want %v, %d, %d, %d", c.CheckpointsOff, c.CheckpointMaxTotal, c.CheckpointMaxFile, c.CheckpointMaxFiles, tc.off, tc.total, tc.file, tc.files)
			}
			got := strings.Join(c.Problems, "; ")
			if (tc.problem == "") != (got == "") || !strings.Contains(got, tc.problem) {
				t.Errorf("problems = %q, want %q", got, tc.problem)
			}
		})
	}
}
