//go:build unix && !linux && !darwin

package terminal

import (
	"errors"
	"io"
)

// LandlockABI returns 0: Landlock exists only on Linux.
func LandlockABI() int { return 0 }

// SandboxMain is SandboxCommand: here only the editor-terminal helper.
func SandboxMain(args []string, stderr io.Writer) int { return helperMain(args, stderr) }

func (s *Sandbox) probe() Confinement {
	if s.Unconfined {
		return Confinement{Kind: KindOff}
	}
	return Confinement{Kind: KindNone, Reason: "this system has no sandbox the agent knows (Linux and macOS have)"}
}

// newRunner runs programs unconfined when the sandbox is off, else
// refuses.
func (s *Sandbox) newRunner(ss *SandboxSession, dir string) (runner, Confinement, error) {
	c := s.probe()
	s.setConfinement(c)
	if c.Kind == KindOff {
		return groupRunner{}, c, nil
	}
	return nil, c, errors.New(c.Summary())
}
