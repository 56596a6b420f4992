package terminal

import (
	"slices"
	"testing"
)

// TestEnviron: the agent's secrets (hermes's blocklist, matched without
// regard to case, and the configured ones) are removed; passthrough keeps a
// named one; additions are applied and never filtered.
func TestEnviron(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=sk-1", "anthropic_api_key=sk-2", "GH_TOKEN=g", "TELEGRAM_BOT_TOKEN=t",
		"MY_PROVIDER_KEY=m", "_HERMES_FORCE_X=f", "AWS_ACCESS_KEY_ID=aws", "TAVILY_API_KEY=tv", "TERM=dumb"}
	e := Environ{Base: base, Block: []string{"my_provider_key"}, Passthrough: []string{"GH_TOKEN"}}
	got := e.Build(map[string]string{"TERM": "xterm", "HERMES_RPC_TOKEN": "r"})
	want := []string{"PATH=/bin", "HOME=/h", "GH_TOKEN=g", "AWS_ACCESS_KEY_ID=aws", "HERMES_RPC_TOKEN=r", "TERM=xterm"}
	if !slices.Equal(got, want) {
		t.Errorf("Build = %q, want %q", got, want)
	}
	for _, name := range []string{"OPENAI_BASE_URL", "openrouter_api_key", "HF_TOKEN", "BRAVE_SEARCH_API_KEY", "SLACK_BOT_TOKEN"} {
		if !SecretEnv(name) {
			t.Errorf("SecretEnv(%q) = false, want true", name)
		}
	}
	if SecretEnv("PATH") || SecretEnv("GOPATH") {
		t.Error("SecretEnv holds ordinary variables")
	}
}
