package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browserEnv binds the tools to a session with a real headless Chromium,
// the URL rule deny, a fake vision model and an approver that answers
// approve and records what it was asked.
type browserEnv struct {
	call    func(name string, args map[string]any) registry.Result
	closers []func()
	asked   []string
}

func newBrowserEnv(t *testing.T, deny func(string) bool, approve bool) *browserEnv {
	t.Helper()
	if _, err := browser.Find(""); err != nil {
		t.Fatalf("these tests need Chromium: %v", err)
	}
	env := newFakeEnv(t, fakeEnvOptions{})
	set := browser.NewSet(browser.Options{})
	t.Cleanup(func() { set.Close() })
	be := &browserEnv{}
	d := env.Deps
	d.Browsers = set
	d.OnClose = func(f func()) { be.closers = append(be.closers, f) }
	d.BrowserURL = func(_ context.Context, u string) error {
		if deny != nil && deny(u) {
			return errors.New("refused by the test's rule")
		}
		return nil
	}
	d.BrowserVision = func(_ context.Context, image []byte, mime, question string) (string, error) {
		if !bytes.HasPrefix(image, []byte("\x89PNG")) || mime != "image/png" {
			return "", fmt.Errorf("not a PNG (%s)", mime)
		}
		return "I see the page; you asked: " + question, nil
	}
	d.ApproveCDP = func(_ context.Context, _, method string) bool {
		be.asked = append(be.asked, method)
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
	be := newBrowserEnv(t, func(u string) bool { return strings.Contains(u, "forbidden") }, false)
	others := len(be.closers) // the session's other tools' (the terminal's processes)

	r := be.call("browser_snapshot", map[string]any{})
	if m := resultMap(t, r); !r.IsError || m["success"] != false || !strings.Contains(m["error"].(string), "Call browser_navigate first") {
		t.Errorf("snapshot before any navigation = %s, want the no-page error", r.Encode())
	}
	r = be.call("browser_navigate", map[string]any{"url": srv.URL + "/forbidden"})
	if m := resultMap(t, r); !r.IsError || !strings.HasPrefix(m["error"].(string), "Blocked: ") {
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
	r = be.call("browser_cdp", map[string]any{"method": "Page.navigate", "params": map[string]any{"url": srv.URL + "/forbidden"}})
	if m := resultMap(t, r); !r.IsError || !strings.HasPrefix(m["error"].(string), "Blocked: ") {
		t.Errorf("cdp Page.navigate to a refused URL = %s", r.Encode())
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
