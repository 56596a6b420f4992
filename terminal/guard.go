package terminal

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The foreground guards are hermes-agent's (tools/terminal_tool.py).

var (
	shellBackgroundRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)(?:^|[;&|]\s*|&&\s*|\|\|\s*|\$\(\s*)(?:nohup|disown|setsid)\b`)
	})
	inlineBackgroundRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s&\s`) })
	trailingBackgroudRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s&\s*(?:#.*)?$`) })
	singleQuotedRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'[^']*'`) })
	doubleQuotedRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })
	backtickRE          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`]*`") })
	longLivedRE         = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`(?i)\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|watch)\b`),
			regexp.MustCompile(`(?i)\bdocker\s+compose\s+up\b`),
			regexp.MustCompile(`(?i)\bnext\s+dev\b`),
			regexp.MustCompile(`(?i)\bvite(?:\s|$)`),
			regexp.MustCompile(`(?i)\bnodemon\b`),
			regexp.MustCompile(`(?i)\buvicorn\b`),
			regexp.MustCompile(`(?i)\bgunicorn\b`),
			regexp.MustCompile(`(?i)\bpython(?:3)?\s+-m\s+http\.server\b`),
		}
	})
	workdirSafeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9/\\:_\-.~ +@=,]+$`) })
)

// Hermes's guidance for foreground commands that would not return.
const (
	guidanceWrappers = "Foreground command uses shell-level background wrappers (nohup/disown/setsid). " +
		"Use terminal(background=true) so Hermes can track the process, then run " +
		"readiness checks and tests in separate commands."
	guidanceAmpersand = "Foreground command uses '&' backgrounding. Use terminal(background=true) for long-lived " +
		"processes, then run health checks and tests in follow-up terminal calls."
	guidanceServer = "This foreground command appears to start a long-lived server/watch process. " +
		"Run it with background=true, verify readiness (health endpoint/log signal), " +
		"then execute tests in a separate command."
)

// stripQuotes empties quoted strings so words inside them (a commit
// message, python -c code) are not taken for commands.
func stripQuotes(command string) string {
	s := singleQuotedRE().ReplaceAllString(command, "''")
	s = doubleQuotedRE().ReplaceAllString(s, `""`)
	return backtickRE().ReplaceAllString(s, "``")
}

// helpOrVersion reports an informational invocation (--help, -h,
// --version, -v), which is never refused.
func helpOrVersion(command string) bool {
	n := strings.Join(strings.Fields(strings.ToLower(command)), " ")
	return strings.Contains(n, " --help") || strings.HasSuffix(n, " -h") ||
		strings.Contains(n, " --version") || strings.HasSuffix(n, " -v")
}

// LongLivedGuidance returns hermes's advice when a foreground command
// looks like it would not return (a server, a watcher, nohup, disown,
// setsid or a backgrounding '&'), or "" when it may run in the foreground.
func LongLivedGuidance(command string) string {
	if helpOrVersion(command) {
		return ""
	}
	u := stripQuotes(command)
	if shellBackgroundRE().MatchString(u) {
		return guidanceWrappers
	}
	if inlineBackgroundRE().MatchString(u) || trailingBackgroudRE().MatchString(u) {
		return guidanceAmpersand
	}
	for _, re := range longLivedRE() {
		if re.MatchString(u) {
			return guidanceServer
		}
	}
	return ""
}

// CheckWorkdir returns hermes's refusal of a workdir holding a character
// that is not plausible in a path (shell metacharacters), or "".
func CheckWorkdir(dir string) string {
	if dir == "" || workdirSafeRE().MatchString(dir) {
		return ""
	}
	for _, r := range dir {
		if !workdirSafeRE().MatchString(string(r)) {
			return fmt.Sprintf("Blocked: workdir contains disallowed character %s. "+
				"Use a simple filesystem path without shell metacharacters.", pyRepr(r))
		}
	}
	return "Blocked: workdir contains disallowed characters."
}

// pyRepr writes a one-character string as Python's repr does for the
// common cases ('$', '\n', "'").
func pyRepr(r rune) string {
	switch r {
	case '\'':
		return `"'"`
	case '\n':
		return `'\n'`
	case '\t':
		return `'\t'`
	case '\r':
		return `'\r'`
	case '\\':
		return `'\\'`
	}
	if r < 0x20 || r == 0x7f {
		return fmt.Sprintf(`'\x%02x'`, r)
	}
	return "'" + string(r) + "'"
}

// NeedsPipedStdin reports a command that breaks on a PTY because it reads
// its input until EOF (gh auth login --with-token): hermes runs it
// without one.
func NeedsPipedStdin(command string) bool {
	n := strings.Join(strings.Fields(strings.ToLower(command)), " ")
	return strings.HasPrefix(n, "gh auth login") && strings.Contains(n, "--with-token")
}

// PTYDisabledNote is hermes's note when NeedsPipedStdin dropped the PTY.
const PTYDisabledNote = "PTY disabled for this command because it expects piped stdin/EOF " +
	"(for example gh auth login --with-token). For local background " +
	"processes, call process(action='close') after writing so it receives " +
	"EOF."
