package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// deniedServer serves on 127.0.0.2 (refused by the test sessions' web.deny)
// and fails the test on any request.
func deniedServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the refused server got %s %s", r.Method, r.URL)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// browserEnv binds the tools to a session with a real headless Chromium
// whose policy refuses 127.0.0.2 (web.deny), a fake vision model and an
// approver that answers approve and records what it was asked.
type browserEnv struct {
	call    func(name string, args map[string]any) registry.Result
	closers []func()
	asked   []string // the methods asked for
	details []string // what each request showed
	env     *fakeEnv
}

func newBrowserEnv(t *testing.T, opts fakeEnvOptions, approve bool) *browserEnv {
	t.Helper()
	if _, err := browser.Find(""); err != nil {
		t.Fatalf("these tests need Chromium: %v", err)
	}
	env := newFakeEnv(t, opts)
	set := browser.NewSet(browser.Options{Policy: &web.Policy{AllowLoopback: true, Deny: web.MustParseDeny("127.0.0.2/32")}})
	t.Cleanup(func() { set.Close() })
	be := &browserEnv{env: env}
	d := env.Deps
	d.Browsers = set
	d.OnClose = func(f func()) { be.closers = append(be.closers, f) }
	d.BrowserVision = func(_ context.Context, image []byte, mime, question string) (string, error) {
		if !bytes.HasPrefix(image, []byte("\x89PNG")) || mime != "image/png" {
			return "", fmt.Errorf("not a PNG (%s)", mime)
		}
		return "I see the page; you asked: " + question, nil
	}
	d.ApproveCDP = func(_ context.Context, _, method, detail string) bool {
		be.asked = append(be.asked, method)
		be.details = append(be.details, detail)
		return approve
	}
	entries, _ := Bind(d)
	be.call = func(name string, args map[string]any) registry.Result {
		t.Helper()
		r, err := contractHandler(t, entries, name)(t.Context(), &registry.Call{ID: "c", Name: name, Args: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	return be
}

func resultMap(t *testing.T, r registry.Result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Encode()), &m); err != nil {
		t.Fatalf("result %s: %v", r.Encode(), err)
	}
	return m
}

func TestBrowserToolsResults(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>T</title><button onclick="this.textContent='done'">Go</button><img src="/x.png" alt="x">`)
	}))
	defer srv.Close()
	forbidden := deniedServer(t)
	be := newBrowserEnv(t, fakeEnvOptions{}, false)
	others := len(be.closers) // the session's other tools' (the terminal's processes)

	r := be.call("browser_snapshot", map[string]any{})
	if m := resultMap(t, r); !r.IsError || m["success"] != false || !strings.Contains(m["error"].(string), "Call browser_navigate first") {
		t.Errorf("snapshot before any navigation = %s, want the no-page error", r.Encode())
	}
	r = be.call("browser_navigate", map[string]any{"url": forbidden + "/forbidden"})
	if m := resultMap(t, r); !r.IsError || !strings.HasPrefix(m["error"].(string), "Blocked: ") || !strings.Contains(m["error"].(string), "in web.deny") {
		t.Errorf("navigate to a refused URL = %s, want Blocked", r.Encode())
	}
	r = be.call("browser_navigate", map[string]any{"url": srv.URL + "/"})
	m := resultMap(t, r)
	if r.IsError || m["success"] != true || m["title"] != "T" || m["url"] != srv.URL+"/" ||
		!strings.Contains(m["snapshot"].(string), `- button "Go" [ref=e1]`) || m["element_count"] != 1.0 {
		t.Fatalf("navigate = %s", r.Encode())
	}
	if n := len(be.closers) - others; n != 1 {
		t.Errorf("the browser registered %d close funcs with the session, want 1", n)
	}
	r = be.call("browser_click", map[string]any{"ref": "e1"})
	if r.Encode() != `{"success":true,"clicked":"@e1"}` {
		t.Errorf("click = %s", r.Encode())
	}
	r = be.call("browser_click", map[string]any{"ref": "@e7"})
	if m := resultMap(t, r); !r.IsError || m["error"] != "Element @e7 is stale or unknown: the page changed since the last snapshot. Call browser_snapshot to get fresh refs." {
		t.Errorf("click of an unknown ref = %s", r.Encode())
	}
	r = be.call("browser_console", map[string]any{"expression": "document.querySelector('button').textContent"})
	if r.Encode() != `{"success":true,"result":"done","result_type":"string"}` {
		t.Errorf("console expression = %s", r.Encode())
	}
	r = be.call("browser_scroll", map[string]any{"direction": "sideways"})
	if m := resultMap(t, r); !r.IsError || m["error"] != "Invalid direction 'sideways'. Use 'up' or 'down'." {
		t.Errorf("scroll sideways = %s", r.Encode())
	}
	r = be.call("browser_get_images", map[string]any{})
	if m := resultMap(t, r); r.IsError || m["count"] != 1.0 {
		t.Errorf("get_images = %s", r.Encode())
	}
	r = be.call("browser_vision", map[string]any{"question": "what is there?", "annotate": true})
	if m := resultMap(t, r); r.IsError || m["analysis"] != "I see the page; you asked: what is there?" {
		t.Errorf("vision = %s", r.Encode())
	}
	if img, ok := r.Data.(interface{ ToolCallImage() (string, []byte) }); !ok {
		t.Errorf("vision result data = %T, want the screenshot for the editor", r.Data)
	} else if mime, data := img.ToolCallImage(); mime != "image/png" || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("vision screenshot = %s, %d bytes", mime, len(data))
	}

	// browser_cdp: page methods run; methods reaching outside the page
	// are asked for (and refused here); URLs follow the rules.
	r = be.call("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "1+1", "returnByValue": true}})
	if m := resultMap(t, r); r.IsError || m["method"] != "Runtime.evaluate" || !strings.Contains(r.Encode(), `"value":2`) {
		t.Errorf("cdp Runtime.evaluate = %s", r.Encode())
	}
	r = be.call("browser_cdp", map[string]any{"method": "Storage.clearDataForOrigin", "params": map[string]any{"origin": "*", "storageTypes": "all"}})
	if m := resultMap(t, r); !r.IsError || !strings.Contains(m["error"].(string), "not approved") || len(be.asked) != 1 || be.asked[0] != "Storage.clearDataForOrigin" {
		t.Errorf("cdp Storage.clearDataForOrigin = %s (asked %v), want refused after asking", r.Encode(), be.asked)
	}
	r = be.call("browser_cdp", map[string]any{"method": "Page.navigate", "params": map[string]any{"url": forbidden + "/forbidden"}})
	if m := resultMap(t, r); !r.IsError || !strings.HasPrefix(m["error"].(string), "Blocked: ") {
		t.Errorf("cdp Page.navigate to a refused URL = %s", r.Encode())
	}
	r = be.call("browser_cdp", map[string]any{"method": "Target.createTarget", "params": map[string]any{"url": "file:///etc/passwd"}})
	if m := resultMap(t, r); !r.IsError || !strings.HasPrefix(m["error"].(string), "Blocked: file:///etc/passwd") || len(be.asked) != 1 {
		t.Errorf("cdp Target.createTarget of a file URL = %s (asked %v), want blocked before asking", r.Encode(), be.asked)
	}

	// Closing the session stops the browser; a later call says so.
	for _, f := range be.closers {
		f()
	}
	r = be.call("browser_snapshot", map[string]any{})
	if m := resultMap(t, r); !r.IsError || m["error"] != "The browser of this session has been closed." {
		t.Errorf("snapshot after the session closed = %s", r.Encode())
	}
}

// uploadPage has a file input whose chosen file the page reads into
// #got, as a hostile page would read what it is given.
const uploadPage = `<!doctype html><title>Upload</title><input type="file" id="f"><p id="got">nothing</p>
<script>document.getElementById('f').onchange = async e => {
	const f = e.target.files[0];
	document.getElementById('got').textContent = f ? 'got ' + await f.text() : 'none';
};</script>`

// TestBrowserCDPFiles: a file handed to the page through the DevTools
// needs the user's approval and passes the file tools' read rules; when
// the user rejects, the page gets nothing. Downloads land only in the
// workspace or the browser's download folder.
func TestBrowserCDPFiles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, uploadPage) }))
	defer srv.Close()
	outside := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(outside, []byte("CANARY-OUTSIDE"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"notes.txt": "NOTES-INSIDE", ".env": "SECRET=1"}
	upload := func(t *testing.T, be *browserEnv, path string) (registry.Result, string) {
		t.Helper()
		r := be.call("browser_navigate", map[string]any{"url": srv.URL + "/"})
		if r.IsError {
			t.Fatalf("navigate = %s", r.Encode())
		}
		r = be.call("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "document.getElementById('f')"}})
		var ev struct {
			Result struct {
				Result struct {
					ObjectID string `json:"objectId"`
				} `json:"result"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.Encode()), &ev); err != nil || ev.Result.Result.ObjectID == "" {
			t.Fatalf("the file input's object: %s", r.Encode())
		}
		up := be.call("browser_cdp", map[string]any{"method": "DOM.setFileInputFiles", "params": map[string]any{"files": []any{path}, "objectId": ev.Result.Result.ObjectID}})
		var got string
		for range 20 {
			r = be.call("browser_console", map[string]any{"expression": "document.getElementById('f').files.length + ' ' + document.getElementById('got').textContent"})
			got, _ = resultMap(t, r)["result"].(string)
			if !strings.HasSuffix(got, "nothing") {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return up, got
	}

	t.Run("rejected", func(t *testing.T) {
		be := newBrowserEnv(t, fakeEnvOptions{Files: files}, false)
		r, got := upload(t, be, outside)
		if m := resultMap(t, r); !r.IsError || !strings.Contains(m["error"].(string), "was not approved") {
			t.Errorf("upload of a file outside the workspace, rejected = %s", r.Encode())
		}
		if len(be.asked) != 1 || be.asked[0] != "DOM.setFileInputFiles" || !strings.Contains(be.details[0], outside+" (outside the workspace)") {
			t.Errorf("asked %v with %q, want DOM.setFileInputFiles naming the file as outside", be.asked, be.details)
		}
		if got != "0 nothing" || strings.Contains(got, "CANARY") {
			t.Errorf("the page has %q, want no file", got)
		}
		r, got = upload(t, be, ".env")
		if m := resultMap(t, r); !r.IsError || !strings.Contains(m["error"].(string), "secret-bearing environment file") || len(be.asked) != 1 {
			t.Errorf("upload of .env = %s (asked %v), want refused by the read rules before asking", r.Encode(), be.asked)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("the page has %q", got)
		}
		// Downloads.
		for _, tc := range []struct {
			params map[string]any
			want   string
		}{
			{map[string]any{"behavior": "allow", "downloadPath": t.TempDir()}, "outside the workspace"},
			{map[string]any{"behavior": "default"}, `behavior "default" is not allowed`},
		} {
			r := be.call("browser_cdp", map[string]any{"method": "Browser.setDownloadBehavior", "params": tc.params})
			if m := resultMap(t, r); !r.IsError || !strings.Contains(m["error"].(string), tc.want) {
				t.Errorf("Browser.setDownloadBehavior %v = %s, want %q", tc.params, r.Encode(), tc.want)
			}
		}
		if len(be.asked) != 1 {
			t.Errorf("asked %v; refused downloads should not ask", be.asked)
		}
		r = be.call("browser_cdp", map[string]any{"method": "Browser.setDownloadBehavior", "params": map[string]any{"behavior": "allow"}})
		if !r.IsError || len(be.asked) != 2 || !strings.Contains(be.details[1], "browser's download folder") {
			t.Errorf("downloads to the browser's folder = %s, asked %v %q", r.Encode(), be.asked, be.details)
		}
	})
	t.Run("approved", func(t *testing.T) {
		be := newBrowserEnv(t, fakeEnvOptions{Files: files}, true)
		r, got := upload(t, be, "notes.txt")
		if r.IsError || got != "1 got NOTES-INSIDE" {
			t.Errorf("approved upload of a workspace file = %s, page has %q", r.Encode(), got)
		}
		if len(be.details) != 1 || !strings.Contains(be.details[0], "notes.txt") || strings.Contains(be.details[0], "outside") {
			t.Errorf("approval showed %q", be.details)
		}
		r = be.call("browser_cdp", map[string]any{"method": "Browser.setDownloadBehavior", "params": map[string]any{"behavior": "allow", "downloadPath": "downloads"}})
		if r.IsError || !strings.Contains(be.details[1], "(in the workspace)") {
			t.Errorf("downloads into the workspace = %s, %q", r.Encode(), be.details)
		}
		if fi, err := os.Stat(filepath.Join(be.env.Root, "downloads")); err != nil || !fi.IsDir() {
			t.Errorf("the download folder in the workspace: %v", err)
		}
	})
}
