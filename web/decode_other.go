//go:build !unix

package web

// limitMemory cannot set a hard limit here; the Go heap's soft limit
// (debug.SetMemoryLimit) is all there is.
func limitMemory(int64) {}
