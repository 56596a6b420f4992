package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/browser"
)

// sinkPage has what a snapshot must get right: names from labels and
// ARIA, states of form controls, a password, hidden parts, a shadow tree,
// a select, an image without alt text.
const sinkPage = `<!doctype html><html><head><title>Sink</title><style>.gone{display:none}.inv{visibility:hidden}</style></head><body>
<h1>Top</h1><h3 aria-level="5">Odd</h3>
<nav><a href="/a">One</a> <a href="/b" aria-label="Second link">Two</a> <a>no href</a></nav>
<p>Some <b>bold</b> text and <a href="#x">inline link</a>.</p>
<form><label>Name <input name="n" value="Ann"></label>
<label for="pw">Password</label><input id="pw" type="password" value="secret">
<input type="checkbox" checked aria-label="Agree"> <input type="radio" name="r" aria-label="R1">
<select aria-label="Pick"><option>A</option><option selected>B</option></select>
<textarea placeholder="Notes">hello</textarea><input type="search" placeholder="Find">
<button disabled>Off</button><button aria-pressed="true">Toggle</button><button aria-expanded="true">Menu</button>
<input type="range" min="0" max="10" value="3" aria-label="Vol"><input type="number" value="7" aria-label="Count" required>
</form>
<div class="gone"><button>Hidden</button></div><div aria-hidden="true"><button>AriaHidden</button></div>
<div class="inv">invisible <span style="visibility:visible">but this</span></div>
<img src="x.png" alt="A cat"><img src="y.png" alt="">
<ul><li>Item one</li><li>Item <i>two</i></li></ul>
<div role="tablist"><div role="tab" aria-selected="true">T1</div><div role="tab">T2</div></div>
<div role="alert">Watch out</div>
<my-el></my-el><script>customElements.define('my-el', class extends HTMLElement{constructor(){super();
  this.attachShadow({mode:'open'}).innerHTML='<button onclick="document.getElementById(\'out\').textContent=\'shadow clicked\'">Shadow btn</button><slot></slot>'}})</script>
<p id="out">idle</p>
<h2><a href="/post">Linked heading</a></h2>
</body></html>`

func sinkServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, sinkPage)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The page walk and the accessibility tree give the same compact snapshot:
// the walk takes its roles and names from the same engine.
func TestSnapshotEnginesAgree(t *testing.T) {
	srv := sinkServer(t)
	c := ctx(t)
	var texts []string
	for _, opts := range []browser.Options{{}, browser.AXSnapshot(browser.Options{})} {
		b := newBrowser(t, opts)
		_, snap, err := b.NavigateAndSnapshot(c, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, snap.Text)
	}
	if texts[0] != texts[1] {
		t.Errorf("the page walk and the accessibility tree differ:\n--- walk\n%s\n--- accessibility tree\n%s", texts[0], texts[1])
	}
}

func TestWalkSnapshotShowsWhatTheUserSees(t *testing.T) {
	srv := sinkServer(t)
	b := newBrowser(t, browser.Options{})
	c := ctx(t)
	_, snap, err := b.NavigateAndSnapshot(c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		`- heading "Odd" [level=5]`,
		`- link "Second link" [ref=e2]: Two`,
		`- textbox "Name" [ref=e4]: Ann`,
		`- textbox "Password" [ref=e5]: ••••••`,
		`- checkbox "Agree" [ref=e6] [checked]`,
		`- combobox "Pick" [ref=e8]: B`,
		`  - option "B" [ref=e10] [selected]`,
		`- button "Off" [ref=e13] [disabled]`,
		`- button "Toggle" [ref=e14] [pressed]`,
		`- spinbutton "Count" [ref=e17] [required]: 7`,
		`- text: but this`,
		`- image "A cat"`,
		`- tab "T1" [ref=e18] [selected]`,
		`- alert: Watch out`,
		`- button "Shadow btn" [ref=e20]`,
		`- heading "Linked heading" [level=2]` + "\n" + `  - link "Linked heading" [ref=e21]`,
	} {
		if !strings.Contains(snap.Text, w+"\n") && !strings.HasSuffix(snap.Text, w) {
			t.Errorf("snapshot lacks %q:\n%s", w, snap.Text)
		}
	}
	if n := strings.Count(snap.Text, "- image"); n != 1 {
		t.Errorf("%d images in the snapshot, want 1 (the one with alt text):\n%s", n, snap.Text)
	}
	for _, bad := range []string{"secret", "Hidden", "AriaHidden", "invisible"} {
		if strings.Contains(snap.Text, bad) {
			t.Errorf("snapshot shows %q, which the user does not see:\n%s", bad, snap.Text)
		}
	}
	// The ref of an element in a shadow tree clicks it.
	if err := b.Click(c, refOf(t, snap.Text, "Shadow btn")); err != nil {
		t.Fatal(err)
	}
	after, err := b.Snapshot(c, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after.Text, "- text: shadow clicked") {
		t.Errorf("after clicking the shadow button:\n%s", after.Text)
	}
	// Page scripts cannot see the agent's refs.
	v, err := b.Evaluate(c, "typeof globalThis.__hermesRefs")
	if err != nil || v != "undefined" {
		t.Errorf("the page sees the refs: typeof __hermesRefs = %v, %v", v, err)
	}
}
