package main_test

// The official ACP TypeScript SDK plays an editor while a scripted model
// drives a real headless Chromium through the browser tools
// (conformance/browser.mjs): it opens a local page, snapshots it, clicks a
// button by its ref and reads the changed text, then takes a screenshot
// the editor is shown (no vision model is configured). Refs are numbered in
// document order, so the script knows the button is @e1.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const browserPage = `<!doctype html><html><head><title>Greeting</title></head><body>
<h1>Greeting</h1>
<button onclick="document.getElementById('msg').textContent = 'Changed!'">Change</button>
<p id="msg">Original</p>
</body></html>`

func TestTypeScriptSDKBrowser(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, browserPage)
	}))
	defer srv.Close()
	url := srv.URL + "/"
	script := fmt.Sprintf(`replies:
  - tool_calls:
      - name: browser_navigate
        arguments: {url: %q}
  - expect: {role: tool, contains: 'button \"Change\" [ref=e1]'}
    tool_calls:
      - name: browser_snapshot
        arguments: {}
  - expect: {role: tool, contains: 'Original'}
    tool_calls:
      - name: browser_click
        arguments: {ref: "@e1"}
  - expect: {role: tool, contains: '"clicked":"@e1"'}
    tool_calls:
      - name: browser_snapshot
        arguments: {}
  - expect: {role: tool, contains: 'Changed!'}
    tool_calls:
      - name: browser_vision
        arguments: {question: "Is the text red?"}
  - expect: {role: tool, contains: 'No vision model is configured'}
    text: "The page now says: Changed!"
`, url)
	r := sdkRun{
		script:     filepath.Join("conformance", "browser.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	scriptPath := filepath.Join(r.workdir, "script.yaml")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// No model that can see: browser_vision shows the screenshot and
	// fails saying so (the session's vision model is what it asks).
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model:\n  vision: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.exec(t, 120*time.Second, "CONFORMANCE_BROWSER_SCRIPT="+scriptPath, "CONFORMANCE_BROWSER_URL="+url, "HERMES_HOME="+home)

	// Every agent message validates against the ACP schema, and the
	// snapshot the model read names the button by its ref.
	conns := r.transcriptOf(t)
	if len(conns["browser"]) == 0 {
		t.Fatal("transcript: no messages")
	}
	var sawRef bool
	for _, l := range conns["browser"] {
		if l.From == "agent" && strings.Contains(l.Line, `button \"Change\" [ref=e1]`) {
			sawRef = true
		}
	}
	if !sawRef {
		t.Error("no tool call update showed the snapshot with the button's ref")
	}
}
