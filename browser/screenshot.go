package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Annotation is a ref drawn on an annotated screenshot as its label [N].
type Annotation struct {
	Ref   string `json:"ref"`
	Label string `json:"label"`
}

// Screenshot captures the visible part of the page as PNG. With annotate,
// it first takes a snapshot and draws the label [N] of each ref @eN that
// is visible on its element.
func (b *Browser) Screenshot(ctx context.Context, annotate bool) ([]byte, []Annotation, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	defer b.release()
	in.mu.Lock()
	pending := len(in.dialogs) > 0
	in.mu.Unlock()
	if pending {
		return nil, nil, ErrDialog
	}
	cctx, cancel := in.callCtx(ctx, DefaultCallTimeout)
	defer cancel()
	var notes []Annotation
	if annotate {
		if _, err := in.snapshot(ctx, false); err != nil {
			return nil, nil, err
		}
		type box struct {
			Label      string
			X, Y, W, H float64
		}
		var boxes []box
		in.mu.Lock()
		refs := make(map[string]refTarget, len(in.refs))
		for k, v := range in.refs {
			refs[k] = v
		}
		in.mu.Unlock()
		// The walk's refs are measured in one call.
		var rects [][]float64
		if len(refs) > 0 && refs["e1"].elem != 0 {
			raw, err := in.callInWorld(cctx, `function(n) { const refs = globalThis.__hermesRefs || [];
				return refs.slice(0, n).map(e => { if (!e.isConnected) return null; const r = e.getClientRects()[0];
					return r && r.width > 0 && r.height > 0 ? [r.left, r.top, r.width, r.height] : null; }); }`, len(refs))
			if err == nil {
				_ = json.Unmarshal(raw, &rects)
			}
		}
		for i := 1; i <= len(refs); i++ {
			name := fmt.Sprintf("e%d", i)
			t, ok := refs[name]
			if !ok {
				continue
			}
			var b box
			switch {
			case t.elem != 0:
				if t.elem > len(rects) || len(rects[t.elem-1]) < 4 {
					continue
				}
				r := rects[t.elem-1]
				b = box{X: r[0], Y: r[1], W: r[2], H: r[3]}
			default:
				q, err := chromedp.Call(cctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: t.backend})
				if err != nil || len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
					continue
				}
				p := q.Quads[0]
				b = box{X: p[0], Y: p[1], W: p[2] - p[0], H: p[5] - p[1]}
			}
			b.Label = fmt.Sprintf("%d", i)
			boxes = append(boxes, b)
			notes = append(notes, Annotation{Ref: "@" + name, Label: "[" + b.Label + "]"})
		}
		raw, _ := json.Marshal(boxes)
		if _, err := in.eval(ctx, `(() => { const root = document.createElement('div'); root.id = '__hermes_refs';
			root.style.cssText = 'position:fixed;inset:0;pointer-events:none;z-index:2147483647';
			for (const b of `+string(raw)+`) {
				const d = document.createElement('div');
				d.style.cssText = 'position:fixed;border:2px solid #e11;left:'+b.X+'px;top:'+b.Y+'px;width:'+b.W+'px;height:'+b.H+'px';
				const l = document.createElement('span'); l.textContent = '['+b.Label+']';
				l.style.cssText = 'position:absolute;left:-2px;top:-16px;background:#e11;color:#fff;font:bold 11px monospace;padding:0 2px';
				d.appendChild(l); root.appendChild(d);
			}
			document.documentElement.appendChild(root); })()`, DefaultCallTimeout); err != nil {
			return nil, nil, err
		}
		defer func() {
			_, _ = in.eval(context.Background(), `document.getElementById('__hermes_refs')?.remove()`, DefaultCallTimeout)
		}()
	}
	res, err := chromedp.Call(cctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, nil, in.failure(ctx, err)
	}
	return res.Data, notes, nil
}
