package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/web"
)

// TestBrowserPolicy: what the browser may load, from the configuration:
// public and loopback addresses, private ones with
// browser.allow_private_urls, never metadata, never web.deny, never a
// local URL (inside the workspace or not).
func TestBrowserPolicy(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	deny := web.MustParseDeny("127.0.0.2/32", "*.intranet.example")
	check := func(allowPrivate bool) func(context.Context, string) error {
		b := browser.NewSet(browser.Options{Policy: config.Config{BrowserAllowPrivate: allowPrivate, Web: config.Web{Deny: deny}}.BrowserPolicy()}).New()
		t.Cleanup(b.Close)
		return b.CheckURL
	}
	strict, open := check(false), check(true)
	for _, c := range []struct {
		url           string
		strict, wider bool // allowed without and with browser.allow_private_urls
	}{
		{"http://127.0.0.1:8080/", true, true},
		{"http://localhost:3000/app", true, true},
		{"http://[::1]/", true, true},
		{"https://93.184.215.14/", true, true},
		{"about:blank", true, true},
		{"http://10.0.0.5/", false, true},
		{"http://192.168.1.1/admin", false, true},
		{"http://[fe80::1]/", false, true},
		{"http://100.64.0.1/", false, true},
		{"http://[64:ff9b::10.0.0.5]/", false, true},
		{"http://169.254.169.254/latest/meta-data/", false, false},
		{"http://[64:ff9b::169.254.169.254]/", false, false},
		{"http://127.0.0.2:8080/", false, false},
		{"http://[::ffff:127.0.0.2]:8080/", false, false},
		{"http://wiki.intranet.example/", false, false},
		{"file://" + filepath.Join(root, "index.html"), false, false},
		{"file:///etc/passwd", false, false},
		{"javascript:alert(1)", false, false},
		{"chrome://settings", false, false},
		{"view-source:http://127.0.0.1/", false, false},
		{"ftp://127.0.0.1/", false, false},
	} {
		if got := strict(t.Context(), c.url) == nil; got != c.strict {
			t.Errorf("policy(%q) allowed = %v, want %v", c.url, got, c.strict)
		}
		if got := open(t.Context(), c.url) == nil; got != c.wider {
			t.Errorf("policy with allow_private_urls(%q) allowed = %v, want %v", c.url, got, c.wider)
		}
	}
}

// TestToolsCommandSaysWhenNoBrowser checks that `hermes-acp tools` lists the
// browser tools as unavailable, with the reason, when the configured
// browser is not found, and as offered when it is.
func TestToolsCommandSaysWhenNoBrowser(t *testing.T) {
	for _, c := range []struct {
		name, exe, path, want string
	}{
		{"configured but missing", "/nonexistent/chromium", os.Getenv("PATH"), `unavailable: browser.executable "/nonexistent/chromium"`},
		{"configured", "chromium", os.Getenv("PATH"), "available"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			cfg := "toolsets: [hermes-acp]\n"
			if c.exe != "" {
				cfg += "browser:\n  executable: " + c.exe + "\n"
			}
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HERMES_HOME", home)
			t.Setenv("PATH", c.path)
			var out, errOut strings.Builder
			if code := runToolsCmd(nil, &out, &errOut); code != 0 {
				t.Fatalf("tools exited %d: %s", code, errOut.String())
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(line, "browser_navigate ") {
					offered := !strings.Contains(line, " no ")
					if !strings.Contains(line, c.want) || offered != (c.want == "available") {
						t.Errorf("browser_navigate line = %q, want %q", line, c.want)
					}
					return
				}
			}
			t.Errorf("no browser_navigate line in:\n%s", out.String())
		})
	}
}
