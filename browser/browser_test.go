package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/browser"
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

func newBrowser(t *testing.T, opts browser.Options) *browser.Browser {
	t.Helper()
	if _, err := browser.Find(""); err != nil {
		t.Fatalf("these tests need Chromium: %v", err)
	}
	set := browser.NewSet(opts)
	b := set.New(nil)
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

func TestNavigateSnapshotTypeClick(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, browser.Options{})
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
