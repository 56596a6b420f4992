package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// walkSource is the page walk of snapshot.js without its leading comment.
var walkSource = func() string {
	i := strings.Index(walkJS, "\nfunction")
	return walkJS[i+1:]
}()

//go:embed snapshot.js
var walkJS string

// worldName names the agent's isolated world in every page.
const worldName = "hermes"

// errNoComputedRole: the browser does not expose Element.computedRole (a
// browser.executable without the ComputedAccessibilityInfo feature); the
// snapshot reads the accessibility tree instead.
var errNoComputedRole = errors.New("the browser has no Element.computedRole")

// errNoWorld: the isolated world the refs live in is gone (the document
// changed).
var errNoWorld = errors.New("the page's document changed")

// namedRoles are the roles whose names a compact snapshot shows;
// interactiveRoles those that get a ref.
var (
	namedRoles       = slices.Sorted(maps.Keys(mergeSets(interactive, compactShown)))
	interactiveRoles = slices.Sorted(maps.Keys(interactive))
)

func mergeSets(sets ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, s := range sets {
		maps.Copy(out, s)
	}
	return out
}

// jsNode is one node of the page walk's tree.
type jsNode struct {
	Role     string            `json:"r"`
	Name     string            `json:"n"`
	Value    string            `json:"v"`
	Props    map[string]string `json:"p"`
	Elem     int               `json:"e"`
	Children []*jsNode         `json:"c"`
}

func (j *jsNode) ax() *axNode {
	a := &axNode{role: j.Role, name: j.Name, value: j.Value, props: j.Props, target: refTarget{elem: j.Elem}}
	if len(j.Children) > 0 {
		a.children = make([]*axNode, 0, len(j.Children))
		for _, c := range j.Children {
			if c != nil {
				a.children = append(a.children, c.ax())
			}
		}
	}
	return a
}

// walkPage reads the page with the page walk: roles and names from Blink's
// accessibility engine, element by element, in one call.
func (in *instance) walkPage(ctx context.Context, full bool) (*axNode, error) {
	var named any = namedRoles
	if full {
		named = nil
	}
	// Blink builds a document's accessibility tree once and then keeps it
	// up to date; until then every computedRole builds it again. One
	// shallow read of the tree per document builds it.
	in.mu.Lock()
	gen, warm := in.pageGen, in.axWarmGen
	in.mu.Unlock()
	if warm != gen+1 {
		if _, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{Depth: ptr(int64(1))}); err != nil {
			return nil, err
		}
		in.mu.Lock()
		in.axWarmGen = gen + 1
		in.mu.Unlock()
	}
	raw, err := in.callInWorld(ctx, walkSource, named, interactiveRoles)
	if errors.Is(err, errNoWorld) { // a document came between: once more
		raw, err = in.callInWorld(ctx, walkSource, named, interactiveRoles)
	}
	if err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		return nil, errNoComputedRole
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("page walk result: %w", err)
	}
	var root jsNode
	if err := json.Unmarshal([]byte(text), &root); err != nil {
		return nil, fmt.Errorf("page walk result: %w", err)
	}
	return root.ax(), nil
}

// worldContext returns the execution context of the agent's isolated world
// in the current document of the main frame, creating it once per
// document.
func (in *instance) worldContext(ctx context.Context) (runtime.ExecutionContextID, error) {
	in.mu.Lock()
	gen, id, wgen, frame := in.pageGen, in.world, in.worldGen, in.mainID
	in.mu.Unlock()
	if id != 0 && wgen == gen {
		return id, nil
	}
	if frame == "" {
		tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return 0, err
		}
		if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
			return 0, errors.New("the tab has no main frame")
		}
		frame = tree.FrameTree.Frame.ID
	}
	w, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: worldName})
	if err != nil {
		return 0, err
	}
	in.mu.Lock()
	in.world, in.worldGen = w.ExecutionContextID, gen
	in.mu.Unlock()
	return w.ExecutionContextID, nil
}

// forgetWorld drops the cached world after its context vanished.
func (in *instance) forgetWorld(id runtime.ExecutionContextID) {
	in.mu.Lock()
	if in.world == id {
		in.world = 0
	}
	in.mu.Unlock()
}

// callInWorld calls fn with args in the agent's isolated world and returns
// its JSON value. A world whose document went away gives errNoWorld.
func (in *instance) callInWorld(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	res, err := in.callInWorldObject(ctx, fn, true, args...)
	if err != nil {
		return nil, err
	}
	if res == nil || len(res.Value) == 0 {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(res.Value), nil
}

func (in *instance) callInWorldObject(ctx context.Context, fn string, byValue bool, args ...any) (*runtime.RemoteObject, error) {
	id, err := in.worldContext(ctx)
	if err != nil {
		return nil, err
	}
	cargs, err := callArgs(args)
	if err != nil {
		return nil, err
	}
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ExecutionContextID: id, Arguments: cargs, ReturnByValue: ptr(byValue)})
	if err != nil {
		if strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "Execution context was destroyed") {
			in.forgetWorld(id)
			return nil, errNoWorld
		}
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, errors.New(exceptionText(res.ExceptionDetails))
	}
	return res.Result, nil
}

// refElement is the function that finds a ref's element in the world.
const refElement = `function(i) { const e = globalThis.__hermesRefs && globalThis.__hermesRefs[i - 1]; return e && e.isConnected ? e : null; }`

// onRef calls fn (a function taking this = the element) on the element of
// a walk ref in one round trip, and returns its JSON value, or
// ErrStaleRef when the element has left the page.
func (in *instance) onRef(ctx context.Context, t refTarget, fn string) (json.RawMessage, error) {
	raw, err := in.callInWorld(ctx, `function(i) { const e = globalThis.__hermesRefs && globalThis.__hermesRefs[i - 1];
		if (!e || !e.isConnected) return false; return (`+fn+`).call(e); }`, t.elem)
	if errors.Is(err, errNoWorld) {
		return nil, ErrStaleRef
	}
	return raw, err
}
