//go:build unix

package acp

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ReserveStdout reserves the protocol stream of an agent on stdio: it
// returns a private duplicate of file descriptor 1 for the ACP stream and
// points descriptor 1 and os.Stdout at stderr, so nothing else — a stray
// print, a library, a child process that inherits descriptor 1 — can write
// into the protocol. Call it once, first thing, in the agent's main.
func ReserveStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("reserve stdout: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("redirect stdout to stderr: %w", err)
	}
	os.Stdout = os.Stderr
	return os.NewFile(uintptr(fd), "acp-stdout"), nil
}
