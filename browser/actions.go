package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// BlockedError is a navigation the URL rules refused.
type BlockedError struct {
	URL string
	Err error
}

func (e *BlockedError) Error() string { return fmt.Sprintf("Blocked: %s: %v", e.URL, e.Err) }
func (e *BlockedError) Unwrap() error { return e.Err }

// NavResult is where a navigation ended. Title is set by
// NavigateAndSnapshot (the document's title, from the snapshot).
type NavResult struct {
	URL, Title string
	// Dialogs are the dialogs the page opened while loading.
	Dialogs []Dialog
	// Blocked are the requests the URL policy refused while the page
	// loaded (its images, scripts, frames, popups, workers, …).
	Blocked []Refusal
}

// failure turns an action's error into ErrLost when the browser died,
// and keeps the caller's cancellation as it is.
func (in *instance) failure(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		in.markLost()
	}
	if !in.dead() && (errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "connection")) {
		// The tab ends a moment after the connection is lost.
		select {
		case <-in.tab.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	if in.dead() {
		return fmt.Errorf("%w: %s", ErrLost, in.deathReason())
	}
	return err
}

// Navigate loads url in the tab: it waits for the load event and then for
// no request to be in flight (at most 2 s more), within the navigation
// limit. A navigation that does not finish in time is stopped and reported
// as ErrNavTimeout; the page then stays as far as it got.
func (b *Browser) Navigate(ctx context.Context, url string) (NavResult, error) {
	if err := b.CheckURL(ctx, url); err != nil {
		return NavResult{}, err
	}
	in, err := b.acquire(ctx, false)
	if err != nil {
		return NavResult{}, err
	}
	defer b.release()
	ctx, cancel := context.WithTimeout(ctx, b.opts.NavTimeout)
	defer cancel()
	cctx, ccancel := in.callCtx(ctx, b.opts.NavTimeout)
	defer ccancel()
	in.mu.Lock()
	gen := in.pageGen
	in.blocked = ""
	mark := in.refusalSeq
	in.mu.Unlock()
	res, err := chromedp.Call(cctx, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return NavResult{}, in.navFailure(ctx, err)
	}
	in.mu.Lock()
	in.navigated = true
	blocked, refused := in.blocked, in.refusalsSince(mark)
	in.mu.Unlock()
	if res.ErrorText != "" {
		switch {
		case blocked != "":
			return NavResult{}, &BlockedError{URL: url, Err: errors.New(blocked)}
		case len(refused) > 0: // a redirect to a refused https URL: its tunnel was refused
			return NavResult{}, &BlockedError{URL: url, Err: errors.New(refused[len(refused)-1].Reason)}
		}
		return NavResult{}, fmt.Errorf("navigate to %s: %s", url, res.ErrorText)
	}
	if res.LoaderID != "" {
		if err := in.waitLoaded(ctx, gen); err != nil {
			return NavResult{}, in.navFailure(ctx, err)
		}
	}
	nav, err := in.navResult(ctx)
	in.mu.Lock()
	blocked, nav.Blocked = in.blocked, in.refusalsSince(mark)
	in.mu.Unlock()
	if blocked != "" { // a redirect to a refused http URL: the proxy answered it
		return nav, &BlockedError{URL: url, Err: errors.New(blocked)}
	}
	return nav, err
}

// navFailure stops a navigation that ran out of time.
func (in *instance) navFailure(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if !in.dead() {
			sctx, cancel := in.callCtx(context.Background(), 5*time.Second)
			_, _ = chromedp.Call(sctx, page.StopLoading, cdp.Empty{})
			cancel()
			return ErrNavTimeout
		}
	}
	return in.failure(ctx, err)
}

// waitLoaded waits for the main frame to commit a document newer than gen
// and fire its load event (or open a dialog), then for the network to be
// quiet.
func (in *instance) waitLoaded(ctx context.Context, gen int) error {
	err := in.wait(ctx, func() bool {
		return len(in.dialogs) > 0 || in.pageGen > gen && in.loaded
	})
	if err != nil {
		return err
	}
	in.waitNetwork(ctx)
	return nil
}

// waitNetwork waits, at most maxNetworkWait, for no request to be in flight.
func (in *instance) waitNetwork(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, maxNetworkWait)
	defer cancel()
	_ = in.wait(ctx, func() bool { return len(in.inflight) == 0 || len(in.dialogs) > 0 })
}

func (in *instance) navResult(context.Context) (NavResult, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return NavResult{URL: in.url, Dialogs: append([]Dialog(nil), in.dialogs...)}, nil
}

// NavigateAndSnapshot navigates and then takes a compact snapshot, in one
// action.
func (b *Browser) NavigateAndSnapshot(ctx context.Context, url string) (NavResult, Snapshot, error) {
	nav, err := b.Navigate(ctx, url)
	if err != nil {
		return nav, Snapshot{}, err
	}
	if len(nav.Dialogs) > 0 {
		return nav, Snapshot{Dialogs: nav.Dialogs}, nil
	}
	snap, err := b.Snapshot(ctx, false)
	nav.Title = snap.Title
	return nav, snap, err
}

// target returns the element a ref of the latest snapshot stands for, or
// ErrStaleRef when the ref is unknown or the page changed since.
func (in *instance) target(name string) (refTarget, error) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "@")
	name = strings.TrimPrefix(name, "ref=")
	in.mu.Lock()
	t, ok := in.refs[name]
	fresh := in.refsGen == in.pageGen
	in.mu.Unlock()
	if !ok || !fresh {
		return refTarget{}, ErrStaleRef
	}
	return t, nil
}

// lookup finds the element object of a ref of the latest snapshot, without
// checking that it is still in the page (the caller's next call does).
func (in *instance) lookup(ctx context.Context, name string) (runtime.RemoteObjectID, error) {
	t, err := in.target(name)
	if err != nil {
		return "", err
	}
	if t.elem != 0 {
		obj, err := in.callInWorldObject(ctx, refElement, false, t.elem)
		if errors.Is(err, errNoWorld) {
			return "", ErrStaleRef
		}
		if err != nil {
			return "", in.failure(ctx, err)
		}
		if obj == nil || obj.ObjectID == "" {
			return "", ErrStaleRef
		}
		return obj.ObjectID, nil
	}
	res, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: t.backend})
	if err != nil || res.Object == nil || res.Object.ObjectID == "" {
		if in.dead() || ctx.Err() != nil {
			return "", in.failure(ctx, err)
		}
		return "", ErrStaleRef
	}
	return res.Object.ObjectID, nil
}

// refCall calls fn with this = the element of a ref and returns its JSON
// value; fn returns false itself when the element has left the page. A
// ref of the page walk takes one round trip, one of the accessibility tree
// two.
func (in *instance) refCall(ctx context.Context, name, fn string) (json.RawMessage, error) {
	t, err := in.target(name)
	if err != nil {
		return nil, err
	}
	if t.elem != 0 {
		raw, err := in.onRef(ctx, t, fn)
		if err != nil && !errors.Is(err, ErrStaleRef) {
			return nil, in.failure(ctx, err)
		}
		return raw, err
	}
	obj, err := in.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	raw, err := in.callOn(ctx, obj, fn)
	if err != nil {
		return nil, in.failure(ctx, err)
	}
	return raw, nil
}

// callArgs are args as the arguments of Runtime.callFunctionOn.
func callArgs(args []any) ([]*runtime.CallArgument, error) {
	out := make([]*runtime.CallArgument, 0, len(args))
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		out = append(out, &runtime.CallArgument{Value: raw})
	}
	return out, nil
}

// callOn calls a function with this = the object and returns its JSON value.
func (in *instance) callOn(ctx context.Context, obj runtime.RemoteObjectID, fn string, args ...any) (json.RawMessage, error) {
	cargs, err := callArgs(args)
	if err != nil {
		return nil, err
	}
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, Arguments: cargs, ReturnByValue: ptr(true), AwaitPromise: ptr(true)})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, errors.New(exceptionText(res.ExceptionDetails))
	}
	if res.Result == nil {
		return nil, nil
	}
	return json.RawMessage(res.Result.Value), nil
}

// act runs one input action that may open a dialog or start a navigation:
// it returns when the action is done, or early when a dialog opens (the
// action then finishes once the dialog is answered), and then waits for a
// navigation the action started.
func (in *instance) act(ctx context.Context, navTimeout time.Duration, f func(ctx context.Context) error) error {
	in.mu.Lock()
	gen, starts, reqs, dialogs := in.pageGen, in.mainStarts, in.navRequests, in.dialogN
	in.mu.Unlock()
	cctx, cancel := in.callCtx(context.Background(), DefaultCallTimeout)
	dctx, dcancel := context.WithCancel(in.tab)
	defer dcancel()
	done := make(chan error, 1)
	go func() {
		defer cancel()
		done <- f(cctx)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		cancel()
		return ctx.Err()
	case <-in.dialogOpened(dctx, dialogs):
		return nil
	}
	if err != nil {
		return in.failure(ctx, err)
	}
	// A navigation the action started shows up as the main frame starting
	// to load; one round trip to the page lets its events arrive first.
	rctx, rcancel := in.callCtx(ctx, 500*time.Millisecond)
	_, _ = chromedp.Call(rctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "0"})
	rcancel()
	in.mu.Lock()
	navigating := in.mainStarts > starts || in.pageGen > gen || in.navRequests > reqs
	in.mu.Unlock()
	if !navigating {
		return nil
	}
	wctx, wcancel := context.WithTimeout(ctx, navTimeout)
	defer wcancel()
	err = in.wait(wctx, func() bool {
		return len(in.dialogs) > 0 || in.pageGen > gen && in.loaded ||
			in.mainStarts > starts && in.mainStops >= in.mainStarts && in.pageGen == gen
	})
	if err != nil {
		return in.navFailure(wctx, err)
	}
	in.waitNetwork(ctx)
	return nil
}

// dialogOpened returns a channel closed once a dialog beyond the first n
// has opened; its goroutine ends when ctx does.
func (in *instance) dialogOpened(ctx context.Context, n int) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		if in.wait(ctx, func() bool { return in.dialogN > n }) == nil {
			close(ch)
		}
	}()
	return ch
}

// clickPoint scrolls the element into view when needed and returns the
// centre of its first box in viewport coordinates, or null when it has
// none (hidden, zero-sized); false when it has left the page.
const clickPoint = `function() {
	if (!this.isConnected) return false;
	if (this.scrollIntoViewIfNeeded) this.scrollIntoViewIfNeeded(true); else this.scrollIntoView({block: 'center', inline: 'center'});
	const r = this.getClientRects()[0];
	if (!r || r.width === 0 || r.height === 0) return null;
	return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}`

// Click clicks the element of ref at its centre with the mouse (or, when
// it has no box, with a DOM click), and waits for a navigation it starts.
func (b *Browser) Click(ctx context.Context, refName string) error {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return err
	}
	defer b.release()
	cctx, cancel := in.callCtx(ctx, DefaultCallTimeout)
	defer cancel()
	raw, err := in.refCall(cctx, refName, clickPoint)
	if err != nil {
		return err
	}
	var pt *struct{ X, Y float64 }
	if string(raw) == "false" {
		return ErrStaleRef
	}
	if err := json.Unmarshal(raw, &pt); err != nil || pt == nil {
		return in.act(ctx, b.opts.NavTimeout, func(ctx context.Context) error {
			_, err := in.refCall(ctx, refName, `function(){this.click()}`)
			return err
		})
	}
	return in.act(ctx, b.opts.NavTimeout, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.MouseClickXY(pt.X, pt.Y))
	})
}

// Type replaces the text of the element of ref (an input, a text area or
// an editable element) with text, as typed input.
func (b *Browser) Type(ctx context.Context, refName, text string) error {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return err
	}
	defer b.release()
	cctx, cancel := in.callCtx(ctx, DefaultCallTimeout)
	defer cancel()
	raw, err := in.refCall(cctx, refName, `function(){
		if (!this.isConnected) return false;
		this.scrollIntoView({block:'center', inline:'center'});
		this.focus();
		if (this.isContentEditable) { document.execCommand('selectAll', false, null); document.execCommand('delete', false, null); return; }
		if ('value' in this) { this.select && this.select(); this.value = ''; this.dispatchEvent(new Event('input', {bubbles: true})); }
		return true;
	}`)
	if err != nil {
		return err
	}
	if string(raw) == "false" {
		return ErrStaleRef
	}
	return in.act(ctx, b.opts.NavTimeout, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

// Scroll scrolls the page by 500 pixels up or down.
func (b *Browser) Scroll(ctx context.Context, down bool) error {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return err
	}
	defer b.release()
	dy := -500
	if down {
		dy = 500
	}
	_, err = in.eval(ctx, fmt.Sprintf("window.scrollBy(0, %d)", dy), DefaultCallTimeout)
	return err
}

// Back goes back one entry in the tab's history and waits for the page.
func (b *Browser) Back(ctx context.Context) (NavResult, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return NavResult{}, err
	}
	defer b.release()
	cctx, cancel := in.callCtx(ctx, DefaultCallTimeout)
	defer cancel()
	hist, err := chromedp.Call(cctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return NavResult{}, in.failure(ctx, err)
	}
	if hist.CurrentIndex <= 0 || int(hist.CurrentIndex) >= len(hist.Entries) {
		return NavResult{}, errors.New("there is no previous page in the history")
	}
	prev := hist.Entries[hist.CurrentIndex-1]
	if err := b.CheckURL(ctx, prev.URL); err != nil {
		return NavResult{}, err
	}
	err = in.act(ctx, b.opts.NavTimeout, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: prev.ID})
		return err
	})
	if err != nil {
		return NavResult{}, err
	}
	return in.navResult(ctx)
}

// Press presses a key (a name such as Enter, Tab, Escape, ArrowDown, or a
// single character) on the focused element, and waits for a navigation it
// starts.
func (b *Browser) Press(ctx context.Context, key string) error {
	keys, err := keyRunes(key)
	if err != nil {
		return err
	}
	in, err := b.acquire(ctx, true)
	if err != nil {
		return err
	}
	defer b.release()
	return in.act(ctx, b.opts.NavTimeout, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.KeyEvent(keys))
	})
}

// keyRunes maps a key name to chromedp's key runes.
func keyRunes(key string) (string, error) {
	if key == "" {
		return "", errors.New("empty key")
	}
	if len([]rune(key)) == 1 {
		return key, nil
	}
	switch strings.ToLower(key) {
	case "space", "spacebar":
		return " ", nil
	case "esc":
		return kb.Escape, nil
	case "return":
		return kb.Enter, nil
	case "up", "down", "left", "right":
		key = "Arrow" + key
	}
	for r, k := range kb.Keys {
		if strings.EqualFold(k.Key, key) && k.Key != "" {
			return string(r), nil
		}
	}
	return "", fmt.Errorf("unknown key %q (use a key name such as Enter, Tab, Escape, ArrowDown, or one character)", key)
}

// Image is one image of the page.
type Image struct {
	Src    string `json:"src"`
	Alt    string `json:"alt"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

const imagesJS = `JSON.stringify([...document.images].map(img => ({
	src: img.src, alt: img.alt || '', width: img.naturalWidth, height: img.naturalHeight
})).filter(img => img.src && !img.src.startsWith('data:')))`

// Images lists the page's images (src, alt, natural size), without data:
// URIs.
func (b *Browser) Images(ctx context.Context) ([]Image, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return nil, err
	}
	defer b.release()
	v, err := in.eval(ctx, imagesJS, DefaultCallTimeout)
	if err != nil {
		return nil, err
	}
	s, _ := v.(string)
	images := []Image{}
	if err := json.Unmarshal([]byte(s), &images); err != nil {
		return nil, fmt.Errorf("read images: %w", err)
	}
	return images, nil
}

// EvalError is an exception the evaluated code threw.
type EvalError struct{ Message string }

func (e *EvalError) Error() string { return e.Message }

// Evaluate runs a JavaScript expression in the page, as the DevTools
// console does (a promise it returns is awaited, at most
// Options.EvalTimeout in all), and returns its value decoded from JSON (nil for undefined and
// null).
func (b *Browser) Evaluate(ctx context.Context, expr string) (any, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return nil, err
	}
	defer b.release()
	return in.eval(ctx, expr, b.opts.EvalTimeout)
}

func (in *instance) eval(ctx context.Context, expr string, timeout time.Duration) (any, error) {
	in.mu.Lock()
	pending := len(in.dialogs) > 0
	in.mu.Unlock()
	if pending {
		return nil, ErrDialog
	}
	cctx, cancel := in.callCtx(ctx, timeout)
	defer cancel()
	// REPL mode (let redeclared, top-level await) awaits its own wrapper
	// only: a promise the expression returns comes back as an object, and
	// is awaited here. Objects are then read by value.
	res, err := chromedp.Call(cctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ObjectGroup: evalGroup, AwaitPromise: ptr(true), UserGesture: ptr(true), ReplMode: ptr(true)})
	var details *runtime.ExceptionDetails
	var obj *runtime.RemoteObject
	if err == nil {
		details, obj = res.ExceptionDetails, res.Result
	}
	if err == nil && details == nil && obj != nil && obj.ObjectID != "" {
		defer in.releaseGroup()
		if obj.Subtype == "promise" {
			var ar runtime.AwaitPromiseResult
			ar, err = chromedp.Call(cctx, runtime.AwaitPromise, runtime.AwaitPromiseParams{PromiseObjectID: obj.ObjectID, ReturnByValue: ptr(true)})
			details, obj = ar.ExceptionDetails, ar.Result
		} else {
			var cr runtime.CallFunctionOnResult
			cr, err = chromedp.Call(cctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
				FunctionDeclaration: "function() { return this }", ObjectID: obj.ObjectID, ReturnByValue: ptr(true)})
			details, obj = cr.ExceptionDetails, cr.Result
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && !in.dead() {
			return nil, &EvalError{Message: fmt.Sprintf("The expression did not finish within %s (a promise it returned never settled, or its code ran that long); "+
				"it was abandoned. Return a promise that settles sooner, or race it with a timeout.", timeout)}
		}
		if strings.Contains(err.Error(), "reference chain is too long") || strings.Contains(err.Error(), "Object couldn't be returned by value") {
			return nil, &EvalError{Message: "Expression returned a live DOM node / NodeList / Window, which can't be serialized. " +
				"Extract a primitive value (e.g. .innerText, .href, .src, .value) or use JSON.stringify() instead."}
		}
		return nil, in.failure(ctx, err)
	}
	if details != nil {
		return nil, &EvalError{Message: exceptionText(details)}
	}
	if obj == nil || len(obj.Value) == 0 {
		if obj != nil && obj.UnserializableValue != "" {
			return string(obj.UnserializableValue), nil
		}
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(obj.Value, &v); err != nil {
		return string(obj.Value), nil
	}
	return v, nil
}

// evalGroup is the object group of the objects an evaluation returns.
const evalGroup = "hermes-eval"

// releaseGroup lets the page free the objects of evaluations.
func (in *instance) releaseGroup() {
	ctx, cancel := in.callCtx(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = chromedp.Call(ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: evalGroup})
}

// Console returns the console messages, uncaught errors and requests the
// URL policy refused since the browser started or the last clear, and
// clears them when clear is set.
func (b *Browser) Console(ctx context.Context, clear bool) ([]ConsoleMessage, []JSError, []Refusal, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return nil, nil, nil, err
	}
	defer b.release()
	in.mu.Lock()
	defer in.mu.Unlock()
	msgs := append([]ConsoleMessage{}, in.console...)
	errs := append([]JSError{}, in.errors...)
	refused := in.refusalsSince(in.refusalMark)
	if clear {
		in.console, in.errors = nil, nil
		in.refusalMark = in.refusalSeq
	}
	return msgs, errs, refused, nil
}

// Dialogs returns the pending dialogs.
func (b *Browser) Dialogs() []Dialog {
	b.mu.Lock()
	in := b.run
	b.mu.Unlock()
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Dialog(nil), in.dialogs...)
}

// ErrNoDialog: no dialog is open.
var ErrNoDialog = errors.New("no JavaScript dialog is open")

// AnswerDialog accepts or dismisses the pending dialog id ("" for the
// first), with promptText as a prompt's answer, and returns it.
func (b *Browser) AnswerDialog(ctx context.Context, accept bool, promptText, id string) (Dialog, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return Dialog{}, err
	}
	defer b.release()
	in.mu.Lock()
	var d Dialog
	found := false
	for _, p := range in.dialogs {
		if id == "" || p.ID == id {
			d, found = p, true
			break
		}
	}
	n := len(in.dialogs)
	in.mu.Unlock()
	if !found {
		if n > 0 {
			return Dialog{}, fmt.Errorf("no pending dialog has id %q", id)
		}
		return Dialog{}, ErrNoDialog
	}
	cctx, cancel := in.callCtx(ctx, DefaultCallTimeout)
	defer cancel()
	_, err = chromedp.Call(cctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText})
	if err != nil {
		return Dialog{}, in.failure(ctx, err)
	}
	_ = in.wait(cctx, func() bool { return len(in.dialogs) < n })
	return d, nil
}
