package browser

// AXSnapshot returns opts with snapshots read from the accessibility tree,
// as with a browser that has no Element.computedRole.
func AXSnapshot(opts Options) Options {
	opts.axSnapshot = true
	return opts
}
