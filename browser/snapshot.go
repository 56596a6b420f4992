package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// MaxSnapshotChars is the size above which a snapshot is cut at a line
// boundary with a note (hermes's snapshot threshold).
const MaxSnapshotChars = 15000

// Snapshot is the page as text: the accessibility tree, one node a line,
// interactive elements tagged [ref=eN].
type Snapshot struct {
	URL, Title string
	Text       string
	// Elements is how many refs the snapshot assigned.
	Elements int
	// Truncated: the text was cut at MaxSnapshotChars.
	Truncated bool
	Dialogs   []Dialog
}

// interactive are the roles that get a ref.
var interactive = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "slider": true, "spinbutton": true, "switch": true, "tab": true, "treeitem": true,
}

// hoisted roles never get a line of their own: their children take their
// place.
var hoisted = map[string]bool{
	"generic": true, "none": true, "presentation": true, "RootWebArea": true, "LineBreak": true,
	"InlineTextBox": true, "ignored": true, "": true,
}

// compactShown are the roles the compact view shows besides interactive
// elements and text.
var compactShown = map[string]bool{"heading": true, "img": true, "image": true, "alert": true, "status": true, "dialog": true, "alertdialog": true}

// noTextChildren are the roles whose name already says their text.
var noTextChildren = map[string]bool{"heading": true, "img": true, "image": true}

type axNode struct {
	role, name, value string
	props             map[string]string
	target            refTarget
	ignored           bool
	children          []*axNode
}

// refTarget is the element a ref stands for: a DOM node of the
// accessibility tree, or an element the page walk kept in the agent's
// isolated world (its index + 1 in __hermesRefs).
type refTarget struct {
	backend cdp.BackendNodeID
	elem    int
}

func (t refTarget) ok() bool { return t.backend != 0 || t.elem != 0 }

// Snapshot reads the page's accessibility tree. full shows every node;
// otherwise only interactive elements, headings, images and text. The refs
// it assigns replace those of the previous snapshot.
func (b *Browser) Snapshot(ctx context.Context, full bool) (Snapshot, error) {
	in, err := b.acquire(ctx, true)
	if err != nil {
		return Snapshot{}, err
	}
	defer b.release()
	return in.snapshot(ctx, full)
}

func (in *instance) snapshot(ctx context.Context, full bool) (Snapshot, error) {
	cctx, cancel := in.callCtx(ctx, DefaultCallTimeout)
	defer cancel()
	in.mu.Lock()
	gen := in.pageGen
	axOnly := in.axOnly
	in.mu.Unlock()
	var root *axNode
	var err error
	if !axOnly {
		root, err = in.walkPage(cctx, full)
		if errors.Is(err, errNoComputedRole) {
			in.mu.Lock()
			in.axOnly = true
			in.mu.Unlock()
			axOnly = true
		} else if err != nil {
			return Snapshot{}, in.failure(ctx, fmt.Errorf("read the page: %w", err))
		}
	}
	if axOnly {
		res, err := chromedp.Call(cctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		if err != nil {
			return Snapshot{}, in.failure(ctx, fmt.Errorf("read accessibility tree: %w", err))
		}
		root = buildTree(res.Nodes)
	}
	r := renderer{full: full, refs: map[string]refTarget{}}
	title := ""
	if root != nil {
		title = root.name
		r.walk(root, 0)
	}
	text := strings.TrimRight(r.b.String(), "\n")
	snap := Snapshot{Title: title, Elements: len(r.refs)}
	if len(text) > MaxSnapshotChars {
		text, snap.Truncated = truncateLines(text, MaxSnapshotChars), true
	}
	snap.Text = text
	in.mu.Lock()
	in.refs, in.refsGen = r.refs, gen
	snap.URL = in.url
	snap.Dialogs = append([]Dialog(nil), in.dialogs...)
	in.mu.Unlock()
	return snap, nil
}

// truncateLines cuts text at the last line boundary within limit and says
// how much is left out.
func truncateLines(text string, limit int) string {
	cut := strings.LastIndexByte(text[:limit], '\n')
	if cut < 0 {
		cut = limit
	}
	shown := strings.Count(text[:cut], "\n") + 1
	total := strings.Count(text, "\n") + 1
	return text[:cut] + fmt.Sprintf("\n[... snapshot truncated: %d of %d lines shown (%d of %d characters). Scroll the page and take a new snapshot to see the rest.]", shown, total, cut, len(text))
}

func buildTree(nodes []*accessibility.Node) *axNode {
	if len(nodes) == 0 {
		return nil
	}
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	seen := map[accessibility.NodeID]bool{}
	var build func(n *accessibility.Node) *axNode
	build = func(n *accessibility.Node) *axNode {
		if seen[n.NodeID] {
			return nil
		}
		seen[n.NodeID] = true
		a := &axNode{role: axString(n.Role), name: axString(n.Name), value: axString(n.Value),
			target: refTarget{backend: n.BackendDOMNodeID}, ignored: n.Ignored}
		for _, p := range n.Properties {
			if p == nil || p.Value == nil {
				continue
			}
			if a.props == nil {
				a.props = map[string]string{}
			}
			a.props[string(p.Name)] = axString(p.Value)
		}
		for _, id := range n.ChildIDs {
			if c, ok := byID[id]; ok {
				if ac := build(c); ac != nil {
					a.children = append(a.children, ac)
				}
			}
		}
		return a
	}
	root := nodes[0]
	for _, n := range nodes {
		if n.ParentID == "" {
			root = n
			break
		}
	}
	return build(root)
}

// axString returns an AX value as text.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err == nil {
		return s
	}
	return string(v.Value)
}

type renderer struct {
	full bool
	b    strings.Builder
	refs map[string]refTarget
	n    int
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// walk writes n and its subtree at depth.
func (r *renderer) walk(n *axNode, depth int) {
	role := n.role
	if n.ignored || hoisted[role] {
		for _, c := range n.children {
			r.walk(c, depth)
		}
		return
	}
	if role == "StaticText" {
		if t := collapse(n.name); t != "" {
			r.line(depth, "- text: "+t)
		}
		return
	}
	isRef := interactive[role] && n.target.ok()
	shown := r.full || isRef || compactShown[role]
	if !shown {
		for _, c := range n.children {
			r.walk(c, depth)
		}
		return
	}
	var line strings.Builder
	line.WriteString("- " + role)
	if name := collapse(n.name); name != "" {
		fmt.Fprintf(&line, " %q", name)
	}
	if isRef {
		r.n++
		ref := fmt.Sprintf("e%d", r.n)
		r.refs[ref] = n.target
		fmt.Fprintf(&line, " [ref=%s]", ref)
	}
	for _, p := range []string{"level", "checked", "pressed", "selected", "expanded", "disabled", "required", "readonly"} {
		v, ok := n.props[p]
		if !ok || v == "false" || v == "" {
			continue
		}
		if v == "true" {
			fmt.Fprintf(&line, " [%s]", p)
		} else {
			fmt.Fprintf(&line, " [%s=%s]", p, v)
		}
	}
	// A node whose children are only text says it after a colon.
	text, onlyText := textChildren(n)
	if v := collapse(n.value); v != "" {
		fmt.Fprintf(&line, ": %s", v)
	} else if onlyText && text != "" && text != collapse(n.name) && !noTextChildren[role] {
		fmt.Fprintf(&line, ": %s", text)
	}
	r.line(depth, line.String())
	if onlyText {
		return
	}
	// The text of a ref, a heading or an image is its name; other children
	// (a link in a heading) are shown.
	for _, c := range n.children {
		if (isRef || noTextChildren[role]) && c.role == "StaticText" {
			continue
		}
		r.walk(c, depth+1)
	}
}

// textChildren returns the joined text of n's children when every shown
// child is text.
func textChildren(n *axNode) (string, bool) {
	var parts []string
	var visit func(n *axNode) bool
	visit = func(n *axNode) bool {
		for _, c := range n.children {
			switch {
			case c.role == "StaticText":
				if t := collapse(c.name); t != "" {
					parts = append(parts, t)
				}
			case c.ignored || hoisted[c.role]:
				if !visit(c) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	ok := visit(n)
	return strings.Join(parts, " "), ok
}

func (r *renderer) line(depth int, s string) {
	r.b.WriteString(strings.Repeat("  ", depth))
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}
