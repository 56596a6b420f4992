package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/hermes-acp/hermes-acp/web"
)

// Errors the actions return; the tools turn them into messages the model
// can act on.
var (
	// ErrNoPage: nothing has been navigated to yet.
	ErrNoPage = errors.New("no page is open")
	// ErrStaleRef: the ref is unknown or its element has left the page.
	ErrStaleRef = errors.New("stale element ref")
	// ErrLost: the browser process exited or its page crashed; the next
	// call starts a new browser.
	ErrLost = errors.New("the browser exited or its page crashed")
	// ErrClosed: the browser was closed for good (its session ended).
	ErrClosed = errors.New("browser closed")
	// ErrNavTimeout: a navigation did not finish within the limit.
	ErrNavTimeout = errors.New("navigation timed out")
	// ErrDialog: a JavaScript dialog blocks the page.
	ErrDialog = errors.New("a JavaScript dialog is open")
)

// Defaults of [Options].
const (
	DefaultIdleTimeout = 5 * time.Minute
	DefaultNavTimeout  = 30 * time.Second
	DefaultCallTimeout = 30 * time.Second
	DefaultEvalTimeout = 30 * time.Second
	// networkQuiet is how long no request may be in flight, after the load
	// event, for the page to count as loaded.
	networkQuiet = 100 * time.Millisecond
	// maxNetworkWait bounds the wait for network quiet after load.
	maxNetworkWait = 2 * time.Second
	maxConsole     = 1000
	// profilePrefix starts the name of every browser's temporary profile
	// folder (its --user-data-dir).
	profilePrefix = "hermes-browser-"
)

// Options configure the browsers of a [Set]. The zero value finds the
// executable in PATH and uses the defaults.
type Options struct {
	// Executable is browser.executable; "" finds one (see [Find]).
	Executable string
	// IdleTimeout closes a browser unused for this long (0: the default,
	// negative: never).
	IdleTimeout time.Duration
	// NavTimeout bounds a navigation (load and network quiet).
	NavTimeout time.Duration
	// EvalTimeout bounds an evaluation (Evaluate), the wait for the
	// promise it returns included (0: DefaultEvalTimeout).
	EvalTimeout time.Duration
	// Policy decides every request of the browser, whatever makes it
	// (see policy.go): Chromium reaches the network only through a
	// web.Proxy applying it. Nil: the browser's default, public and
	// loopback addresses (web.Policy{AllowLoopback: true}).
	Policy *web.Policy
	// Log receives the browser's own errors (nil: discarded).
	Log *slog.Logger

	// axSnapshot makes snapshots read the accessibility tree, as with a
	// browser without computedRole (tests).
	axSnapshot bool
}

// Set makes the browsers of the sessions and closes those still running
// when it closes (the agent's exit). It is safe for concurrent use.
type Set struct {
	opts Options

	mu     sync.Mutex
	live   map[*Browser]struct{}
	closed bool
}

// NewSet returns a Set whose browsers use opts.
func NewSet(opts Options) *Set {
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.NavTimeout <= 0 {
		opts.NavTimeout = DefaultNavTimeout
	}
	if opts.EvalTimeout <= 0 {
		opts.EvalTimeout = DefaultEvalTimeout
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Policy == nil {
		opts.Policy = &web.Policy{AllowLoopback: true}
	}
	return &Set{opts: opts, live: map[*Browser]struct{}{}}
}

// Available reports whether a browser executable can be found.
func (s *Set) Available() error {
	_, err := Find(s.opts.Executable)
	return err
}

// New returns a session's browser, not started yet. The caller closes it.
func (s *Set) New() *Browser {
	b := &Browser{set: s, opts: s.opts}
	s.mu.Lock()
	if s.closed {
		b.closed = true
	} else {
		s.live[b] = struct{}{}
	}
	s.mu.Unlock()
	return b
}

// Close closes every browser of the set, and every browser New makes
// afterwards is closed from the start.
func (s *Set) Close() error {
	s.mu.Lock()
	s.closed = true
	live := make([]*Browser, 0, len(s.live))
	for b := range s.live {
		live = append(live, b)
	}
	s.mu.Unlock()
	for _, b := range live {
		b.Close()
	}
	return nil
}

func (s *Set) forget(b *Browser) {
	s.mu.Lock()
	delete(s.live, b)
	s.mu.Unlock()
}

// Browser is one session's browser: one Chromium process with one tab,
// started on first use. Its methods are safe for concurrent use; actions
// run one at a time.
type Browser struct {
	set  *Set
	opts Options

	// op serialises the actions.
	op sync.Mutex

	mu        sync.Mutex // guards the fields below
	closed    bool
	run       *instance // the running browser; nil when none
	idle      *time.Timer
	lostMsg   string // why the last browser was lost, reported once
	downloads string // the download folder, made on first use; removed by Close
}

// DownloadDir returns the browser's own download folder, making it on
// first use: a temporary folder of this browser (hermes-browser-downloads-*),
// kept while the session runs, across browser restarts, and removed by
// Close. Downloads land there or in the workspace, nowhere else (the tools
// see to it).
func (b *Browser) DownloadDir() (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return "", ErrClosed
	}
	if b.downloads == "" {
		d, err := os.MkdirTemp("", "hermes-browser-downloads-")
		if err != nil {
			return "", fmt.Errorf("make the browser's download folder: %w", err)
		}
		b.downloads = d
	}
	return b.downloads, nil
}

// instance is one started browser process, its tab and its proxy.
type instance struct {
	profile     string     // the temporary profile folder, removed by stop
	proxy       *web.Proxy // every request of the browser goes through it
	allocCancel context.CancelFunc
	tab         context.Context
	tabCancel   context.CancelFunc
	pid         int

	mu                    sync.Mutex // guards the page state below
	changed               chan struct{}
	crashed               bool
	lost                  bool // an action saw the browser process exit
	pageGen               int  // bumped when the main frame commits a new document
	mainID                cdp.FrameID
	url                   string // main frame URL
	loaded                bool   // the main frame's load event fired since its last navigation
	inflight              map[network.RequestID]struct{}
	lastNet               time.Time
	refs                  map[string]refTarget
	refsGen               int                        // pageGen the refs belong to
	axWarmGen             int                        // pageGen+1 of the document whose accessibility tree was built
	axOnly                bool                       // the browser lacks computedRole: snapshots read the accessibility tree
	world                 runtime.ExecutionContextID // the agent's isolated world of the main frame
	worldGen              int                        // pageGen the world belongs to
	console               []ConsoleMessage
	errors                []JSError
	dialogs               []Dialog
	dialogN               int
	mainStarts, mainStops int    // main frame started / stopped loading events
	navRequests           int    // navigations the main frame requested
	navigated             bool   // something was navigated to
	blocked               string // the refusal of the tab's last main document ("": none)
	refusals              []Refusal
	refusalSeq            int // refusals recorded so far
	refusalMark           int // refusalSeq when the refusals were last cleared
}

// ConsoleMessage is one console API call of the page.
type ConsoleMessage struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// JSError is one uncaught exception of the page.
type JSError struct {
	Message string `json:"message"`
}

// Dialog is a pending JavaScript dialog.
type Dialog struct {
	ID            string `json:"id"`
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"default_prompt,omitempty"`
	URL           string `json:"url,omitempty"`
}

// Close stops the browser (every process of it) and removes its profile.
// The Browser cannot be used afterwards. Close is idempotent.
func (b *Browser) Close() {
	b.mu.Lock()
	b.closed = true
	inst := b.run
	b.run = nil
	if b.idle != nil {
		b.idle.Stop()
	}
	downloads := b.downloads
	b.mu.Unlock()
	if inst != nil {
		inst.stop()
	}
	if downloads != "" {
		_ = os.RemoveAll(downloads)
	}
	if b.set != nil {
		b.set.forget(b)
	}
}

// PID returns the browser process id, 0 when none runs (for tests).
func (b *Browser) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.run == nil {
		return 0
	}
	return b.run.pid
}

// Running reports whether a browser process is running.
func (b *Browser) Running() bool { return b.PID() != 0 }

func (in *instance) stop() {
	// Kill the whole process group at once (a graceful close takes a
	// second), let the allocator reap the process, then remove the
	// profile.
	killGroup(in.pid)
	in.allocCancel()
	in.tabCancel()
	if in.proxy != nil {
		_ = in.proxy.Close()
	}
	_ = os.RemoveAll(in.profile)
}

// touch re-arms the idle timer.
func (b *Browser) touch() {
	if b.opts.IdleTimeout < 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.idle == nil {
		b.idle = time.AfterFunc(b.opts.IdleTimeout, b.idleStop)
		return
	}
	b.idle.Reset(b.opts.IdleTimeout)
}

// idleStop stops the browser after the idle timeout (a later call starts a
// new one).
func (b *Browser) idleStop() {
	if !b.op.TryLock() {
		b.touch() // busy: try again later
		return
	}
	defer b.op.Unlock()
	b.mu.Lock()
	inst := b.run
	b.mu.Unlock()
	if inst == nil {
		return
	}
	b.opts.Log.Debug("browser idle; stopping it", "pid", inst.pid)
	inst.stop()
	b.mu.Lock()
	if b.run == inst {
		b.run = nil
	}
	b.mu.Unlock()
}

// acquire locks the browser for one action and returns its running
// instance, starting one if needed. A browser found dead is stopped and
// reported as ErrLost once; the call after starts a new one. needPage
// refuses with ErrNoPage when nothing was navigated to.
func (b *Browser) acquire(ctx context.Context, needPage bool) (*instance, error) {
	b.op.Lock()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.op.Unlock()
		return nil, ErrClosed
	}
	inst := b.run
	b.mu.Unlock()
	if inst != nil && inst.dead() {
		reason := inst.deathReason()
		b.mu.Lock()
		b.run = nil
		b.mu.Unlock()
		inst.stop()
		b.op.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrLost, reason)
	}
	if inst == nil {
		if needPage {
			b.op.Unlock()
			return nil, ErrNoPage
		}
		var err error
		if inst, err = b.start(ctx); err != nil {
			b.op.Unlock()
			return nil, err
		}
		b.mu.Lock()
		if b.closed { // closed while starting
			b.mu.Unlock()
			inst.stop()
			b.op.Unlock()
			return nil, ErrClosed
		}
		b.run = inst
		b.mu.Unlock()
	}
	if needPage {
		inst.mu.Lock()
		nav := inst.navigated
		inst.mu.Unlock()
		if !nav {
			b.op.Unlock()
			return nil, ErrNoPage
		}
	}
	return inst, nil
}

// release ends an action. A browser that died during it is stopped: the
// action reported the loss, and the next call starts a new one.
func (b *Browser) release() {
	b.mu.Lock()
	in := b.run
	if in != nil && in.dead() {
		b.run = nil
	} else {
		in = nil
	}
	b.mu.Unlock()
	if in != nil {
		in.stop()
	}
	b.touch()
	b.op.Unlock()
}

func (in *instance) dead() bool {
	if in.tab.Err() != nil {
		return true
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.crashed || in.lost
}

// markLost records that the browser process exited.
func (in *instance) markLost() {
	in.mu.Lock()
	in.lost = true
	in.mu.Unlock()
}

func (in *instance) deathReason() string {
	in.mu.Lock()
	crashed := in.crashed
	in.mu.Unlock()
	if crashed {
		return "the page crashed"
	}
	if in.tab.Err() == nil {
		return "the browser process exited"
	}
	if err := context.Cause(in.tab); err != nil && !errors.Is(err, context.Canceled) {
		return err.Error()
	}
	return "the browser process exited"
}

// start launches a browser with a fresh profile and opens its tab.
func (b *Browser) start(ctx context.Context) (*instance, error) {
	exe, err := Find(b.opts.Executable)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return nil, fmt.Errorf("start browser: profile: %w", err)
	}
	in := &instance{profile: profile, changed: make(chan struct{}), inflight: map[network.RequestID]struct{}{},
		axOnly: b.opts.axSnapshot}
	in.proxy, err = web.NewProxy(b.opts.Policy, web.ProxyOptions{
		OnRefused: func(r web.Refusal) { in.refused(r.URL, r.Err.Error()) },
		Hosts:     map[string]http.Handler{servicesHost: http.HandlerFunc(servicesOff)},
		Log:       b.opts.Log,
	})
	if err != nil {
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("start browser: %w", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.UserDataDir(profile),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-gpu", true),
		// Element.computedRole and computedName: the snapshot's page walk.
		chromedp.Flag("enable-blink-features", "ComputedAccessibilityInfo"),
		// Back and forward load pages again, with their load events; no
		// network time queries, no optimization hints or models fetched
		// from Google, no media router (the browser's own traffic, which
		// the proxy would otherwise carry).
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,BackForwardCache,NetworkTimeServiceQuerying,"+
			"OptimizationHints,OptimizationHintsFetching,OptimizationGuideModelDownloading,MediaRouter,DialMediaRouteProvider"),
		chromedp.Flag("no-sandbox", os.Geteuid() == 0),
		chromedp.WindowSize(1280, 800),
		chromedp.ModifyCmdFunc(ownGroup),
	)
	opts = append(opts, policyFlags(in.proxy.Addr())...)
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	in.allocCancel = allocCancel
	tab, tabCancel := chromedp.NewContext(allocCtx,
		chromedp.WithListener(in.onEvent),
		chromedp.WithErrorf(func(f string, a ...any) { b.opts.Log.Debug("chromedp: " + fmt.Sprintf(f, a...)) }),
		chromedp.WithLogf(func(string, ...any) {}))
	in.tab, in.tabCancel = tab, tabCancel

	// The first Run starts the browser and lives as long as tab: it must
	// not carry the caller's deadline, so watch ctx separately.
	started := make(chan error, 1)
	go func() {
		started <- chromedp.Do(tab,
			chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
				_, err := cdp.Call(ctx, chromedp.FromContext(ctx).Browser, browser.SetDownloadBehavior,
					browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny})
				return err
			}),
		)
	}()
	timer := time.NewTimer(DefaultCallTimeout)
	defer timer.Stop()
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = errors.New("the browser did not start within 30s")
	}
	if err != nil {
		in.stop()
		return nil, fmt.Errorf("start browser %s: %w", exe, err)
	}
	if c := chromedp.FromContext(tab); c != nil && c.Browser != nil {
		in.pid = c.Browser.Process().Pid
	}
	if err := chromedp.Do(tab, chromedp.Func(in.enableLocalGuard)); err != nil {
		in.stop()
		return nil, fmt.Errorf("start browser: enable the local URL guard: %w", err)
	}
	return in, nil
}

// policyFlags are Chromium's flags that put every request through the
// proxy at proxyAddr (see policy.go): loopback is proxied too, Chromium
// resolves no name itself (only the proxy's address), WebRTC sends no UDP
// outside the proxy, and the background services that would only talk
// to Google are off.
func policyFlags(proxyAddr string) []chromedp.ExecAllocatorOption {
	host, _, _ := strings.Cut(proxyAddr, ":")
	return []chromedp.ExecAllocatorOption{
		chromedp.ProxyServer("http://" + proxyAddr),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE "+host),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		// What the flags above leave of Chromium's own requests to Google
		// (the component updater's checks, the sign-in state's
		// ListAccounts) is sent to servicesHost, which the proxy answers
		// itself: no name of theirs is resolved, nothing leaves loopback.
		chromedp.Flag("component-updater", "url-source=http://"+servicesHost+"/update"),
		chromedp.Flag("gaia-url", "http://"+servicesHost+"/"),
		chromedp.Flag("google-apis-url", "http://"+servicesHost+"/"),
	}
}

// servicesHost is the name Chromium's own services are pointed at; the
// browser's proxy answers it (servicesOff) without reaching the network.
const servicesHost = "browser-services.hermes-acp.invalid"

// servicesHits counts the requests servicesOff answered (tests).
var servicesHits atomic.Int64

// servicesOff answers a request of Chromium's own services: switched off.
func servicesOff(w http.ResponseWriter, _ *http.Request) {
	servicesHits.Add(1)
	http.Error(w, "hermes-acp: the browser's own services are switched off", http.StatusForbidden)
}

// broadcast wakes the waiters of the page state; in.mu is held.
func (in *instance) broadcast() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// onEvent records the page's events. It runs on chromedp's reading
// goroutine: it must not block nor call the browser.
func (in *instance) onEvent(ev any) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch e := ev.(type) {
	case *page.EventFrameNavigated:
		if e.Frame.ParentID != "" && isLocal(e.Frame.URL) {
			in.frameLocal(e.Frame.ID, e.Frame.URL)
		}
		if e.Frame.ParentID == "" {
			in.mainID = e.Frame.ID
			in.url = e.Frame.URL + e.Frame.URLFragment
			in.pageGen++
			in.loaded = false
			in.dialogs = nil
			clear(in.inflight)
		}
	case *page.EventFrameStartedLoading:
		if in.mainID == "" || e.FrameID == in.mainID {
			in.mainStarts++
		}
	case *page.EventFrameRequestedNavigation:
		if in.mainID == "" || e.FrameID == in.mainID {
			in.navRequests++
		}
	case *page.EventFrameStoppedLoading:
		if in.mainID == "" || e.FrameID == in.mainID {
			in.mainStops++
		}
	case *page.EventNavigatedWithinDocument:
		if e.FrameID == in.mainID {
			in.url = e.URL
		}
	case *page.EventLoadEventFired:
		in.loaded = true
	case *page.EventJavascriptDialogOpening:
		in.dialogN++
		in.dialogs = append(in.dialogs, Dialog{ID: fmt.Sprintf("d%d", in.dialogN), Type: string(e.Type),
			Message: e.Message, DefaultPrompt: e.DefaultPrompt, URL: e.URL})
	case *page.EventJavascriptDialogClosed:
		if len(in.dialogs) > 0 {
			in.dialogs = in.dialogs[1:]
		}
	case *runtime.EventConsoleAPICalled:
		if len(in.console) < maxConsole {
			in.console = append(in.console, ConsoleMessage{Type: consoleType(string(e.Type)), Text: formatArgs(e.Args)})
		}
	case *runtime.EventExceptionThrown:
		if len(in.errors) < maxConsole {
			in.errors = append(in.errors, JSError{Message: exceptionText(e.ExceptionDetails)})
		}
	case *inspector.EventTargetCrashed:
		in.crashed = true
	case *network.EventRequestWillBeSent:
		in.inflight[e.RequestID] = struct{}{}
		in.lastNet = time.Now()
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && e.Response != nil && (in.mainID == "" || e.FrameID == in.mainID) {
			in.blocked = refusedHeader(e.Response.Headers)
		}
	case *target.EventTargetCreated:
		in.watchTarget(e.TargetInfo)
	case *target.EventTargetInfoChanged:
		in.watchTarget(e.TargetInfo)
	case *network.EventLoadingFinished:
		delete(in.inflight, e.RequestID)
		in.lastNet = time.Now()
	case *network.EventLoadingFailed:
		delete(in.inflight, e.RequestID)
		in.lastNet = time.Now()
	case *fetch.EventRequestPaused:
		go in.failLocal(e)
	default:
		return
	}
	in.broadcast()
}

// wait blocks until cond holds (checked with in.mu held), ctx ends or the
// browser dies.
func (in *instance) wait(ctx context.Context, cond func() bool) error {
	for {
		in.mu.Lock()
		ok := cond()
		ch := in.changed
		in.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-in.tab.Done():
			return ErrLost
		}
	}
}

// callCtx returns a context for one call: the tab's values and lifetime,
// ended too by ctx and after timeout.
func (in *instance) callCtx(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(in.tab, timeout)
	stop := context.AfterFunc(ctx, cancel)
	return c, func() { stop(); cancel() }
}

func consoleType(t string) string {
	switch t {
	case "warning":
		return "warn"
	case "":
		return "log"
	}
	return t
}

// formatArgs renders console arguments as the DevTools console does, in
// short.
func formatArgs(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, remoteText(a))
	}
	return strings.Join(parts, " ")
}

func remoteText(a *runtime.RemoteObject) string {
	if a == nil {
		return ""
	}
	switch {
	case a.Type == runtime.RemoteObjectTypeString && len(a.Value) > 0:
		var s string
		if err := jsonUnmarshal(a.Value, &s); err == nil {
			return s
		}
	case len(a.Value) > 0:
		return string(a.Value)
	case a.UnserializableValue != "":
		return string(a.UnserializableValue)
	case a.Description != "":
		return a.Description
	}
	return string(a.Type)
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return ""
	}
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

func ptr[T any](v T) *T { return &v }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
