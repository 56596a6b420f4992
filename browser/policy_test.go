package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/web"
)

// hostilePage makes every kind of request a page can to other (the
// refused server): fetch, an image, a script, a style sheet, an iframe, a
// popup, a dedicated worker (its script on the page's own server), a
// shared worker, a WebSocket, a beacon, a preconnect, and a local file.
const hostilePage = `<!doctype html><html><head><title>Hostile</title>
<link rel="preconnect" href="http://%[1]s"><link rel="stylesheet" href="http://%[1]s/style.css">
<script src="http://%[1]s/script.js"></script></head><body>
<img src="http://%[1]s/img.png"><iframe src="http://%[1]s/frame"></iframe><iframe src="file://%[2]s"></iframe>
<p id="out">waiting</p>
<script>
window.results = {};
fetch("http://%[1]s/fetch").then(r => r.text()).then(t => results.fetch = t, e => results.fetch = "error: " + e);
fetch("https://%[1]s/tls").then(r => r.text()).then(t => results.tls = t, e => results.tls = "error: " + e);
window.open("http://%[1]s/popup");
window.open("file://%[2]s");
new Worker("/worker.js");
try { new SharedWorker("/shared.js"); } catch (e) {}
try { const ws = new WebSocket("ws://%[1]s/ws"); ws.onerror = () => results.ws = "error"; } catch (e) { results.ws = "throw"; }
navigator.sendBeacon("http://%[1]s/beacon", "x");
</script></body></html>`

// TestEveryRequestPassesThePolicy: whatever makes a request — the page, its
// frames, popups, workers, redirects, WebSockets — it goes through the
// policy: the refused server gets nothing, the page's own server is
// reached, and the refusals are reported.
func TestEveryRequestPassesThePolicy(t *testing.T) {
	secret, secretHits := serverOn(t, "127.0.0.2:0")
	canary := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(canary, []byte("CANARY-TEXT-OUTSIDE"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := secret.Listener.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, hostilePage, other, canary)
	})
	js := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/worker.js", js(fmt.Sprintf(`fetch("http://%s/from-worker").catch(() => 0); importScripts("http://%[1]s/imported.js");`, other)))
	mux.HandleFunc("/shared.js", js(fmt.Sprintf(`fetch("http://%s/from-shared").catch(() => 0);`, other)))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+other+"/redirected", http.StatusFound)
	})
	mux.HandleFunc("/sw-page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>SW</title><script>navigator.serviceWorker.register("/sw.js").then(() => document.title = "registered", e => document.title = "failed " + e)</script>`)
	})
	mux.HandleFunc("/sw.js", js(fmt.Sprintf(`self.addEventListener("install", () => fetch("http://%s/from-service-worker").catch(() => 0));`, other)))
	page := httptest.NewServer(mux)
	t.Cleanup(page.Close)

	b := newBrowser(t, browser.Options{Policy: &web.Policy{AllowLoopback: true, Deny: web.MustParseDeny("127.0.0.2/32")}})
	c := ctx(t)
	nav, err := b.Navigate(c, page.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	// Let the popups, workers and late requests run.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		v, _ := b.Evaluate(c, "JSON.stringify(results)")
		if s, _ := v.(string); strings.Contains(s, `"fetch"`) && strings.Contains(s, `"tls"`) && strings.Contains(s, `"ws"`) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := b.Navigate(c, page.URL+"/redirect"); err == nil || !strings.Contains(err.Error(), "in web.deny") {
		t.Errorf("navigate to a redirect onto the refused server = %v, want blocked", err)
	}
	if nav, err := b.Navigate(c, page.URL+"/sw-page"); err != nil {
		t.Errorf("navigate to the service worker page = %+v, %v", nav, err)
	}
	time.Sleep(time.Second)

	if n := secretHits.Load(); n != 0 {
		t.Errorf("the refused server (127.0.0.2) got %d requests, want none", n)
	}
	v, err := b.Evaluate(c, "fetch('/').then(r => r.status)")
	if err != nil || v != 200.0 {
		t.Errorf("a fetch of the page's own server = %v, %v; want 200", v, err)
	}
	_, _, refused, err := b.Console(c, false)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, r := range refused {
		all = append(all, r.URL+" "+r.Reason)
	}
	text := strings.Join(append(all, fmt.Sprint(nav.Blocked)), "\n")
	for _, want := range []string{"/fetch", "/img.png", "/script.js", "/popup", "/from-worker", other + " refused"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusals do not name %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "in web.deny (127.0.0.2/32)") {
		t.Errorf("the refusals do not say why:\n%s", text)
	}
	targets, err := browser.Targets(c, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if strings.Contains(tg, "file:") || strings.Contains(tg, canary) {
			t.Errorf("a target shows the local file: %s", tg)
		}
	}
}

// TestLocalSchemesRefused: the browser opens no local URL, from the tools
// or by any other way; a target that shows one is closed.
func TestLocalSchemesRefused(t *testing.T) {
	canary := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(canary, []byte("CANARY-TEXT-OUTSIDE"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := server(t)
	b := newBrowser(t, browser.Options{})
	c := ctx(t)
	var be *browser.BlockedError
	for _, u := range []string{"file://" + canary, "FILE://" + canary, "view-source:" + srv.URL, "chrome://version", "devtools://devtools/bundled/inspector.html",
		"filesystem:" + srv.URL + "/temporary/x", "data:text/html,hi", "javascript:alert(1)"} {
		if _, err := b.Navigate(c, u); !errors.As(err, &be) {
			t.Errorf("navigate to %s = %v, want blocked", u, err)
		}
		if _, err := b.CDP(c, browser.CDPCall{Method: "Target.createTarget", Params: []byte(fmt.Sprintf(`{"url":%q}`, u))}); !errors.As(err, &be) {
			t.Errorf("CDP Target.createTarget %s = %v, want blocked", u, err)
		}
		if _, err := b.CDP(c, browser.CDPCall{Method: "Page.navigate", Params: []byte(fmt.Sprintf(`{"url":%q}`, u))}); !errors.As(err, &be) {
			t.Errorf("CDP Page.navigate %s = %v, want blocked", u, err)
		}
	}
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	// Behind the tools' check: a tab opened at a local URL some other way
	// is closed, and the refusal recorded.
	for _, u := range []string{"file://" + canary, "chrome://version/"} {
		id, err := browser.RawCreateTarget(c, b, u)
		if err != nil {
			t.Fatalf("raw create %s: %v", u, err)
		}
		var targets []string
		for range 50 {
			targets, _ = browser.Targets(c, b)
			if !strings.Contains(strings.Join(targets, "\n"), u) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if strings.Contains(strings.Join(targets, "\n"), u) {
			t.Errorf("the tab at %s (%s) is still open: %v", u, id, targets)
		}
		if _, err := b.CDP(c, browser.CDPCall{Method: "Runtime.evaluate", TargetID: id, Params: []byte(`{"expression":"document.body.innerText"}`)}); err == nil {
			t.Errorf("evaluate in the closed local tab %s succeeded", u)
		}
	}
	_, _, refused, _ := b.Console(c, false)
	if len(refused) < 2 || !strings.Contains(fmt.Sprint(refused), "file://"+canary) {
		t.Errorf("refusals = %v, want the local tabs", refused)
	}
	// The browser's own UI is not a target the model drives.
	if _, err := b.CDP(c, browser.CDPCall{Method: "Runtime.evaluate", TargetID: browserUITarget(t, b), Params: []byte(`{"expression":"1"}`)}); !errors.As(err, &be) {
		t.Errorf("CDP in the browser's own UI = %v, want blocked", err)
	}
}

// browserUITarget returns the id of a target that is not a page's ("" when
// the browser has none; the call is then refused as unknown).
func browserUITarget(t *testing.T, b *browser.Browser) string {
	t.Helper()
	raw, err := b.CDP(ctx(t), browser.CDPCall{Method: "Target.getTargets"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, `"type":"browser_ui"`)
	if i < 0 {
		return "no-such-target"
	}
	j := strings.LastIndex(s[:i], `"targetId":"`)
	rest := s[j+len(`"targetId":"`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// TestEvaluateAwaitsPromisesWithATimeout: a promise is awaited; one that
// never settles ends with a clear error and the browser stays usable.
func TestEvaluateAwaitsPromisesWithATimeout(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, browser.Options{EvalTimeout: 2 * time.Second})
	c := ctx(t)
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	v, err := b.Evaluate(c, "new Promise(r => setTimeout(() => r(6 * 7), 200))")
	if err != nil || v != 42.0 {
		t.Errorf("evaluate of a promise = %v, %v; want 42", v, err)
	}
	v, err = b.Evaluate(c, "fetch('/pic.png').then(r => r.headers.get('content-type'))")
	if err != nil || v != "image/png" {
		t.Errorf("evaluate of a fetch = %v, %v; want image/png", v, err)
	}
	var ee *browser.EvalError
	if _, err := b.Evaluate(c, "Promise.reject(new Error('nope'))"); !errors.As(err, &ee) || !strings.Contains(ee.Message, "nope") {
		t.Errorf("evaluate of a rejected promise = %v, want its error", err)
	}
	if _, err := b.Evaluate(c, "new Promise(() => {})"); !errors.As(err, &ee) || !strings.Contains(ee.Message, "did not finish within 2s") {
		t.Errorf("evaluate of a promise that never settles = %v, want the timeout", err)
	}
	if v, err := b.Evaluate(c, "1 + 1"); err != nil || v != 2.0 {
		t.Errorf("evaluate after the timeout = %v, %v", v, err)
	}
}

// namesSeen is a resolver that answers name with 127.0.0.1 and records
// every name it is asked.
type namesSeen struct {
	name string
	mu   sync.Mutex
	seen []string
}

func (n *namesSeen) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seen = append(n.seen, host)
	if host == n.name {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestBrowserOwnTrafficStaysLocal: Chromium's own services (the component
// updater, the sign-in state's ListAccounts, optimization hints) send no
// request through the proxy to a name of theirs: the only name the
// proxy resolves is the page's, and the services' requests are answered
// by the proxy itself.
func TestBrowserOwnTrafficStaysLocal(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>Local</title><p>hello</p>")
	}))
	t.Cleanup(page.Close)
	_, port, _ := net.SplitHostPort(page.Listener.Addr().String())
	res := &namesSeen{name: "page.test"}
	before := browser.ServicesRequests()
	b := newBrowser(t, browser.Options{Policy: &web.Policy{AllowLoopback: true, Resolver: res}})
	c := ctx(t)
	for range 3 {
		if _, err := b.Navigate(c, "http://page.test:"+port+"/"); err != nil {
			t.Fatal(err)
		}
	}
	// Chromium asks for the sign-in state shortly after it starts: wait
	// for the proxy to have answered one request of its services (or give
	// it 20 s), then look at what was resolved.
	for deadline := time.Now().Add(20 * time.Second); browser.ServicesRequests() == before && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	for _, name := range res.seen {
		if name != "page.test" {
			t.Errorf("the browser's proxy resolved %q: Chromium's own traffic left for the network", name)
		}
	}
}
