package config

import (
	"strings"
	"testing"
	"time"
)

func TestCodeExecutionConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		want       CodeExecution
		problem    string
	}{
		{"absent: hermes's defaults apply in the tool", "", CodeExecution{}, ""},
		{"hermes's keys", "code_execution:\n  mode: strict\n  timeout: 30\n  max_tool_calls: 10\n",
			CodeExecution{Mode: "strict", Timeout: 30 * time.Second, MaxToolCalls: 10}, ""},
		{"unknown mode is reported", "code_execution:\n  mode: docker\n", CodeExecution{},
			`code_execution.mode: "docker" is not project or strict; using project`},
		{"negative timeout is reported", "code_execution:\n  timeout: -1\n  max_tool_calls: -3\n", CodeExecution{},
			"code_execution.timeout: -1 is not a number of seconds above 0; using 300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := writeHome(t, map[string]string{"config.yaml": tc.yaml})
			c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
			if c.CodeExecution != tc.want {
				t.Errorf("CodeExecution = %+v, want %+v", c.CodeExecution, tc.want)
			}
			got := strings.Join(c.Problems, "\n")
			if tc.problem == "" && got != "" || !strings.Contains(got, tc.problem) {
				t.Errorf("problems = %q, want %q", got, tc.problem)
			}
			for _, k := range c.Ignored {
				if strings.HasPrefix(k, "code_execution") {
					t.Errorf("code_execution key listed as ignored: %v", c.Ignored)
				}
			}
		})
	}
}
