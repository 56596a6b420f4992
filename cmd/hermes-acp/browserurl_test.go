package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/workspace"
)

func TestBrowserURLPolicy(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "index.html"), []byte("<p>hi</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(root, nil, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	outside := filepath.Join(filepath.Dir(root), "elsewhere.html")
	strict, open := browserURLPolicy(ws, false), browserURLPolicy(ws, true)
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
		{"http://169.254.169.254/latest/meta-data/", false, false},
		{"file://" + filepath.Join(root, "index.html"), true, true},
		{"file://" + outside, false, false},
		{"file:///etc/passwd", false, false},
		{"javascript:alert(1)", false, false},
		{"chrome://settings", false, false},
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
