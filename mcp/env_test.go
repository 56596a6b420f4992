package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStdioEnv(t *testing.T) {
	t.Parallel()
	base := []string{
		"PATH=/usr/bin", "HOME=/home/u", "OPENAI_API_KEY=sk-x", "XDG_DATA_HOME=/d",
		"GITHUB_TOKEN=ghp_x", "LANG=C.UTF-8", "Path=/odd-case", "LD_PRELOAD=/evil.so", "NOEQUALS",
	}
	tests := []struct {
		name string
		add  []Var
		want []string
	}{
		{"only the safe variables", nil, []string{"PATH=/usr/bin", "HOME=/home/u", "XDG_DATA_HOME=/d", "LANG=C.UTF-8"}},
		{"the server's own env passes whatever its names", []Var{{"GITHUB_TOKEN", "ghp_server"}, {"", "ignored"}, {"PATH", "/opt/bin"}},
			[]string{"PATH=/usr/bin", "HOME=/home/u", "XDG_DATA_HOME=/d", "LANG=C.UTF-8", "GITHUB_TOKEN=ghp_server", "PATH=/opt/bin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, stdioEnv(base, tt.add)); diff != "" {
				t.Errorf("stdioEnv (-want +got):\n%s", diff)
			}
		})
	}
}
