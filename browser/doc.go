// Package browser drives one headless Chromium (or Chrome) per agent session
// over the Chrome DevTools Protocol, with chromedp: it finds the browser
// executable, starts it lazily with a fresh temporary profile, reads the
// page's accessibility tree as compact text with element refs (@e1, @e2…),
// and performs the actions the browser tools offer (navigate, click, type,
// scroll, back, press, images, screenshots, console, evaluation, raw CDP
// calls, dialogs).
//
// A [Browser] is one session's browser. It starts the process on first use
// and stops it (killing every process of it and removing the profile) on
// Close, after its idle timeout, or when the [Set] that made it closes. A
// browser that crashes or is killed is reported once ([ErrLost]) and the
// next call starts a new one.
//
// A snapshot walks the page in the agent's own isolated world of the main
// frame (page scripts cannot see it), taking each element's role and name
// from Blink's accessibility engine (Element.computedRole and
// computedName, which the browser is started with), so it shows what the
// accessibility tree shows at a fraction of its cost: the tree itself is
// serialised node by node, inline text boxes included. A browser without
// computedRole (a browser.executable of another build) gets the
// accessibility tree read with Accessibility.getFullAXTree instead.
//
// Refs name the interactive elements of the latest snapshot, numbered in
// document order, so the same page always gets the same refs. They stay
// valid until the page navigates to a new document; a ref whose element has
// left the page, or that a newer snapshot no longer lists, is stale
// ([ErrStaleRef]) and the caller should take a new snapshot.
package browser
