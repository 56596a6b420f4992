package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// What the browser_* tools share: the session's browser, made on first use
// and closed with the session, and the results hermes's browser tools
// return ({"success": true, …} or {"success": false, "error": …}).

// browserToolset is the toolset of the browser tools.
const browserToolset = "browser"

// browserSession is a session's browser, made on the first browser call.
type browserSession struct {
	mu sync.Mutex
	b  *browser.Browser
}

// browserDeps is what the browser tools use of their session: its browser
// (made on first use, closed with the session), the one check of whether
// it can run (a browser can be found), and the tools it offers (hints name
// only those).
type browserDeps interface {
	// Browser returns the session's browser, made (not started yet) on
	// first use; nil when the session has no browser set.
	Browser() *browser.Browser
	// BrowserCheck is the availability of the session's browser tools,
	// one check for all of them: their one availability rule (each
	// declares SharedCheck: <its deps>.BrowserCheck), so a pass over the
	// registry looks for the browser once.
	BrowserCheck() *registry.Check
	Enabled(tool string) bool
}

// browserCheck is the availability of the browser tools before a session
// binds them: a browser found in PATH or the usual install locations. The
// browser tools share it, so a pass over the registry looks once.
var browserCheck = registry.NewCheck(func() error {
	_, err := browser.Find("")
	return err
})

// noBrowserCheck is the browser tools' check in a session without a browser
// set.
var noBrowserCheck = registry.Unavailable("no browser configured for this session")

// BrowserCheck returns the availability check of the browser tools for a
// configured browser.executable ("" finds one): the composition root sets
// it on the declared entries so that `hermes-acp tools` honours the
// setting.
func BrowserCheck(executable string) *registry.Check {
	return registry.NewCheck(func() error {
		_, err := browser.Find(executable)
		return err
	})
}

// WithBrowserCheck returns entries with the browser tools' check replaced
// by check.
func WithBrowserCheck(entries []registry.Entry, check *registry.Check) []registry.Entry {
	for i := range entries {
		if entries[i].Toolset == browserToolset {
			entries[i].Check = check
		}
	}
	return entries
}

// browserFail is hermes's failed browser result.
type browserFail struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
}

// browserError returns the failed result for err, in words the model can
// act on.
func browserError(s browserDeps, err error, ref string) registry.Result {
	return registry.Failed(browserFail{Error: browserMessage(s, err, ref)})
}

// browserMessage is the message of err, hints naming only the tools s
// offers.
func browserMessage(s browserDeps, err error, ref string) string {
	var blocked *browser.BlockedError
	var evalErr *browser.EvalError
	switch {
	case errors.As(err, &blocked):
		return err.Error()
	case errors.As(err, &evalErr):
		return evalErr.Message
	case errors.Is(err, browser.ErrNoPage):
		return "No page is open in the browser." + hint(s, browserNavigateName, " Call browser_navigate first.")
	case errors.Is(err, browser.ErrStaleRef):
		if ref == "" {
			ref = "the ref"
		}
		return fmt.Sprintf("Element %s is stale or unknown: the page changed since the last snapshot.", atRef(ref)) +
			hint(s, browserSnapshotName, " Call browser_snapshot to get fresh refs.")
	case errors.Is(err, browser.ErrLost):
		return fmt.Sprintf("The browser was lost (%s). The next browser call starts a new browser;", strings.TrimPrefix(err.Error(), browser.ErrLost.Error()+": ")) +
			" the page is gone" + hint(s, browserNavigateName, ": call browser_navigate to open it again") + "."
	case errors.Is(err, browser.ErrNavTimeout):
		return fmt.Sprintf("Navigation timed out after %s; loading was stopped and the page stays as far as it got.", browser.DefaultNavTimeout)
	case errors.Is(err, browser.ErrDialog):
		return "A JavaScript dialog is open and blocks the page." + hint(s, browserDialogName, " Answer it with browser_dialog first.")
	case errors.Is(err, browser.ErrClosed):
		return "The browser of this session has been closed."
	}
	return err.Error()
}

// hint returns text when tool is enabled in the session.
func hint(s browserDeps, tool, text string) string {
	if s.Enabled(tool) {
		return text
	}
	return ""
}

// atRef returns ref with its leading @.
func atRef(ref string) string {
	ref = strings.TrimSpace(ref)
	if !strings.HasPrefix(ref, "@") {
		ref = "@" + ref
	}
	return ref
}

// noBrowser is the result when the session has no browser.
func noBrowser() registry.Result {
	return registry.Failed(browserFail{Error: browser.ErrNotFound.Error()})
}

// dialogsOf returns the dialogs pending in b (an action can open one).
func dialogsOf(b *browser.Browser) []browser.Dialog { return b.Dialogs() }

// firstLine returns the first non-blank line of s, cut at n characters.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			s = l
			break
		}
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// browserPreview shows the call's arguments as pretty JSON (hermes's
// start content of its browser tools); nothing for a call without any.
func browserPreview(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return ""
	}
	return clipRunes(string(b), 1200)
}

// browserRender shows a snapshot in a fence; other results render
// generically.
func browserRender(_ map[string]any, r registry.Result) string {
	var snap string
	switch v := r.Value.(type) {
	case browserNavigateResult:
		snap = v.Snapshot
		if snap == "" {
			return ""
		}
		snap = fmt.Sprintf("%s — %s\n\n", v.Title, v.URL) + fenced(snap) + blockedText(v.BlockedRequests)
	case browserSnapshotResult:
		snap = fmt.Sprintf("%s — %s (%d elements)\n\n", v.Title, v.URL, v.ElementCount) + fenced(v.Snapshot)
	}
	return snap
}

// blockedText lists the requests the URL policy refused, for the editor
// ("" when none).
func blockedText(rs []browser.Refusal) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nRefused by the URL policy (%d):", len(rs))
	for _, r := range rs {
		fmt.Fprintf(&b, "\n- %s — %s", r.URL, strings.TrimPrefix(r.Reason, "refused: "))
	}
	return b.String()
}

func fenced(s string) string {
	f := fence(s)
	return f + "\n" + s + "\n" + f
}

// named returns a title function giving the tool's name.
func named(name string) func(map[string]any) string {
	return func(map[string]any) string { return name }
}
