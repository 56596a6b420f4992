//go:build !unix

package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// errNoCommands is the refusal of every command on systems without Unix
// process groups.
var errNoCommands = errors.New("running commands is supported on Linux and macOS only")

// LandlockABI returns 0: Landlock exists only on Linux.
func LandlockABI() int { return 0 }

// SandboxMain refuses: there is no sandbox on this system.
func SandboxMain(args []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "hermes-acp %s: %v\n", SandboxCommand, errNoCommands)
	return 126
}

func (s *Sandbox) probe() Confinement {
	return Confinement{Kind: KindNone, Reason: errNoCommands.Error()}
}

// SandboxSession is a session's sandbox; on this system it refuses every
// program.
type SandboxSession struct{}

// NewSession returns a session sandbox that refuses every program.
func (s *Sandbox) NewSession(roots []string) *SandboxSession { return &SandboxSession{} }

// Confinement reports that programs cannot run here.
func (ss *SandboxSession) Confinement() Confinement {
	return Confinement{Kind: KindNone, Reason: errNoCommands.Error()}
}

// Note returns "": programs are refused, which says it.
func (ss *SandboxSession) Note() string { return "" }

// Scratch fails: programs cannot run here.
func (ss *SandboxSession) Scratch() (string, error) { return "", errNoCommands }

// Start refuses.
func (ss *SandboxSession) Start(ctx context.Context, e Exec) (*Proc, error) {
	return nil, errNoCommands
}

// EditorCommand refuses.
func (ss *SandboxSession) EditorCommand(e Exec, shown string) ([]string, func(), error) {
	return nil, nil, errNoCommands
}

// Close does nothing.
func (ss *SandboxSession) Close() error { return nil }

// ShellQuote quotes s as one word for a POSIX shell.
func ShellQuote(s string) string { return "'" + s + "'" }
