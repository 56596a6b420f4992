package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/config"
)

// TestCompressionConfig reads hermes's compression keys; a threshold that is
// not a share of the context is reported and the default kept.
func TestCompressionConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		yaml    string
		at      float64
		off     bool
		problem string
	}{
		{"", 0, false, ""},
		{"compression:\n  threshold: 0.5\n", 0.5, false, ""},
		{"compression:\n  enabled: false\n", 0, true, ""},
		{"compression:\n  enabled: true\n  threshold: 1\n", 1, false, ""},
		{"compression:\n  threshold: 80\n", 0, false, "compression.threshold: 80 is not a share of the context between 0 and 1"},
		{"compression:\n  threshold: -0.2\n", 0, false, "compression.threshold: -0.2 is not a share"},
	} {
		home := writeHome(t, map[string]string{"config.yaml": "model:\n  default: m\n" + c.yaml})
		cfg := config.Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
		if cfg.CompressAt != c.at || cfg.CompressOff != c.off {
			t.Errorf("%q: threshold %v, off %v; want %v, %v", c.yaml, cfg.CompressAt, cfg.CompressOff, c.at, c.off)
		}
		got := strings.Join(cfg.Problems, "\n")
		if c.problem == "" && got != "" || !strings.Contains(got, c.problem) {
			t.Errorf("%q: problems %q, want %q", c.yaml, got, c.problem)
		}
		if setup := modelSetup(cfg, "", slog.New(slog.NewTextHandler(io.Discard, nil))); setup.CompressionThreshold != c.at || setup.CompressionOff != c.off {
			t.Errorf("%q: the agent gets threshold %v, off %v", c.yaml, setup.CompressionThreshold, setup.CompressionOff)
		}
	}
}
