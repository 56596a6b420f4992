//go:build !linux

package terminal

import (
	"fmt"
	"io"
)

// LandlockABI returns 0: Landlock exists only on Linux.
func LandlockABI() int { return 0 }

// SandboxMain refuses: there is no sandbox on this system.
func SandboxMain(args []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "hermes-acp %s: the sandbox needs Linux (Landlock)\n", SandboxCommand)
	return 126
}

// startSandboxed calls start: there is no sandbox on this system.
func startSandboxed(writable []string, start func() error) error { return start() }
