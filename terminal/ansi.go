package terminal

import (
	"regexp"
	"strings"
	"sync"
)

// ansiRE matches ECMA-48 escape sequences: CSI (ESC [ or the 8-bit CSI),
// OSC, DCS/SOS/PM/APC strings, and the two- and three-byte escapes. Like
// the package's other patterns it is compiled on first use, not at start-up.
var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]` + // CSI
		`|\x{9b}[0-?]*[ -/]*[@-~]` + // 8-bit CSI
		`|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?` + // OSC, BEL or ST terminated
		`|\x1b[PX^_][^\x1b]*(?:\x1b\\)?` + // DCS, SOS, PM, APC
		`|\x1b[ -/]*[0-~]`) // nF, Fp, Fe, Fs escapes
})

// StripANSI removes terminal escape sequences from s, so the model never
// sees (and never copies into files) colours and cursor movements.
func StripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) && !strings.ContainsRune(s, 0x9b) {
		return s
	}
	return ansiRE().ReplaceAllString(s, "")
}
