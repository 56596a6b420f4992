package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewModel: no model configured is no provider and no problem; a
// scripted model is named "script"; a provider hermes-acp lacks, or a
// script that cannot be read, is a problem the agent tells, with the
// configuration file's own problem added.
func TestNewModel(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	if m := (Config{}).NewModel("", log); m.Provider != nil || m.Name != "" || m.Problem != "" {
		t.Errorf("no model: %+v, want nothing", m)
	}
	script := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(script, []byte("replies:\n  - text: hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if m := (Config{Model: "script:" + script}).NewModel("", log); m.Provider == nil || m.Name != "script" || m.Problem != "" {
		t.Errorf("scripted model: %+v, want a provider named script", m)
	}
	m := (Config{Model: "x", ProviderProblem: "no such integration"}).NewModel("", log)
	if m.Provider != nil || m.Name != "x" || m.Problem != "no such integration" {
		t.Errorf("provider problem: %+v", m)
	}
	m = (Config{Model: "script:" + script + ".missing", FileErr: errors.New("config.yaml: line 3")}).NewModel("", log)
	if m.Provider != nil || m.Problem == "" || !strings.Contains(m.Problem, "(configuration problem: config.yaml: line 3)") {
		t.Errorf("unreadable script with a broken file: %+v", m)
	}
}

// TestNewVisionModel: auxiliary.vision gives a provider with its model's
// name (none for a scripted one); without it there is none.
func TestNewVisionModel(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	if p, name := (Config{}).NewVisionModel(log); p != nil || name != "" {
		t.Errorf("no auxiliary.vision: %v %q", p, name)
	}
	c := Config{AuxVision: &AuxEndpoint{Wire: "openai", Model: "seer", BaseURL: "http://127.0.0.1:9/v1", APIKey: "k"}}
	if p, name := c.NewVisionModel(log); p == nil || name != "seer" {
		t.Errorf("auxiliary.vision: %v %q, want a provider for seer", p, name)
	}
}
