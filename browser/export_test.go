package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// AXSnapshot returns opts with snapshots read from the accessibility tree,
// as with a browser that has no Element.computedRole.
func AXSnapshot(opts Options) Options {
	opts.axSnapshot = true
	return opts
}

// RawCreateTarget opens a new tab at url without the URL rules, as a way
// around them the tools do not have would: tests of the guard behind them.
func RawCreateTarget(ctx context.Context, b *Browser, url string) (string, error) {
	in, err := b.acquire(ctx, false)
	if err != nil {
		return "", err
	}
	defer b.release()
	c := chromedp.FromContext(in.tab)
	res, err := cdp.Call(ctx, c.Browser, target.CreateTarget, target.CreateTargetParams{URL: url})
	if err != nil {
		return "", err
	}
	return string(res.TargetID), nil
}

// Targets lists the browser's targets as type and URL.
func Targets(ctx context.Context, b *Browser) ([]string, error) {
	in, err := b.acquire(ctx, false)
	if err != nil {
		return nil, err
	}
	defer b.release()
	c := chromedp.FromContext(in.tab)
	res, err := cdp.Call(ctx, c.Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range res.TargetInfos {
		out = append(out, t.Type+" "+t.URL)
	}
	return out, nil
}

// ServicesRequests is how many requests of Chromium's own services the
// browsers' proxies answered themselves.
func ServicesRequests() int64 { return servicesHits.Load() }
