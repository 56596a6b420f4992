package terminal

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// LandlockABI returns 0: Landlock exists only on Linux.
func LandlockABI() int { return 0 }

// SandboxMain is SandboxCommand: on macOS only the editor-terminal helper.
func SandboxMain(args []string, stderr io.Writer) int { return helperMain(args, stderr) }

// seatbeltGaps is what the Seatbelt sandbox leaves open compared with the
// Linux namespace sandbox.
var seatbeltGaps = []string{
	"processes that leave their process group (setsid, double fork) outlive their command",
	"the loopback network of the whole machine stays reachable without network",
	"host names resolve (DNS goes out through mDNSResponder) even without network",
	"the machine's /tmp is shared",
	"resource limits",
}

func (s *Sandbox) probe() Confinement {
	if s.Unconfined {
		return Confinement{Kind: KindOff}
	}
	if _, err := os.Stat(seatbeltExe); err != nil {
		return Confinement{Kind: KindNone, Reason: seatbeltExe + " is missing"}
	}
	return Confinement{Kind: KindSeatbelt, Reason: "macOS has no namespaces", Gaps: seatbeltGaps}
}

// newRunner runs the session's programs under sandbox-exec.
func (s *Sandbox) newRunner(ss *SandboxSession, dir string) (runner, Confinement, error) {
	c := s.probe()
	s.setConfinement(c)
	switch c.Kind {
	case KindOff:
		return groupRunner{}, c, nil
	case KindNone:
		return nil, c, errors.New(c.Summary())
	}
	writable := append(s.WritableDirs(ss.roots), os.TempDir(), "/tmp", filepath.Join(dir, "scratch"), filepath.Join(dir, "tmp"))
	if t := s.getenv("TMPDIR"); t != "" {
		writable = append(writable, t)
	}
	always, creds := s.hiddenPlaces()
	always = append(always, s.runDir())
	credPaths := creds
	return groupRunner{wrap: func(e Exec) []string {
		hidden := always
		if !e.Credentials {
			hidden = append(hidden[:len(hidden):len(hidden)], credPaths...)
		}
		profile := seatbeltProfile(seatbeltPolicy{Writable: writable, Hidden: hidden, Network: e.Network})
		return append([]string{seatbeltExe, "-p", profile}, e.Argv...)
	}}, c, nil
}
