// Command browser compares the browser package (one headless Chromium per
// session over the DevTools Protocol, in process) with agent-browser, the
// CLI hermes-agent's browser tools start once per command, on the same
// local page and the same Chromium executable, in the same run. It prints a
// Markdown table of the median wall time of each action (navigate,
// snapshot, click) and the resident memory of each side's browser process
// tree. It is run by bench/browser/run.sh.
//
// Usage:
//
//	go run ./bench/browser -agent-browser PATH [-chromium PATH] [-runs N] [-large=false] [-mechanisms]
//
// Each action is one tool call as the model makes it. navigate is
// browser_navigate, which loads the page and returns a compact snapshot:
// ours calls NavigateAndSnapshot (load event, network quiet, snapshot);
// hermes runs `agent-browser --session S open URL` then `snapshot -c`.
// snapshot is browser_snapshot (compact): Snapshot, or `snapshot -c`.
// click is browser_click on the button's ref: Click, or `click @eN` with
// the ref agent-browser's own snapshot gave. Every agent-browser command is
// a new process talking to its daemon, as hermes runs it. The
// runs alternate between the sides after one warm-up round each (which
// also starts each browser), and the medians are reported.
//
// A third side, Chromium alone, drives a third instance of the same
// Chromium with raw DevTools calls and no driver work at all: the load of
// the page, one round trip, one mouse press and release. It is the least
// any driver of this browser can take for each action, so it bounds the
// speed-up any driver can reach against agent-browser.
//
// With -mechanisms, two more instances of Chromium alone run the same
// rounds under each way of applying the URL policy to every request
// (issue 26): through a web.Proxy with Chromium's own DNS off (what the
// browser package does), and with the DevTools Fetch domain pausing every
// request until the agent has checked it (the alternative not chosen).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/web"
)

const pageHTML = `<!doctype html><html><head><title>Bench</title></head><body>
<h1>Bench</h1>
<nav><a href="#a">One</a> <a href="#b">Two</a> <a href="#c">Three</a></nav>
<form><label>Name <input name="n"></label> <label>Mail <input name="m" type="email"></label></form>
<button onclick="document.getElementById('o').textContent = 'clicked ' + (++window.n || (window.n = 1))">Press</button>
<p id="o">not yet</p>
<ul>` + "%s" + `</ul>
</body></html>`

func main() {
	ab := flag.String("agent-browser", "", "the agent-browser executable (required)")
	chromium := flag.String("chromium", "", "the Chromium executable both sides use (default: found in PATH)")
	runs := flag.Int("runs", 15, "measured rounds per side")
	flag.BoolVar(&withLarge, "large", true, "also snapshot the large page in every round (each navigate then leaves it)")
	mechanisms := flag.Bool("mechanisms", false, "also time Chromium alone under each URL policy mechanism: the proxy (chosen) and DevTools Fetch interception of every request")
	flag.Parse()
	if *ab == "" {
		fmt.Fprintln(os.Stderr, "usage: browser -agent-browser PATH [-chromium PATH] [-runs N]")
		os.Exit(2)
	}
	exe, err := browser.Find(*chromium)
	if err != nil {
		fatal(err)
	}
	var items strings.Builder
	for i := range 50 {
		fmt.Fprintf(&items, "<li>Item %d of the list</li>", i)
	}
	body := fmt.Sprintf(pageHTML, items.String())
	// The large page: 1 500 list items, each a link, bold text and a field.
	var big strings.Builder
	big.WriteString("<!doctype html><title>Large</title><h1>Large</h1><ul>")
	for i := range 1500 {
		fmt.Fprintf(&big, `<li><a href="/p%d">Link %d</a> with <b>text</b> <input aria-label="f%d"></li>`, i, i, i)
	}
	big.WriteString("</ul>")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/large" {
			fmt.Fprint(w, big.String())
			return
		}
		fmt.Fprint(w, body)
	}))
	url := "http://" + ln.Addr().String() + "/"

	ours := newOurs(exe)
	defer ours.close()
	theirs := &agentBrowser{bin: *ab, exe: exe, session: fmt.Sprintf("hermesbench%d", os.Getpid())}
	defer theirs.close()

	floor, err := newFloor(exe, mechNone)
	if err != nil {
		fatal(err)
	}
	defer floor.close()

	results := map[string]map[string][]time.Duration{"ours": {}, "agent-browser": {}, "floor": {}, mechProxy: {}, mechFetch: {}}
	sides := []struct {
		name string
		do   func(url string) (map[string]time.Duration, error)
	}{{"ours", ours.round}, {"agent-browser", theirs.round}, {"floor", floor.round}}
	if *mechanisms {
		for _, m := range []string{mechProxy, mechFetch} {
			f, err := newFloor(exe, m)
			if err != nil {
				fatal(err)
			}
			defer f.close()
			sides = append(sides, struct {
				name string
				do   func(url string) (map[string]time.Duration, error)
			}{m, f.round})
		}
	}
	for _, s := range sides { // warm-up: starts each browser
		if _, err := s.do(url); err != nil {
			fatal(fmt.Errorf("%s warm-up: %w", s.name, err))
		}
	}
	for range *runs {
		for _, s := range sides {
			d, err := s.do(url)
			if err != nil {
				fatal(fmt.Errorf("%s: %w", s.name, err))
			}
			for k, v := range d {
				results[s.name][k] = append(results[s.name][k], v)
			}
		}
	}
	ourRSS, ourPSS := treeRSS(ours.b.PID())
	theirRoot, daemon := theirs.chromiumRoot()
	theirRSS, theirPSS := treeRSS(theirRoot)

	fmt.Printf("Chromium: %s (%s); page: %d bytes on 127.0.0.1 (the large page: %d bytes); %d rounds per side after one warm-up, alternating.\n\n", exe, version(exe), len(body), big.Len(), *runs)
	fmt.Println("| action | hermes-acp (browser package) | agent-browser 0.41.2 (CLI per action) | speed-up | Chromium alone (raw CDP, no driver work) | agent-browser / Chromium alone |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, a := range []string{"navigate", "snapshot", "click", "snapshot of the large page"} {
		if len(results["ours"][a]) == 0 {
			continue
		}
		o, t := median(results["ours"][a]), median(results["agent-browser"][a])
		f := median(results["floor"][a])
		if f == 0 {
			fmt.Printf("| %s | %s | %s | %.1f× | — | — |\n", a, ms(o), ms(t), float64(t)/float64(o))
			continue
		}
		fmt.Printf("| %s | %s | %s | %.1f× | %s | %.1f× |\n", a, ms(o), ms(t), float64(t)/float64(o), ms(f), float64(t)/float64(f))
	}
	fmt.Println()
	fmt.Println("Chromium alone: navigate is `Page.navigate` until the load event (no snapshot),")
	fmt.Println("snapshot one `Runtime.evaluate` of `0` (the least a call to the page costs),")
	fmt.Println("click one `Input.dispatchMouseEvent` press and release at a known point.")
	if *mechanisms {
		fmt.Println("\n| action (Chromium alone) | no policy | through the proxy (chosen) | Fetch interception of every request |")
		fmt.Println("|---|---:|---:|---:|")
		for _, a := range []string{"navigate", "snapshot", "click"} {
			f, p, x := median(results["floor"][a]), median(results[mechProxy][a]), median(results[mechFetch][a])
			fmt.Printf("| %s | %s | %s (%+.0f %%) | %s (%+.0f %%) |\n", a, ms(f), ms(p), 100*(float64(p)/float64(f)-1), ms(x), 100*(float64(x)/float64(f)-1))
		}
	}
	fmt.Printf("\n| browser memory after the runs (Chromium process tree) | hermes-acp | agent-browser |\n|---|---:|---:|\n")
	fmt.Printf("| RSS (shared pages counted in each process) | %.0f MiB | %.0f MiB |\n", ourRSS, theirRSS)
	fmt.Printf("| PSS (shared pages shared out) | %.0f MiB | %.0f MiB |\n", ourPSS, theirPSS)
	fmt.Printf("| the driver outside the browser | in the agent | %.0f MiB (its daemon's RSS) |\n", treeRSSOnly(daemon))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench/browser:", err)
	os.Exit(1)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// withLarge: every round also snapshots the large page.
var withLarge = true

// ours is the browser package's side.
type ours struct {
	set *browser.Set
	b   *browser.Browser
}

func newOurs(exe string) *ours {
	set := browser.NewSet(browser.Options{Executable: exe, IdleTimeout: -1})
	return &ours{set: set, b: set.New()}
}

func (o *ours) close() { o.set.Close() }

var buttonRef = regexp.MustCompile(`button "Press" \[ref=(e\d+)`)

func (o *ours) round(url string) (map[string]time.Duration, error) {
	ctx := context.Background()
	out := map[string]time.Duration{}
	t := time.Now()
	if _, _, err := o.b.NavigateAndSnapshot(ctx, url); err != nil {
		return nil, err
	}
	out["navigate"] = time.Since(t)
	t = time.Now()
	snap, err := o.b.Snapshot(ctx, false)
	if err != nil {
		return nil, err
	}
	out["snapshot"] = time.Since(t)
	m := buttonRef.FindStringSubmatch(snap.Text)
	if m == nil {
		return nil, fmt.Errorf("no button in our snapshot:\n%s", snap.Text)
	}
	t = time.Now()
	if err := o.b.Click(ctx, "@"+m[1]); err != nil {
		return nil, err
	}
	out["click"] = time.Since(t)
	if !withLarge {
		return out, nil
	}
	if _, err := o.b.Navigate(ctx, url+"large"); err != nil {
		return nil, err
	}
	t = time.Now()
	if _, err := o.b.Snapshot(ctx, false); err != nil {
		return nil, err
	}
	out["snapshot of the large page"] = time.Since(t)
	return out, nil
}

// floor is Chromium with no driver work: the least any driver of the same
// browser waits for each action.
type floor struct {
	cancel []context.CancelFunc
	tab    context.Context
	loaded chan struct{}
	x, y   float64
}

// The URL policy mechanisms the floor can run under (issue 26): none,
// the proxy the browser package uses (every request through a web.Proxy,
// Chromium's own DNS off), or the alternative that was measured and not
// chosen: the DevTools Fetch domain pausing every request until the agent
// checks its URL with the policy and lets it go on.
const (
	mechNone  = ""
	mechProxy = "proxy"
	mechFetch = "fetch"
)

func newFloor(exe, mech string) (*floor, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("no-sandbox", os.Geteuid() == 0),
		chromedp.WindowSize(1280, 800))
	f := &floor{loaded: make(chan struct{}, 16)}
	policy := &web.Policy{AllowLoopback: true}
	if mech == mechProxy {
		px, err := web.NewProxy(policy, web.ProxyOptions{})
		if err != nil {
			return nil, err
		}
		f.cancel = append(f.cancel, func() { px.Close() })
		opts = append(opts, chromedp.ProxyServer("http://"+px.Addr()), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
			chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	}
	actx, c1 := chromedp.NewExecAllocator(context.Background(), opts...)
	var tab context.Context
	tab, c2 := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *page.EventLoadEventFired:
			f.loaded <- struct{}{}
		case *fetch.EventRequestPaused:
			go func() {
				ctx, cancel := context.WithTimeout(tab, 10*time.Second)
				defer cancel()
				if err := policy.CheckURL(ctx, e.Request.URL); err != nil {
					_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
					return
				}
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
			}()
		}
	}))
	f.tab = tab
	f.cancel = append([]context.CancelFunc{c2, c1}, f.cancel...)
	if err := chromedp.Do(tab, chromedp.Func(func(context.Context, *chromedp.Target) error { return nil })); err != nil {
		f.close()
		return nil, fmt.Errorf("start the raw Chromium: %w", err)
	}
	if mech == mechFetch {
		if _, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

func (f *floor) close() {
	for _, c := range f.cancel {
		c()
	}
}

func (f *floor) round(url string) (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	t := time.Now()
	if _, err := chromedp.Call(f.tab, page.Navigate, page.NavigateParams{URL: url}); err != nil {
		return nil, err
	}
	select {
	case <-f.loaded:
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("raw Chromium: no load event")
	}
	out["navigate"] = time.Since(t)
	if f.x == 0 {
		res, err := chromedp.Call(f.tab, runtime.Evaluate, runtime.EvaluateParams{ReturnByValue: ptr(true),
			Expression: `(() => { const r = document.querySelector('button').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`})
		if err != nil || res.Result == nil {
			return nil, fmt.Errorf("raw Chromium: button: %v", err)
		}
		var p []float64
		if err := json.Unmarshal(res.Result.Value, &p); err != nil || len(p) != 2 {
			return nil, fmt.Errorf("raw Chromium: button: %s", res.Result.Value)
		}
		f.x, f.y = p[0], p[1]
	}
	t = time.Now()
	if _, err := chromedp.Call(f.tab, runtime.Evaluate, runtime.EvaluateParams{Expression: "0"}); err != nil {
		return nil, err
	}
	out["snapshot"] = time.Since(t)
	t = time.Now()
	if err := chromedp.Do(f.tab, chromedp.MouseClickXY(f.x, f.y)); err != nil {
		return nil, err
	}
	out["click"] = time.Since(t)
	// The large page too, as the other sides (untimed), so each navigate
	// leaves the same page.
	if !withLarge {
		return out, nil
	}
	if _, err := chromedp.Call(f.tab, page.Navigate, page.NavigateParams{URL: url + "large"}); err != nil {
		return nil, err
	}
	select {
	case <-f.loaded:
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("raw Chromium: no load event")
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

// agentBrowser is the agent-browser CLI's side.
type agentBrowser struct {
	bin, exe, session string
}

func (a *agentBrowser) run(args ...string) (string, error) {
	cmd := exec.Command(a.bin, append([]string{"--session", a.session}, args...)...)
	cmd.Env = append(os.Environ(), "AGENT_BROWSER_EXECUTABLE_PATH="+a.exe)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("agent-browser %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func (a *agentBrowser) round(url string) (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	t := time.Now()
	if _, err := a.run("open", url); err != nil {
		return nil, err
	}
	if _, err := a.run("snapshot", "-c"); err != nil {
		return nil, err
	}
	out["navigate"] = time.Since(t)
	t = time.Now()
	snap, err := a.run("snapshot", "-c")
	if err != nil {
		return nil, err
	}
	out["snapshot"] = time.Since(t)
	m := buttonRef.FindStringSubmatch(snap)
	if m == nil {
		return nil, fmt.Errorf("no button in agent-browser's snapshot:\n%s", snap)
	}
	t = time.Now()
	if _, err := a.run("click", "@"+m[1]); err != nil {
		return nil, err
	}
	out["click"] = time.Since(t)
	if !withLarge {
		return out, nil
	}
	if _, err := a.run("open", url+"large"); err != nil {
		return nil, err
	}
	t = time.Now()
	if _, err := a.run("snapshot", "-c"); err != nil {
		return nil, err
	}
	out["snapshot of the large page"] = time.Since(t)
	return out, nil
}

func (a *agentBrowser) close() { _, _ = a.run("close") }

// chromiumRoot finds agent-browser's Chromium: the Chromium process whose
// parent is not a Chromium (its daemon), and that daemon.
func (a *agentBrowser) chromiumRoot() (root, daemon int) {
	base := filepath.Base(a.exe)
	for pid, p := range procs() {
		if !strings.Contains(p.cmd, "hermes-browser-") && (p.comm == base || strings.HasPrefix(p.comm, "chrom")) {
			parent, ok := procs()[p.ppid]
			if ok && !strings.HasPrefix(parent.comm, "chrom") && strings.Contains(parent.cmd, "agent-browser") {
				return pid, p.ppid
			}
		}
	}
	return 0, 0
}

type proc struct {
	ppid         int
	comm         string
	cmd          string
	rssKB, pssKB int
}

// procs reads /proc.
func procs() map[int]proc {
	out := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 {
			continue
		}
		fields := strings.Fields(s[close+2:])
		ppid, _ := strconv.Atoi(fields[1])
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		rss := 0
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmRSS:") {
				rss, _ = strconv.Atoi(strings.Fields(l)[1])
			}
		}
		pss := 0
		rollup, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "smaps_rollup"))
		for _, l := range strings.Split(string(rollup), "\n") {
			if strings.HasPrefix(l, "Pss:") {
				pss, _ = strconv.Atoi(strings.Fields(l)[1])
			}
		}
		out[pid] = proc{ppid: ppid, comm: s[open+1 : close], cmd: strings.ReplaceAll(string(cmd), "\x00", " "), rssKB: rss, pssKB: pss}
	}
	return out
}

// treeRSS sums the resident memory (MiB) of root and its descendants: RSS
// (which counts shared pages once per process) and PSS (which shares
// them out).
func treeRSS(root int) (rss, pss float64) {
	if root == 0 {
		return 0, 0
	}
	ps := procs()
	r, s := 0, 0
	for pid, p := range ps {
		for q := pid; q > 1; q = ps[q].ppid {
			if q == root {
				r += p.rssKB
				s += p.pssKB
				break
			}
			if _, ok := ps[q]; !ok {
				break
			}
		}
	}
	return float64(r) / 1024, float64(s) / 1024
}

func treeRSSOnly(pid int) float64 {
	if pid == 0 {
		return 0
	}
	return float64(procs()[pid].rssKB) / 1024
}

func version(exe string) string {
	out, err := exec.Command(exe, "--version").Output()
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(string(out))
}
