package danger

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// prepare is the part of hermes's normalisation that keeps shell syntax
// intact, so the result can still be parsed: ANSI escape sequences, NUL
// bytes (and the control bytes the walk uses as markers) go, full-width and other compatibility characters fold to their
// plain forms (NFKC), backslash-newline continuations join, and absolute
// home / HERMES_HOME prefixes fold back to ~/ and ~/.hermes/.
func prepare(command string) string {
	command = stripANSI(command)
	if strings.ContainsAny(command, "\x00\x01\x02\x03") {
		// NUL, as hermes; and the walk's own markers (expand.go).
		command = strings.Map(func(r rune) rune {
			if r <= 3 {
				return -1
			}
			return r
		}, command)
	}
	if !isASCII(command) {
		command = norm.NFKC.String(command)
	}
	command = continuation().ReplaceAllString(command, "")
	return foldHomes(command)
}

var continuation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\\r?\n`) })

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// flatten finishes hermes's normalisation on a prepared string: backslash
// escapes inside words are dropped (r\m → rm), empty quotes that split a word
// go (r""m → rm), $IFS and ${IFS…} become a space, and everything is
// lowercased. The result is no longer shell; it is only matched.
func flatten(s string) string {
	s = backslashEscape().ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "''", "")
	s = strings.ReplaceAll(s, `""`, "")
	s = ifsExpansion().ReplaceAllString(s, " ")
	return strings.ToLower(s)
}

var (
	backslashEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\([^\n])`) })
	ifsExpansion    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{IFS\b[^}]*\}|\$IFS\b`) })
)

// stripANSI removes ECMA-48 escape sequences: CSI (ESC [ … final, and the
// 8-bit CSI U+009B), OSC, DCS, SOS, PM and APC strings (up to BEL or ST),
// two-character ESC sequences, and the remaining C1 control characters.
func stripANSI(s string) string {
	if !strings.ContainsAny(s, "\x1b") && isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1b && i+1 < len(rs):
			next := rs[i+1]
			switch {
			case next == '[':
				i = skipCSI(rs, i+2)
			case next == ']' || next == 'P' || next == 'X' || next == '^' || next == '_':
				i = skipString(rs, i+2)
			case next >= 0x20 && next <= 0x7e:
				i++ // a two-character escape (ESC 7, ESC =, ESC c …)
			}
		case r == 0x1b:
			// a lone trailing ESC
		case r == 0x9b:
			i = skipCSI(rs, i+1)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
			i = skipString(rs, i+1)
		case r >= 0x80 && r <= 0x9f:
			// other C1 controls
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// skipCSI returns the index of the final byte of a control sequence whose
// parameters start at i (or the last index when it never ends).
func skipCSI(rs []rune, i int) int {
	for ; i < len(rs); i++ {
		if rs[i] >= 0x40 && rs[i] <= 0x7e {
			return i
		}
		if rs[i] < 0x20 || rs[i] > 0x3f && rs[i] < 0x40 {
			return i - 1
		}
	}
	return len(rs) - 1
}

// skipString returns the index of the terminator (BEL, ST = ESC \ or U+009C)
// of a control string whose body starts at i.
func skipString(rs []rune, i int) int {
	for ; i < len(rs); i++ {
		switch {
		case rs[i] == 0x07 || rs[i] == 0x9c:
			return i
		case rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\':
			return i + 1
		}
	}
	return len(rs) - 1
}

// foldHomes rewrites absolute prefixes of the Hermes home and of the user's
// home to ~/.hermes and ~ (POSIX and Windows separators), so the patterns
// written against ~/.ssh, ~/.bashrc or ~/.hermes/config.yaml also see
// /home/alice/.ssh/… — hermes resolves them at detection time too.
func foldHomes(s string) string {
	if !strings.ContainsAny(s, `/\`) {
		return s
	}
	for _, f := range homeFolds() {
		if !strings.Contains(s, f.needle) {
			continue
		}
		s = f.re.ReplaceAllStringFunc(s, func(m string) string {
			sub := f.re.FindStringSubmatch(m)
			return f.to + strings.ReplaceAll(sub[1], `\`, "/")
		})
	}
	return s
}

type homeFold struct {
	re     *regexp.Regexp
	to     string
	needle string // the path's last component: no fold without it
}

var (
	foldMu    sync.Mutex
	foldKey   string
	foldCache []homeFold
)

// homeFolds returns the folds for the current HOME and HERMES_HOME, built
// once per distinct pair of values.
func homeFolds() []homeFold {
	home := os.Getenv("HOME")
	if h, err := os.UserHomeDir(); err == nil && home == "" {
		home = h
	}
	hermes := os.Getenv("HERMES_HOME")
	if hermes == "" && home != "" {
		hermes = filepath.Join(home, ".hermes")
	}
	key := home + "\x00" + hermes
	foldMu.Lock()
	defer foldMu.Unlock()
	if key == foldKey && foldCache != nil {
		return foldCache
	}
	var folds []homeFold
	add := func(paths []string, to string) {
		seen := map[string]bool{}
		for _, p := range paths {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			if re := prefixRegexp(p); re != nil {
				folds = append(folds, homeFold{re, to, filepath.Base(strings.ReplaceAll(p, `\`, "/"))})
			}
		}
	}
	// The Hermes home first: it usually sits under the user's home.
	add([]string{hermes, realpath(hermes)}, "~/.hermes")
	add([]string{home, realpath(home)}, "~")
	foldKey, foldCache = key, folds
	return folds
}

func realpath(p string) string {
	if p == "" {
		return ""
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// prefixRegexp matches path used as a directory prefix followed by at least
// one more path segment; a degenerate path (fewer than two components, like
// "/" or "C:\") folds nothing.
func prefixRegexp(path string) *regexp.Regexp {
	var comps []string
	for _, c := range regexp.MustCompile(`[/\\]+`).Split(path, -1) {
		if c != "" {
			comps = append(comps, regexp.QuoteMeta(c))
		}
	}
	if len(comps) < 2 {
		return nil
	}
	const stop = "\\s'\"`;|&<>()"
	return regexp.MustCompile(`[/\\]*` + strings.Join(comps, `[/\\]+`) + `((?:[/\\][^/\\` + stop + `]*)+)`)
}
