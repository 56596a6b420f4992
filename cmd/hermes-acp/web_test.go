package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestToolsCmdSaysWhyWebSearchIsUnavailable: `hermes-acp tools` names what
// to set when no search backend is configured, and offers web_search once
// one is.
func TestToolsCmdSaysWhyWebSearchIsUnavailable(t *testing.T) {
	t.Setenv("HERMES_HOME", t.TempDir())
	for _, k := range []string{"SEARXNG_URL", "BRAVE_SEARCH_API_KEY", "TAVILY_API_KEY", "EXA_API_KEY", "FIRECRAWL_API_KEY", "FIRECRAWL_API_URL"} {
		t.Setenv(k, "")
	}
	row := func() string {
		var out, errOut bytes.Buffer
		if code := runToolsCmd(nil, &out, &errOut); code != 0 {
			t.Fatalf("hermes-acp tools = %d: %s", code, errOut.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "web_search ") {
				return strings.Join(strings.Fields(line), " ")
			}
		}
		t.Fatalf("no web_search row:\n%s", out.String())
		return ""
	}
	if got := row(); !strings.Contains(got, "web_search web no unavailable: no search backend: set SEARXNG_URL") {
		t.Errorf("without a backend: %q", got)
	}
	t.Setenv("BRAVE_SEARCH_API_KEY", "key")
	if got := row(); got != "web_search web yes available" {
		t.Errorf("with BRAVE_SEARCH_API_KEY: %q", got)
	}
}
