package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/internal/schematest"
)

// testdata/agent.schema.json is the ACP registry's agent.schema.json
// (agentclientprotocol/registry at 9baa13d, the schema's last change),
// which its build_registry.py validates every agent.json against.

// TestAgentJSONMeetsTheRegistrySchema: the committed editors/zed/agent.json
// is valid against the registry's schema, says MIT with the licence's URL
// and a website, and names the six platforms the registry requires.
func TestAgentJSONMeetsTheRegistrySchema(t *testing.T) {
	schema, err := os.ReadFile("testdata/agent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../agent.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := schematest.ValidateDocument(schema, doc); err != nil {
		t.Errorf("editors/zed/agent.json against the registry's schema: %v", err)
	}
	var a registryAgent
	if err := json.Unmarshal(doc, &a); err != nil {
		t.Fatal(err)
	}
	if a.License != "MIT" || !strings.HasSuffix(a.LicenseURL, "/LICENSE") || !strings.HasPrefix(a.Website, "https://") {
		t.Errorf("license %q, license_url %q, website %q; want MIT, the LICENSE's URL and a website", a.License, a.LicenseURL, a.Website)
	}
	if len(a.Distribution.Binary) != len(targets) {
		t.Errorf("agent.json names %d platforms, want %d", len(a.Distribution.Binary), len(targets))
	}
	// The manifest is what mkdist writes for its version.
	want, err := release{Version: a.Version, BaseURL: defaultBaseURL}.agentJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Errorf("editors/zed/agent.json is not what mkdist writes (run make dist):\n%s\nwant:\n%s", doc, want)
	}
}

// TestSchemaRefusesBadManifests: the vendored schema check can fail — a
// manifest the registry refuses is refused here.
func TestSchemaRefusesBadManifests(t *testing.T) {
	schema, err := os.ReadFile("testdata/agent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{
		"no distribution":   `{"id":"hermes-acp","name":"Hermes","version":"0.1.0","description":"d"}`,
		"unknown platform":  `{"id":"hermes-acp","name":"Hermes","version":"0.1.0","description":"d","distribution":{"binary":{"plan9-x86_64":{"archive":"https://x.invalid/a.tar.gz","cmd":"./a"}}}}`,
		"upper-case id":     `{"id":"Hermes","name":"Hermes","version":"0.1.0","description":"d","distribution":{"npx":{"package":"x"}}}`,
		"archive not a URI": `{"id":"hermes-acp","name":"Hermes","version":"0.1.0","description":"d","distribution":{"binary":{"linux-x86_64":{"archive":"not a uri","cmd":"./a"}}}}`,
	} {
		if err := schematest.ValidateDocument(schema, []byte(doc)); err == nil {
			t.Errorf("%s: the schema accepted %s", name, doc)
		}
	}
}

// TestRegistryIcon: editors/zed/icon.svg passes the registry's icon rules
// and ours, and each rule refuses what it is for.
func TestRegistryIcon(t *testing.T) {
	svg, err := os.ReadFile("../icon.svg")
	if err != nil {
		t.Fatal(err)
	}
	if p := checkIcon(string(svg)); len(p) > 0 {
		t.Errorf("editors/zed/icon.svg: %v", p)
	}
	const ok = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor"><path d="M1 1h14"/></svg>`
	if p := checkIcon(ok); len(p) > 0 {
		t.Errorf("a good icon: %v", p)
	}
	for _, tc := range []struct{ svg, want string }{
		{strings.Replace(ok, `width="16" height="16" viewBox="0 0 16 16"`, `width="24" height="24" viewBox="0 0 24 24"`, 1), "the icon is 24x24, want 16x16"},
		{strings.Replace(ok, `width="16" height="16" viewBox="0 0 16 16"`, `viewBox="0 0 16 12"`, 1), "the icon is 16x12"},
		{strings.Replace(ok, `width="16" height="16" viewBox="0 0 16 16"`, ``, 1), "no width/height attributes and no viewBox"},
		{strings.Replace(ok, `stroke="currentColor"`, `stroke="#1a1a1a"`, 1), `fixed stroke="#1a1a1a"`},
		{strings.Replace(ok, `<path d=`, `<path style="fill: red" d=`, 1), "fixed style fill: red"},
		{strings.Replace(ok, `<path d=`, `<stop stop-color="#fff"/><path d=`, 1), `fixed stop-color "#fff"`},
		{strings.Replace(ok, `<path`, `<!-- drawn by hand --><path`, 1), "the icon has a comment"},
		{strings.Replace(ok, `<path`, `<style>path{fill:#000}</style><path`, 1), "the icon has a <style> sheet"},
		{strings.Replace(ok, `stroke="currentColor"`, `stroke="none"`, 1), "the icon does not use currentColor"},
	} {
		p := checkIcon(tc.svg)
		if !strings.Contains(strings.Join(p, "\n"), tc.want) {
			t.Errorf("checkIcon(%s) = %q, want %q", tc.svg, p, tc.want)
		}
	}
	// The Zed extension shows the same icon.
	toml, err := os.ReadFile("../extension.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(toml), "\nicon = \"icon.svg\"\n") {
		t.Error(`extension.toml's agent server has no icon = "icon.svg"`)
	}
}
