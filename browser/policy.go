package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/hermes-acp/hermes-acp/web"
)

// How the URL policy reaches every request of the browser (issue 26).
//
// The network: Chromium is started with its traffic forced through a
// web.Proxy of the instance (--proxy-server, --proxy-bypass-list=<-loopback>
// so that loopback is proxied too) and its own name resolution switched off
// (--host-resolver-rules maps every name but the proxy's address to
// NOTFOUND), so every request of every target — pages, popups, frames,
// dedicated, shared and service workers, redirects, WebSockets,
// preconnects — is a request to the proxy, which resolves the name itself,
// applies the policy (web.deny included) and connects only to the
// address it checked. WebRTC may use no UDP outside the proxy. A refused
// request gets a 403 carrying web.RefusedHeader (a tunnel: CONNECT
// refused), and is recorded for the tools to report.
//
// Local schemes (file:, filesystem:, chrome:, chrome-untrusted:,
// view-source:, devtools:) are never opened: the tools refuse to load
// them ([Browser.CheckURL]); no page of the network can load them either
// (Chromium's own rule), so no document of a local scheme ever exists to
// load more; the tab fails any file: or filesystem: request it sees (the
// DevTools fetch interception, for those two schemes only, so no other
// request waits for the agent); and any target that shows a local URL
// anyway is closed and the refusal recorded. browser_cdp's target_id only
// names the browser's own pages, frames and workers at http(s) or
// about: URLs.

// localSchemes are the schemes of URLs that read the machine or the
// browser itself rather than the network.
var localSchemes = []string{"file", "filesystem", "chrome", "chrome-untrusted", "chrome-extension", "view-source", "devtools", "chrome-search"}

// isLocal reports whether raw is a URL of a local scheme.
func isLocal(raw string) bool {
	i := strings.IndexByte(raw, ':')
	if i <= 0 {
		return false
	}
	scheme := strings.ToLower(strings.TrimSpace(raw[:i]))
	for _, s := range localSchemes {
		if scheme == s {
			return true
		}
	}
	return false
}

// errLocal is why a local URL is refused.
const errLocal = "the browser opens no local URLs (file:, filesystem:, chrome:, view-source:, devtools: are refused in every tab, frame and worker); " +
	"to look at a local page, serve its folder over http (for example `python3 -m http.server 8000 -d DIR`) and open http://127.0.0.1:8000/"

// CheckURL reports whether the browser may be asked to load raw (a
// navigation, a new tab): about:blank, or an http or https URL the
// policy allows. Everything else — local schemes, data:, javascript: —
// is refused. The error is a *BlockedError.
func (b *Browser) CheckURL(ctx context.Context, raw string) error {
	raw = strings.TrimSpace(raw)
	if raw == "about:blank" {
		return nil
	}
	if isLocal(raw) {
		return &BlockedError{URL: raw, Err: errors.New(errLocal)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return &BlockedError{URL: raw, Err: fmt.Errorf("not a valid URL: %w", err)}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if err := b.opts.Policy.CheckURL(ctx, raw); err != nil {
			return &BlockedError{URL: raw, Err: err}
		}
		return nil
	case "":
		return &BlockedError{URL: raw, Err: errors.New("not a URL: give an http or https URL such as http://127.0.0.1:3000/")}
	}
	return &BlockedError{URL: raw, Err: fmt.Errorf("only http and https URLs may be opened, not %s:", u.Scheme)}
}

// Refusal is one request of the browser that the URL policy refused.
type Refusal struct {
	// URL is what was asked for: a URL, or host:port of a tunnel (https,
	// wss) whose path the proxy never sees.
	URL string `json:"url"`
	// Reason is the refusal: "refused: 127.0.0.2 is in web.deny (…)".
	Reason string `json:"reason"`
}

// maxRefusals bounds the refusals an instance keeps (the oldest go).
const maxRefusals = 100

// refused records a refusal (from the proxy's goroutines or the watcher).
func (in *instance) refused(what, reason string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.refusalSeq++
	in.refusals = append(in.refusals, Refusal{URL: what, Reason: reason})
	if len(in.refusals) > maxRefusals {
		in.refusals = in.refusals[len(in.refusals)-maxRefusals:]
	}
	in.broadcast()
}

// refusalsSince returns the refusals recorded after mark (a value of
// in.refusalSeq), as far as they are still kept; in.mu is held.
func (in *instance) refusalsSince(mark int) []Refusal {
	n := min(in.refusalSeq-mark, len(in.refusals))
	if n <= 0 {
		return nil
	}
	return append([]Refusal(nil), in.refusals[len(in.refusals)-n:]...)
}

// enableLocalGuard makes the tab fail every file: and filesystem: request
// its frames make (no other request pauses).
func (in *instance) enableLocalGuard(ctx context.Context, t *chromedp.Target) error {
	_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "file:*", RequestStage: fetch.RequestStageRequest},
		{URLPattern: "filesystem:*", RequestStage: fetch.RequestStageRequest},
	}})
	return err
}

// failLocal fails a paused request of a local scheme.
func (in *instance) failLocal(e *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(in.tab, DefaultCallTimeout)
	defer cancel()
	u := e.Request.URL + e.Request.URLFragment
	in.refused(u, "refused: "+errLocal)
	_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
}

// watchTarget closes a target of the browser that shows a local URL (the
// tab itself is sent to about:blank instead), and records the refusal.
func (in *instance) watchTarget(info *target.Info) {
	if info == nil || !isLocal(info.URL) || !guardedType(info.Type) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(in.tab, 5*time.Second)
		defer cancel()
		in.refused(info.URL, "refused: "+errLocal)
		c := chromedp.FromContext(in.tab)
		if c != nil && c.Target != nil && c.Target.TargetID == info.TargetID {
			_, _ = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: "about:blank"})
			return
		}
		if c != nil && c.Browser != nil {
			_, _ = cdp.Call(ctx, c.Browser, target.CloseTarget, target.CloseTargetParams{TargetID: info.TargetID})
		}
	}()
}

// guardedType reports whether targets of type t are the pages' own
// (pages, frames, workers), as opposed to the browser's own UI.
func guardedType(t string) bool {
	switch t {
	case "page", "iframe", "worker", "shared_worker", "service_worker", "webview", "other", "tab", "background_page":
		return true
	}
	return false
}

// frameLocal sends a frame of the tab that navigated to a local URL back to
// about:blank.
func (in *instance) frameLocal(id cdp.FrameID, u string) {
	go func() {
		ctx, cancel := context.WithTimeout(in.tab, 5*time.Second)
		defer cancel()
		in.refused(u, "refused: "+errLocal)
		_, _ = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: "about:blank", FrameID: id})
	}()
}

// refusedHeader returns the refusal a response of the proxy carries ("":
// none).
func refusedHeader(h network.Headers) string {
	for k, v := range h {
		if strings.EqualFold(k, web.RefusedHeader) {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	return ""
}
