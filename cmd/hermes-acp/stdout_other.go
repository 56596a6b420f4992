//go:build !unix

package main

import "os"

// guardStdout returns stdout for the protocol and points os.Stdout at
// stderr, so stray prints cannot corrupt the stream.
func guardStdout() (*os.File, error) {
	wire := os.Stdout
	os.Stdout = os.Stderr
	return wire, nil
}
