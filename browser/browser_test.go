package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/web"
)

const formPage = `<!doctype html><html><head><title>Form</title></head><body>
<h1>Sign up</h1>
<form action="/done" method="get">
<label>Name <input name="name" type="text"></label>
<button type="submit">Submit</button>
</form>
<button id="b" onclick="document.getElementById('out').textContent='clicked ' + (++window.n || (window.n=1))">Press me</button>
<p id="out">not yet</p>
<img src="/pic.png" alt="a red pixel">
<script>console.log('hello', 42); console.error('bad thing');</script>
</body></html>`

// pngPixel is a 1×1 PNG.
var pngPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82")

func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, formPage) })
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Done</title><p>Thanks, %s!</p>`, r.URL.Query().Get("name"))
	})
	mux.HandleFunc("/pic.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngPixel)
	})
	mux.HandleFunc("/confirm", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Confirm</title><button onclick="document.getElementById('r').textContent = confirm('Really?') ? 'yes' : 'no'">Ask</button><p id="r">none</p>`)
	})
	mux.HandleFunc("/throw", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Throw</title><script>setTimeout(() => { undefinedFunction() }, 0)</script>`)
	})
	mux.HandleFunc("/remove", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Remove</title><button onclick="this.remove()">Vanish</button>`)
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Slow</title><p>partial`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// serverOn serves on addr ("127.0.0.2:0") and counts the requests it gets:
// every handler answers, so a request that reached it shows.
func serverOn(t *testing.T, addr string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		t.Logf("the refused server got %s %s", r.Method, r.URL)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>secret</title>SECRET-FROM-127.0.0.2")
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &n
}

func newBrowser(t *testing.T, opts browser.Options) *browser.Browser {
	t.Helper()
	if _, err := browser.Find(""); err != nil {
		t.Fatalf("these tests need Chromium: %v", err)
	}
	set := browser.NewSet(opts)
	b := set.New()
	t.Cleanup(func() { set.Close() })
	return b
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// refOf returns the ref of the line of snap that contains want.
func refOf(t *testing.T, snap string, want string) string {
	t.Helper()
	for _, line := range strings.Split(snap, "\n") {
		if strings.Contains(line, want) {
			if i := strings.Index(line, "[ref="); i >= 0 {
				rest := line[i+5:]
				return "@" + rest[:strings.IndexByte(rest, ']')]
			}
		}
	}
	t.Fatalf("no ref for %q in snapshot:\n%s", want, snap)
	return ""
}

// engines runs f with each way of taking snapshots: the page walk (the
// default) and the accessibility tree (browsers without computedRole).
func engines(t *testing.T, f func(t *testing.T, opts browser.Options)) {
	t.Run("walk", func(t *testing.T) { f(t, browser.Options{}) })
	t.Run("axtree", func(t *testing.T) { f(t, browser.AXSnapshot(browser.Options{})) })
}

func TestNavigateSnapshotTypeClick(t *testing.T) { engines(t, testNavigateSnapshotTypeClick) }

func testNavigateSnapshotTypeClick(t *testing.T, opts browser.Options) {
	srv := server(t)
	b := newBrowser(t, opts)
	c := ctx(t)
	nav, snap, err := b.NavigateAndSnapshot(c, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if nav.Title != "Form" || nav.URL != srv.URL+"/" {
		t.Errorf("navigate = %+v, want title Form at %s/", nav, srv.URL)
	}
	want := []string{`- heading "Sign up" [level=1]`, `- textbox "Name" [ref=e1]`, `- button "Submit" [ref=e2]`, `- button "Press me" [ref=e3]`, `- text: not yet`}
	for _, w := range want {
		if !strings.Contains(snap.Text, w) {
			t.Errorf("snapshot lacks %q:\n%s", w, snap.Text)
		}
	}
	if snap.Elements != 3 {
		t.Errorf("elements = %d, want 3", snap.Elements)
	}
	// Clicking a button changes the page's text.
	if err := b.Click(c, refOf(t, snap.Text, "Press me")); err != nil {
		t.Fatal(err)
	}
	snap2, err := b.Snapshot(c, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap2.Text, "clicked 1") {
		t.Errorf("after click the snapshot lacks the new text:\n%s", snap2.Text)
	}
	// Typing into the form and submitting it loads the result page.
	if err := b.Type(c, "@e1", "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := b.Click(c, "e2"); err != nil {
		t.Fatal(err)
	}
	done, err := b.Snapshot(c, true)
	if err != nil {
		t.Fatal(err)
	}
	if done.URL != srv.URL+"/done?name=Ada" || !strings.Contains(done.Text, "Thanks, Ada!") {
		t.Errorf("after submit: url %s, snapshot:\n%s", done.URL, done.Text)
	}
	// The refs of the form page are stale on the result page.
	if err := b.Click(c, "@e1"); !errors.Is(err, browser.ErrStaleRef) {
		t.Errorf("click of a ref of the previous page = %v, want ErrStaleRef", err)
	}
	back, err := b.Back(c)
	if err != nil || back.URL != srv.URL+"/" {
		t.Errorf("back = %+v, %v; want %s/", back, err, srv.URL)
	}
}

func TestConsoleDialogImagesEvalCDP(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, browser.Options{})
	c := ctx(t)
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	msgs, _, _, err := b.Console(c, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0] != (browser.ConsoleMessage{Type: "log", Text: "hello 42"}) || msgs[1] != (browser.ConsoleMessage{Type: "error", Text: "bad thing"}) {
		t.Errorf("console = %+v, want the log and the error", msgs)
	}
	if msgs, _, _, _ := b.Console(c, false); len(msgs) != 0 {
		t.Errorf("console after clear = %+v, want none", msgs)
	}
	imgs, err := b.Images(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != 1 || imgs[0] != (browser.Image{Src: srv.URL + "/pic.png", Alt: "a red pixel", Width: 1, Height: 1}) {
		t.Errorf("images = %+v", imgs)
	}
	v, err := b.Evaluate(c, "document.title + ' ' + document.querySelectorAll('button').length")
	if err != nil || v != "Form 2" {
		t.Errorf("evaluate = %v, %v; want Form 2", v, err)
	}
	var ee *browser.EvalError
	if _, err := b.Evaluate(c, "nope()"); !errors.As(err, &ee) || !strings.Contains(ee.Message, "nope is not defined") {
		t.Errorf("evaluate of a throwing expression = %v, want the ReferenceError", err)
	}
	raw, err := b.CDP(c, browser.CDPCall{Method: "Runtime.evaluate", Params: []byte(`{"expression":"6*7","returnByValue":true}`)})
	if err != nil || !strings.Contains(string(raw), `"value":42`) {
		t.Errorf("raw Runtime.evaluate = %s, %v; want the value 42", raw, err)
	}
	if _, err := b.CDP(c, browser.CDPCall{Method: "Target.getTargets"}); err != nil {
		t.Errorf("Target.getTargets on the browser: %v", err)
	}

	// An uncaught error is reported.
	if _, err := b.Navigate(c, srv.URL+"/throw"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Evaluate(c, "new Promise(r => setTimeout(r, 50))"); err != nil {
		t.Fatal(err)
	}
	_, jsErrs, _, _ := b.Console(c, false)
	if len(jsErrs) != 1 || !strings.Contains(jsErrs[0].Message, "undefinedFunction is not defined") {
		t.Errorf("js errors = %+v, want the ReferenceError", jsErrs)
	}

	// A confirm() dialog opened by a click waits for an answer.
	_, snap, err := b.NavigateAndSnapshot(c, srv.URL+"/confirm")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Click(c, refOf(t, snap.Text, "Ask")); err != nil {
		t.Fatal(err)
	}
	ds := b.Dialogs()
	if len(ds) != 1 || ds[0].Type != "confirm" || ds[0].Message != "Really?" {
		t.Fatalf("dialogs after the click = %+v, want the confirm", ds)
	}
	if _, err := b.Evaluate(c, "1"); !errors.Is(err, browser.ErrDialog) {
		t.Errorf("evaluate while the dialog is open = %v, want ErrDialog", err)
	}
	if d, err := b.AnswerDialog(c, true, "", ""); err != nil || d.Message != "Really?" {
		t.Fatalf("accept = %+v, %v", d, err)
	}
	if v, err := b.Evaluate(c, "document.getElementById('r').textContent"); err != nil || v != "yes" {
		t.Errorf("page after accepting = %v, %v; want yes", v, err)
	}
	if _, err := b.AnswerDialog(c, true, "", ""); !errors.Is(err, browser.ErrNoDialog) {
		t.Errorf("answer with no dialog = %v, want ErrNoDialog", err)
	}
}

func TestStaleRefAfterTheElementLeaves(t *testing.T) { engines(t, testStaleRefAfterTheElementLeaves) }

func testStaleRefAfterTheElementLeaves(t *testing.T, opts browser.Options) {
	srv := server(t)
	b := newBrowser(t, opts)
	c := ctx(t)
	_, snap, err := b.NavigateAndSnapshot(c, srv.URL+"/remove")
	if err != nil {
		t.Fatal(err)
	}
	ref := refOf(t, snap.Text, "Vanish")
	if err := b.Click(c, ref); err != nil {
		t.Fatal(err)
	}
	if err := b.Click(c, ref); !errors.Is(err, browser.ErrStaleRef) {
		t.Errorf("second click on the removed button = %v, want ErrStaleRef", err)
	}
	if err := b.Click(c, "@e99"); !errors.Is(err, browser.ErrStaleRef) {
		t.Errorf("click on an unknown ref = %v, want ErrStaleRef", err)
	}
}

func TestNavigationTimeoutThenNextCallWorks(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, browser.Options{NavTimeout: 2 * time.Second})
	c := ctx(t)
	if _, err := b.Navigate(c, srv.URL+"/hang"); !errors.Is(err, browser.ErrNavTimeout) {
		t.Fatalf("navigate to a page that never finishes = %v, want ErrNavTimeout", err)
	}
	nav, err := b.Navigate(c, srv.URL+"/")
	if err != nil || nav.URL != srv.URL+"/" {
		t.Errorf("navigate after the timeout = %+v, %v; want the form page", nav, err)
	}
}

func TestBlockedNavigationAndRedirect(t *testing.T) {
	srv := server(t)
	secret, secretHits := serverOn(t, "127.0.0.2:0")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, secret.URL+"/secret", http.StatusFound)
	})
	redirector := httptest.NewServer(mux)
	t.Cleanup(redirector.Close)
	b := newBrowser(t, browser.Options{Policy: &web.Policy{AllowLoopback: true, Deny: web.MustParseDeny("127.0.0.2/32")}})
	c := ctx(t)
	var be *browser.BlockedError
	if _, err := b.Navigate(c, secret.URL+"/secret"); !errors.As(err, &be) || !strings.Contains(err.Error(), "in web.deny (127.0.0.2/32)") {
		t.Errorf("navigate to a refused URL = %v, want BlockedError naming web.deny", err)
	}
	if _, err := b.Navigate(c, redirector.URL+"/"); !errors.As(err, &be) || !strings.Contains(err.Error(), "in web.deny (127.0.0.2/32)") {
		t.Errorf("navigate to a redirect onto a refused URL = %v, want BlockedError naming web.deny", err)
	}
	if n := secretHits.Load(); n != 0 {
		t.Errorf("the refused server got %d requests, want none", n)
	}
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil {
		t.Errorf("navigate to an allowed page after the refusals = %v", err)
	}
}

// processes returns the pids of the processes whose command line mentions
// the browser's profile folders (hermes-browser-), children included.
func chromiumPids(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if strings.Contains(string(cmd), "hermes-browser-") {
			if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(stat), ") Z ") {
				continue // a zombie already exited
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestKilledBrowserRecoversAndCloseLeavesNoProcess(t *testing.T) {
	srv := server(t)
	set := browser.NewSet(browser.Options{})
	t.Cleanup(func() { set.Close() })
	b := set.New()
	c := ctx(t)
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	pid := b.PID()
	if pid == 0 {
		t.Fatal("no browser process after a navigation")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The call that finds the browser gone reports it; the next starts a
	// new one.
	var lost error
	for range 50 {
		if _, lost = b.Snapshot(c, false); lost != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !errors.Is(lost, browser.ErrLost) {
		t.Fatalf("snapshot after the kill = %v, want ErrLost", lost)
	}
	nav, err := b.Navigate(c, srv.URL+"/")
	if err != nil || nav.URL != srv.URL+"/" {
		t.Fatalf("navigate after the loss = %+v, %v", nav, err)
	}
	if b.PID() == pid || b.PID() == 0 {
		t.Errorf("pid after recovery = %d, want a new process (old %d)", b.PID(), pid)
	}
	if len(chromiumPids(t)) == 0 {
		t.Fatal("no chromium process found in /proc while the browser runs; the check would prove nothing")
	}
	b.Close()
	set.Close()
	if pids := chromiumPids(t); len(pids) != 0 {
		t.Errorf("chromium processes left after close: %v", pids)
	}
	if _, err := b.Navigate(c, srv.URL+"/"); !errors.Is(err, browser.ErrClosed) {
		t.Errorf("navigate after close = %v, want ErrClosed", err)
	}
}

func TestIdleTimeoutStopsTheBrowser(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, browser.Options{IdleTimeout: 300 * time.Millisecond})
	c := ctx(t)
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	pid := b.PID()
	for i := 0; b.Running() && i < 300; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if b.Running() {
		t.Fatal("the browser still runs long after its idle timeout")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(stat), ") Z ") {
			t.Errorf("process %d still alive after the idle stop", pid)
		}
	}
	if _, err := b.Snapshot(c, false); !errors.Is(err, browser.ErrNoPage) {
		t.Errorf("snapshot after the idle stop = %v, want ErrNoPage", err)
	}
	if _, err := b.Navigate(c, srv.URL+"/"); err != nil || !b.Running() {
		t.Errorf("navigate after the idle stop = %v (running %v), want a new browser", err, b.Running())
	}
}
