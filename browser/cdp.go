package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// CDPCall is a raw DevTools Protocol call.
type CDPCall struct {
	Method string
	// Params is the JSON object of the method's parameters (nil: {}).
	Params json.RawMessage
	// TargetID runs the method in that target (a tab); "" runs page-level
	// methods in the session's tab and browser-level methods (Browser.*,
	// Target.*, SystemInfo.*) in the browser.
	TargetID string
	// FrameID runs the method in that frame: Runtime.evaluate and
	// Runtime.callFunctionOn in an isolated world of the frame; other
	// methods get it as their frameId parameter.
	FrameID string
	Timeout time.Duration
}

// urlParams are the methods that load a URL, and the parameter holding it:
// the URL goes through [Browser.CheckURL] first. (A target that shows a
// local URL by any other way is closed: see policy.go.)
var urlParams = map[string]string{"Page.navigate": "url", "Target.createTarget": "url", "Network.loadNetworkResource": "url"}

// browserLevel are the domains whose methods run on the browser session.
var browserLevel = []string{"Browser.", "Target.", "SystemInfo."}

// TargetID returns the id of the session's tab ("" when not started).
func (b *Browser) TargetID() string {
	b.mu.Lock()
	in := b.run
	b.mu.Unlock()
	if in == nil {
		return ""
	}
	if c := chromedp.FromContext(in.tab); c != nil && c.Target != nil {
		return string(c.Target.TargetID)
	}
	return ""
}

// CDP sends a raw DevTools Protocol command and returns its result object.
// It starts the browser when none runs.
func (b *Browser) CDP(ctx context.Context, call CDPCall) (json.RawMessage, error) {
	if call.Method == "" || !strings.Contains(call.Method, ".") {
		return nil, fmt.Errorf("method %q is not a DevTools method name such as Runtime.evaluate", call.Method)
	}
	params := map[string]any{}
	if len(call.Params) > 0 && string(call.Params) != "null" {
		if err := json.Unmarshal(call.Params, &params); err != nil {
			return nil, fmt.Errorf("params must be a JSON object: %w", err)
		}
	}
	if err := b.checkCDP(ctx, call.Method, params); err != nil {
		return nil, err
	}
	in, err := b.acquire(ctx, false)
	if err != nil {
		return nil, err
	}
	defer b.release()
	timeout := call.Timeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	cctx, cancel := in.callCtx(ctx, timeout)
	defer cancel()

	sess := cdp.Session(nil)
	c := chromedp.FromContext(in.tab)
	switch {
	case call.TargetID != "" && (c.Target == nil || string(c.Target.TargetID) != call.TargetID):
		if err := checkTarget(cctx, c.Browser, call.TargetID); err != nil {
			return nil, err
		}
		tctx, tcancel := chromedp.NewContext(cctx, chromedp.WithTargetID(target.ID(call.TargetID)), chromedp.WithDetachOnCancel())
		defer tcancel()
		if _, err := chromedp.Run(tctx, chromedp.Func(func(context.Context, *chromedp.Target) error { return nil })); err != nil {
			return nil, in.failure(ctx, fmt.Errorf("attach to target %s: %w", call.TargetID, err))
		}
		cctx = tctx
		sess = chromedp.FromContext(tctx).Target
	case call.TargetID == "" && hasAnyPrefix(call.Method, browserLevel):
		sess = c.Browser
	default:
		sess = c.Target
	}
	if call.FrameID != "" {
		if call.Method == "Runtime.evaluate" || call.Method == "Runtime.callFunctionOn" {
			if _, ok := params["contextId"]; !ok {
				w, err := cdp.Call(cctx, sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdp.FrameID(call.FrameID), WorldName: "hermes"})
				if err != nil {
					return nil, in.failure(ctx, fmt.Errorf("frame %s: %w", call.FrameID, err))
				}
				key := "contextId"
				if call.Method == "Runtime.callFunctionOn" {
					key = "executionContextId"
				}
				params[key] = w.ExecutionContextID
			}
		} else if _, ok := params["frameId"]; !ok {
			params["frameId"] = call.FrameID
		}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var res jsonv2.Value
	if err := sess.Call(cctx, call.Method, jsonv2.Value(raw), &res); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && !in.dead() {
			return nil, fmt.Errorf("CDP call timed out after %s", timeout)
		}
		return nil, in.failure(ctx, err)
	}
	if len(res) == 0 {
		return json.RawMessage("{}"), nil
	}
	return json.RawMessage(res), nil
}

// checkTarget refuses a target that is not one of the pages' own (pages,
// frames, workers) at an http(s) or about: URL: the browser's own UI and
// anything showing a local URL are not the model's to drive.
func checkTarget(ctx context.Context, b *chromedp.Browser, id string) error {
	res, err := cdp.Call(ctx, b, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(id)})
	if err != nil {
		return fmt.Errorf("target %s: %w", id, err)
	}
	info := res.TargetInfo
	if info == nil || !guardedType(info.Type) || info.Type == "tab" {
		return &BlockedError{URL: id, Err: errors.New("not a page, frame or worker of the session's browser")}
	}
	if isLocal(info.URL) {
		return &BlockedError{URL: info.URL, Err: errors.New(errLocal)}
	}
	return nil
}

// CheckCDP reports whether call would load a URL the browser refuses (see
// [Browser.CheckURL]), without sending it: callers that ask the user
// first check it before asking. CDP checks it again.
func (b *Browser) CheckCDP(ctx context.Context, call CDPCall) error {
	params := map[string]any{}
	if len(call.Params) > 0 && string(call.Params) != "null" {
		if err := json.Unmarshal(call.Params, &params); err != nil {
			return fmt.Errorf("params must be a JSON object: %w", err)
		}
	}
	return b.checkCDP(ctx, call.Method, params)
}

func (b *Browser) checkCDP(ctx context.Context, method string, params map[string]any) error {
	key, ok := urlParams[method]
	if !ok {
		return nil
	}
	u, _ := params[key].(string)
	if u == "" {
		return nil
	}
	return b.CheckURL(ctx, u)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
