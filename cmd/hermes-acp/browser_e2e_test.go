package main_test

// The official ACP TypeScript SDK plays an editor while a scripted model
// drives a real headless Chromium through the browser tools
// (conformance/browser.mjs): it opens a local page, snapshots it, clicks a
// button by its ref and reads the changed text, then takes a screenshot
// the editor is shown (no vision model is configured). Refs are numbered in
// document order, so the script knows the button is @e1.

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// policyPage reaches for the refused server (%[1]s, on 127.0.0.2) with
// fetch, an image, a popup and a worker, and for the canary (%[2]s) with
// a frame and a popup; it records what its fetch got in window.results.
const policyPage = `<!doctype html><html><head><title>Hostile</title></head><body>
<img src="http://%[1]s/img.png"><input type="file" id="f">
<script>
window.results = {};
fetch("http://%[1]s/fetch").then(r => r.text()).then(t => results.fetch = t, e => results.fetch = "error: " + e);
window.open("http://%[1]s/popup");
new Worker("/worker.js");
window.open("file://%[2]s");
const fr = document.createElement("iframe"); fr.src = "file://%[2]s"; document.body.append(fr);
</script></body></html>`

// TestTypeScriptSDKBrowserPolicy is issue 26's acceptance end to end: with
// web.deny: [127.0.0.2/32], a real headless Chromium loads a page on
// 127.0.0.1 whose script calls fetch, loads an image, opens a popup and
// a worker towards a server on 127.0.0.2, and opens a file outside the
// workspace; the hostile script model then asks for the file itself.
// The server on 127.0.0.2 gets no request, the canary's text is in nothing
// the model or the editor sees, the tools report the refusals, and
// DOM.setFileInputFiles asks and, rejected, hands nothing to the page
// (conformance/browser_policy.mjs).
func TestTypeScriptSDKBrowserPolicy(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	refusedSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the refused server got %s %s", r.Method, r.URL)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "SECRET-OF-127.0.0.2")
	}))
	refusedSrv.Listener.Close()
	refusedSrv.Listener = ln
	refusedSrv.Start()
	defer refusedSrv.Close()
	other := ln.Addr().String()

	canary := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(canary, []byte("CANARY-TEXT-OUTSIDE-THE-WORKSPACE"), 0o600); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, policyPage, other, canary) })
	mux.HandleFunc("/worker.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `fetch("http://%s/from-worker").catch(() => 0);`, other)
	})
	page := httptest.NewServer(mux)
	defer page.Close()

	script := fmt.Sprintf(`replies:
  - tool_calls:
      - name: browser_navigate
        arguments: {url: %[1]q}
  - expect: {role: tool, contains: 'blocked_requests'}
    tool_calls:
      - name: browser_console
        arguments: {expression: "new Promise(r => setTimeout(() => r(JSON.stringify(results)), 1500))"}
  - expect: {role: tool, contains: 'TypeError'}
    tool_calls:
      - name: browser_console
        arguments: {}
  - expect: {role: tool, contains: 'from-worker'}
    tool_calls:
      - name: browser_navigate
        arguments: {url: "file://%[2]s"}
  - expect: {role: tool, contains: 'opens no local URLs'}
    tool_calls:
      - name: browser_cdp
        arguments: {method: Target.createTarget, params: {url: "file://%[2]s"}}
  - expect: {role: tool, contains: 'Blocked: file://'}
    tool_calls:
      - name: browser_cdp
        arguments: {method: DOM.setFileInputFiles, params: {files: [%[2]q], objectId: "1"}}
  - expect: {role: tool, contains: 'was not approved'}
    tool_calls:
      - name: browser_console
        arguments: {expression: "document.getElementById('f').files.length"}
  - expect: {role: tool, contains: '"result":0'}
    text: "Nothing reached the refused server."
`, page.URL+"/", canary)
	r := sdkRun{
		script:     filepath.Join("conformance", "browser_policy.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	scriptPath := filepath.Join(r.workdir, "script.yaml")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("web:\n  deny: [127.0.0.2/32]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.exec(t, 120*time.Second, "CONFORMANCE_BROWSER_SCRIPT="+scriptPath, "CONFORMANCE_CANARY="+canary, "HERMES_HOME="+home)

	if n := hits.Load(); n != 0 {
		t.Errorf("the server on 127.0.0.2 got %d requests, want none", n)
	}
	conns := r.transcriptOf(t)
	if len(conns["browser-policy"]) == 0 {
		t.Fatal("transcript: no messages")
	}
	for _, l := range conns["browser-policy"] {
		if strings.Contains(l.Line, "CANARY-TEXT") || strings.Contains(l.Line, "SECRET-OF-127") {
			t.Errorf("the %s sent a message with the canary's or the refused server's text: %.300s", l.From, l.Line)
		}
	}
}
