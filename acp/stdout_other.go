//go:build !unix

package acp

import "os"

// ReserveStdout returns stdout for the protocol and points os.Stdout at
// stderr, so stray prints cannot corrupt the stream.
func ReserveStdout() (*os.File, error) {
	wire := os.Stdout
	os.Stdout = os.Stderr
	return wire, nil
}
