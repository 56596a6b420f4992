package config

import (
	"strings"
	"testing"
)

func TestDelegationConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		want       Delegation
		problem    string
	}{
		{"absent: hermes's defaults apply in the agent", "", Delegation{}, ""},
		{"our names", "delegation:\n  max_concurrent: 5\n  max_depth: 2\n  max_iterations: 20\n  model: small\n",
			Delegation{MaxConcurrent: 5, MaxDepth: 2, MaxIterations: 20, Model: "small"}, ""},
		{"hermes-agent's names", "delegation:\n  max_concurrent_children: 4\n  max_spawn_depth: 3\n",
			Delegation{MaxConcurrent: 4, MaxDepth: 3}, ""},
		{"below 1 is reported", "delegation:\n  max_concurrent: -2\n  max_iterations: 9\n",
			Delegation{MaxIterations: 9}, "delegation.max_concurrent: -2 is not a whole number of at least 1; using 3"},
		{"wrong kind is reported", "delegation:\n  max_depth: deep\n", Delegation{}, "delegation.max_depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := writeHome(t, map[string]string{"config.yaml": tc.yaml})
			c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
			if c.Delegation != tc.want {
				t.Errorf("Delegation = %+v, want %+v", c.Delegation, tc.want)
			}
			got := strings.Join(c.Problems, "\n")
			if tc.problem == "" && got != "" || !strings.Contains(got, tc.problem) {
				t.Errorf("problems = %q, want %q", got, tc.problem)
			}
			for _, k := range c.Ignored {
				if strings.HasPrefix(k, "delegation") {
					t.Errorf("delegation key listed as ignored: %v", c.Ignored)
				}
			}
		})
	}
}
