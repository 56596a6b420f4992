package terminal

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The macOS sandbox: commands run under /usr/bin/sandbox-exec with a
// Seatbelt profile (SBPL) that states the Linux policy in Seatbelt's
// terms. Seatbelt decides by the most specific rule, a deny winning over
// an allow of the same specificity.

// seatbeltExe is macOS's sandbox-exec (an absolute path: never PATH's).
const seatbeltExe = "/usr/bin/sandbox-exec"

// seatbeltPolicy is what a profile says.
type seatbeltPolicy struct {
	// Writable are the folders commands may write (and change the
	// metadata of): roots, caches, the session's folders, the temporary
	// folders.
	Writable []string
	// Hidden are places commands may neither read nor write.
	Hidden []string
	// Network lets the command reach the network; without it only the
	// loopback and UNIX sockets in the writable folders work.
	Network bool
}

// seatbeltProfile returns the SBPL profile of p.
func seatbeltProfile(p seatbeltPolicy) string {
	var b strings.Builder
	b.WriteString(`(version 1)
; hermes-acp: the sandbox of the agent's commands (docs/tools.md).
(allow default)

; Files: read everywhere; write (content and metadata: mode, owner,
; times, extended attributes) only in the writable folders and devices.
(deny file-write*)
(allow file-write*
`)
	for _, d := range sortedPaths(p.Writable) {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(d))
	}
	b.WriteString(`  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper")
  (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (regex #"^/dev/fd/"))
`)
	if len(p.Hidden) > 0 {
		hidden := sortedPaths(p.Hidden)
		b.WriteString("\n; Hidden: $HERMES_HOME, the credential places, configured places.\n(deny file-read* file-write*\n")
		for _, d := range hidden {
			fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(d))
		}
		b.WriteString(")\n")
		// A writable folder inside a hidden place (the session's scratch
		// folder inside the sessions' folder) is allowed again after the
		// deny, so that it holds whether the later or the more specific
		// rule decides.
		var inside []string
		for _, w := range sortedPaths(p.Writable) {
			for _, h := range hidden {
				if strings.HasPrefix(w, h+"/") {
					inside = append(inside, w)
					break
				}
			}
		}
		if len(inside) > 0 {
			b.WriteString("(allow file-read* file-write*\n")
			for _, d := range inside {
				fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(d))
			}
			b.WriteString(")\n")
		}
	}
	b.WriteString(`
; Processes: signals only within this sandbox; no debugging of others.
(deny signal)
(allow signal (target same-sandbox))
(deny process-info* (target others))
(allow process-info* (target same-sandbox))
(deny mach-priv-task-port)
`)
	if !p.Network {
		b.WriteString(`
; Network: the loopback and local UNIX sockets only.
(deny network*)
(allow network* (local ip "localhost:*"))
(allow network-outbound (remote ip "localhost:*"))
(allow network-outbound (remote unix-socket (subpath "/private/var/run/mDNSResponder")))
`)
		for _, d := range sortedPaths(p.Writable) {
			fmt.Fprintf(&b, "(allow network* (remote unix-socket (subpath %s)))\n", sbplString(d))
		}
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// sortedPaths returns the absolute, cleaned paths of ps, sorted, once
// each; on macOS /tmp, /var and /etc are also named by their real folders
// under /private (Seatbelt matches real paths).
func sortedPaths(ps []string) []string {
	var out []string
	for _, p := range ps {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		out = append(out, p)
		for _, l := range []string{"/tmp", "/var", "/etc"} {
			if p == l || strings.HasPrefix(p, l+"/") {
				out = append(out, "/private"+p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
