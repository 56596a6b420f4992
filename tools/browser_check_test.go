package tools

import (
	"testing"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// TestBrowserToolsShareOneCheck: the browser tools, declared or bound to a
// session, share one availability check, so a pass over the registry
// (Definitions, Status) looks for the browser once instead of once per
// browser tool — the registry runs each *registry.Check once per pass
// (registry's TestDefinitions). Before, each tool got its own method
// value and the lookup ran for every one of them.
func TestBrowserToolsShareOneCheck(t *testing.T) {
	t.Parallel()
	count := func(entries []registry.Entry) (tools int, checks map[*registry.Check]bool) {
		checks = map[*registry.Check]bool{}
		for _, e := range entries {
			if e.Toolset == browserToolset {
				tools++
				checks[e.Check] = true
			}
		}
		return tools, checks
	}
	env := newFakeEnv(t, fakeEnvOptions{})
	for name, entries := range map[string][]registry.Entry{
		"declared":        Entries(),
		"declared, set":   WithBrowserCheck(Entries(), BrowserCheck("/nonexistent/chromium")),
		"session":         bound(env.Deps, browser.NewSet(browser.Options{Executable: "/nonexistent/chromium"})),
		"session, no set": bound(env.Deps, nil),
	} {
		n, checks := count(entries)
		if n < 10 || len(checks) != 1 || checks[nil] {
			t.Errorf("%s: %d browser tools with %d distinct checks, want at least 10 sharing one", name, n, len(checks))
		}
	}
	// The shared check answers for every tool: no browser at that path.
	for _, e := range bound(env.Deps, browser.NewSet(browser.Options{Executable: "/nonexistent/chromium"})) {
		if e.Toolset == browserToolset && e.Check.Err() == nil {
			t.Errorf("%s is available without a browser", e.Name)
		}
	}
}

// bound binds the tools with the browser set browsers.
func bound(d Deps, browsers *browser.Set) []registry.Entry {
	d.Browsers = browsers
	entries, _ := Bind(d)
	return entries
}
