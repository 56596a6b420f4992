//go:build ignore

// Command paired compares the browser package of two commits in one process
// (issue 26: what the URL policy costs the browser's actions). run.sh builds
// it in a scratch module in which package "before" is the browser package
// of the older commit (git archive) and "github.com/hermes-acp/hermes-acp/browser"
// is this tree's; both drive the same Chromium on the same local page.
// Every round runs navigate, snapshot and click on one side and then on the
// other, in alternating order, so each pair of measurements shares the
// machine's load; it prints the median of the paired ratios and the
// medians of each side.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/browser"

	before "paired/before"
)

// driver is what both sides' *Browser offer.
type driver[S any] interface {
	NavigateAndSnapshot(ctx context.Context, url string) (S, string, error)
}

var buttonRef = regexp.MustCompile(`button "Press" \[ref=(e\d+)`)

type side struct {
	name  string
	round func(ctx context.Context, url string) (map[string]time.Duration, error)
}

func timed(out map[string]time.Duration, action string, f func() error) error {
	t := time.Now()
	err := f()
	out[action] = time.Since(t)
	return err
}

func main() {
	rounds := flag.Int("rounds", 200, "paired rounds")
	flag.Parse()
	exe, err := browser.Find("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var items strings.Builder
	for i := range 50 {
		fmt.Fprintf(&items, "<li>Item %d of the list</li>", i)
	}
	body := `<!doctype html><html><head><title>Bench</title></head><body>
<h1>Bench</h1>
<nav><a href="#a">One</a> <a href="#b">Two</a> <a href="#c">Three</a></nav>
<form><label>Name <input name="n"></label> <label>Mail <input name="m" type="email"></label></form>
<button onclick="document.getElementById('o').textContent = 'clicked ' + (++window.n || (window.n = 1))">Press</button>
<p id="o">not yet</p>
<ul>` + items.String() + `</ul>
</body></html>`
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	url := "http://" + ln.Addr().String() + "/"

	oldSet := before.NewSet(before.Options{Executable: exe, IdleTimeout: -1})
	defer oldSet.Close()
	oldB := oldSet.New(nil)
	newSet := browser.NewSet(browser.Options{Executable: exe, IdleTimeout: -1})
	defer newSet.Close()
	newB := newSet.New()

	sides := []side{
		{"before", func(ctx context.Context, url string) (map[string]time.Duration, error) {
			out := map[string]time.Duration{}
			if err := timed(out, "navigate", func() error { _, _, err := oldB.NavigateAndSnapshot(ctx, url); return err }); err != nil {
				return nil, err
			}
			var text string
			if err := timed(out, "snapshot", func() error { s, err := oldB.Snapshot(ctx, false); text = s.Text; return err }); err != nil {
				return nil, err
			}
			m := buttonRef.FindStringSubmatch(text)
			if m == nil {
				return nil, fmt.Errorf("no button in the snapshot:\n%s", text)
			}
			return out, timed(out, "click", func() error { return oldB.Click(ctx, "@"+m[1]) })
		}},
		{"after", func(ctx context.Context, url string) (map[string]time.Duration, error) {
			out := map[string]time.Duration{}
			if err := timed(out, "navigate", func() error { _, _, err := newB.NavigateAndSnapshot(ctx, url); return err }); err != nil {
				return nil, err
			}
			var text string
			if err := timed(out, "snapshot", func() error { s, err := newB.Snapshot(ctx, false); text = s.Text; return err }); err != nil {
				return nil, err
			}
			m := buttonRef.FindStringSubmatch(text)
			if m == nil {
				return nil, fmt.Errorf("no button in the snapshot:\n%s", text)
			}
			return out, timed(out, "click", func() error { return newB.Click(ctx, "@"+m[1]) })
		}},
	}
	ctx := context.Background()
	for _, s := range sides { // warm-up: starts each browser
		for range 3 {
			if _, err := s.round(ctx, url); err != nil {
				fmt.Fprintf(os.Stderr, "%s warm-up: %v\n", s.name, err)
				os.Exit(1)
			}
		}
	}
	actions := []string{"navigate", "snapshot", "click"}
	got := map[string]map[string][]time.Duration{"before": {}, "after": {}}
	ratios := map[string][]float64{}
	for i := range *rounds {
		order := sides
		if i%2 == 1 {
			order = []side{sides[1], sides[0]}
		}
		r := map[string]map[string]time.Duration{}
		for _, s := range order {
			d, err := s.round(ctx, url)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
				os.Exit(1)
			}
			r[s.name] = d
		}
		for _, a := range actions {
			got["before"][a] = append(got["before"][a], r["before"][a])
			got["after"][a] = append(got["after"][a], r["after"][a])
			ratios[a] = append(ratios[a], float64(r["after"][a])/float64(r["before"][a]))
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d paired rounds, Chromium %s, load average %s\n", *rounds, exe, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Println("| action | before (median) | after (median) | change of medians | median of paired ratios |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, a := range actions {
		b, f := median(got["before"][a]), median(got["after"][a])
		slices.Sort(ratios[a])
		fmt.Printf("| %s | %.2f ms | %.2f ms | %+.1f %% | %+.1f %% |\n", a, ms(b), ms(f), 100*(f/b-1), 100*(ratios[a][len(ratios[a])/2]-1))
	}
}

func ms(d float64) float64 { return d / 1e6 }

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2])
}
