package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/terminal/backend"
)

// TestUnsupportedBackendRefuses: a configured backend hermes-acp does not
// have (hermes-agent's modal, singularity, daytona …; from the file or
// TERMINAL_ENV) is offered as the session's choice and refuses commands
// and scripts with an error naming it and what to set, instead of running
// them on this machine.
func TestUnsupportedBackendRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file string
		env        map[string]string
		backend    string
		want       []string
	}{
		{"modal in the file", "terminal:\n  backend: modal\n", nil, "modal", []string{`"modal"`, "Modal", "terminal.backend to local, docker or ssh"}},
		{"singularity in TERMINAL_ENV", "", map[string]string{"TERMINAL_ENV": "singularity"}, "singularity", []string{`"singularity"`, "Singularity", "terminal.backend to local, docker or ssh"}},
		{"daytona", "terminal:\n  backend: daytona\n", nil, "daytona", []string{`"daytona"`, "Daytona"}},
		{"a typo", "terminal:\n  backend: dokcer\n", nil, "dokcer", []string{`"dokcer"`, "not a terminal backend hermes-acp knows"}},
		{"the file wins over TERMINAL_ENV", "terminal:\n  backend: local\n", map[string]string{"TERMINAL_ENV": "modal"}, "local", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HERMES_HOME": writeHome(t, map[string]string{"config.yaml": c.file})}
			for k, v := range c.env {
				env[k] = v
			}
			cfg := config.Load(envMap(env), "", "")
			if cfg.TerminalBackend != c.backend {
				t.Fatalf("backend = %q, want %q (problems %q)", cfg.TerminalBackend, c.backend, cfg.Problems)
			}
			b := backend.New(cfg.Backends())
			defer b.Close()
			if c.want == nil {
				if len(cfg.Problems) != 0 || b.Default() != "local" {
					t.Errorf("problems %q, default %q; want none, local", cfg.Problems, b.Default())
				}
				return
			}
			if b.Default() != c.backend || !slices.Equal(b.Names(), []string{"local", c.backend}) {
				t.Errorf("offered %v, default %q; want local and %s, %s current", b.Names(), b.Default(), c.backend, c.backend)
			}
			errs := map[string]string{"configuration notice": strings.Join(cfg.Problems, "\n")}
			if err := b.Check(context.Background(), c.backend); err != nil {
				errs["check"] = err.Error()
			}
			errs["status"] = b.Status(context.Background())
			for where, msg := range errs {
				for _, w := range append([]string{"refused"}, c.want...) {
					if !strings.Contains(msg, w) {
						t.Errorf("%s = %q, want %q in it", where, msg, w)
					}
				}
			}
		})
	}
}
