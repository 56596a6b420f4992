// Package danger classifies shell commands the way hermes-agent's
// tools/approval.py does — an unconditional hardline floor, the
// DANGEROUS_PATTERNS categories and their approval keys, hermes's
// normalisation against obfuscation — and adds a real shell parse: the
// rules are matched against every simple command the shell would run
// (inside pipelines, lists, $( ), backticks, subshells, functions, the
// scripts of bash -c and eval, the command after xargs, find -exec and
// wrappers such as sudo or env), so prose inside quotes handed to another
// command (git commit -m "rm -rf /") is not a command. It is pure: no I/O
// beyond reading HOME, HERMES_HOME and the temp directory's name.
package danger

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Verdict is the classification of one command string.
type Verdict struct {
	Hardline    bool   // on the unconditional floor: never runs, whatever the approvals
	Dangerous   bool   // matches a DANGEROUS_PATTERNS entry (or Hardline)
	Key         string // the approval key: the matched pattern's description (hermes's pattern key); "" if safe
	Description string // human words for the finding (for hardline: its description)
}

// maxCommand is hermes's parser limit: a longer command is refused outright.
const maxCommand = 128_000

// Check classifies command. The first hardline rule that matches wins;
// otherwise the first DANGEROUS_PATTERNS rule (in hermes's order) that
// matches gives the key. A command the shell parser refuses is judged by
// the regexes over the whole normalised string (fail closed).
func Check(command string) Verdict {
	loadRules()
	if len(command) > maxCommand {
		return Verdict{Hardline: true, Dangerous: true, Key: keyParserLimit, Description: keyParserLimit}
	}
	if isVerificationCleanup(command) {
		return Verdict{}
	}
	f := newFindings()
	analyze(command, 0, f)
	for i, hit := range f.hard {
		if hit {
			d := hardline[i].key
			return Verdict{Hardline: true, Dangerous: true, Key: d, Description: d}
		}
	}
	for i, hit := range f.dang {
		if hit {
			d := dangerous[i].key
			return Verdict{Dangerous: true, Key: d, Description: d}
		}
	}
	return Verdict{}
}

// HardlineMessage is hermes's "BLOCKED (hardline): <desc>. This command is
// on the unconditional blocklist…" text for v.
func HardlineMessage(v Verdict) string {
	return "BLOCKED (hardline): " + v.Description + ". This command is on the unconditional blocklist and " +
		"cannot be executed via the agent — not even with --yolo, /yolo, approvals.mode=off, or cron approve " +
		"mode. If you genuinely need to run it, run it yourself in a terminal outside the agent."
}

// DeniedMessage is hermes's text for a command the user denied (also after
// a timeout, a cancel or an error of the permission request).
func DeniedMessage() string {
	return "BLOCKED: User denied this command. The user has NOT consented to this action. Do NOT retry this " +
		"command, do NOT rephrase it, and do NOT attempt the same outcome via a different command. Stop the " +
		"current workflow and wait for the user to respond before taking any further destructive or " +
		"irreversible action."
}

var shellOperator = regexp.MustCompile("(?:\\n|&&|\\|\\||[;&|<>`]|\\$\\()")

// HasShellOperators reports whether command has shell operators (newline,
// &&, ||, ; & | < > backtick, $( ) — hermes's rule for allowlist matching:
// such a command is too compound for an exact or glob entry.
func HasShellOperators(command string) bool {
	return shellOperator.MatchString(command)
}

// Allowed reports whether a command_allowlist approves command: an entry
// equal to the command, a glob (*?[) matching it (hermes's fnmatchcase:
// * and ? cross /, [!…] negates, case-sensitive), a prefix entry
// (PrefixEntry) matching it or its bare prefix, or — for a dangerous
// command — an entry equal to its Verdict.Key (hermes stores pattern keys on
// "allow always"). Exact, glob and prefix entries only apply to commands
// without shell operators. Nothing approves a hardline command.
func Allowed(command string, v Verdict, allowlist []string) bool {
	if v.Hardline {
		return false
	}
	command = strings.TrimSpace(command)
	simple := command != "" && !HasShellOperators(command)
	for _, e := range allowlist {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if v.Dangerous && e == v.Key {
			return true
		}
		if !simple {
			continue
		}
		if command == e {
			return true
		}
		if p, ok := strings.CutSuffix(e, " *"); ok && !strings.ContainsAny(p, "*?[") {
			// a prefix entry: the command word(s), however they are spaced
			words := strings.Join(strings.Fields(command), " ")
			if words == p || strings.HasPrefix(words, p+" ") {
				return true
			}
		}
		if strings.ContainsAny(e, "*?[") && fnmatch(e, command) {
			return true
		}
	}
	return false
}

// fnmatch is Python's fnmatch.fnmatchcase: the whole name must match; *
// matches anything (slashes too), ? one character, [seq] / [!seq] a class.
func fnmatch(pattern, name string) bool {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(pattern) && pattern[j] == '!' {
				j++
			}
			if j < len(pattern) && pattern[j] == ']' {
				j++
			}
			for j < len(pattern) && pattern[j] != ']' {
				j++
			}
			if j >= len(pattern) {
				b.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : j]
			class = strings.ReplaceAll(class, `\`, `\\`)
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			} else if strings.HasPrefix(class, "^") {
				class = `\` + class
			}
			b.WriteString("[" + class + "]")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return false
	}
	return re.MatchString(name)
}

// multiWord are the tools whose second word is a subcommand that says what
// they do (git push, go test, npm install …).
var multiWord = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
	"cargo": true, "rustup": true, "docker": true, "docker-compose": true, "podman": true,
	"kubectl": true, "helm": true, "terraform": true, "gh": true, "pip": true, "pip3": true,
	"uv": true, "poetry": true, "conda": true, "brew": true, "apt": true, "apt-get": true,
	"dnf": true, "yum": true, "systemctl": true, "gcloud": true, "aws": true, "az": true,
	"dotnet": true, "mvn": true, "gradle": true, "make": true, "composer": true, "bundle": true,
	"rake": true, "mix": true, "nix": true, "flutter": true, "swift": true, "hermes": true,
}

// noPrefix are commands whose name alone says nothing about what runs
// (wrappers and shells): no prefix is offered for them.
var noPrefix = map[string]bool{
	"sudo": true, "doas": true, "su": true, "env": true, "exec": true, "eval": true, "command": true,
	"builtin": true, "nohup": true, "setsid": true, "time": true, "nice": true, "timeout": true,
	"xargs": true, "stdbuf": true, "ionice": true, "chrt": true, "taskset": true, "busybox": true,
	"bash": true, "sh": true, "zsh": true, "ksh": true, "dash": true, "fish": true, "source": true,
	".": true, "watch": true, "find": true,
}

// Prefix returns the command prefix offered as "always allow commands
// starting with <prefix>": the command word plus its subcommand for a known
// multi-word tool ("git push", "go test"), the command word otherwise
// ("rm"). ok is false when the command has shell operators, starts with an
// assignment, quotes or expansions, is a wrapper or a shell (sudo, env,
// bash …), or a multi-word tool is followed by an option instead of a
// subcommand.
func Prefix(command string) (prefix string, ok bool) {
	command = strings.TrimSpace(command)
	if command == "" || HasShellOperators(command) {
		return "", false
	}
	fields := strings.Fields(command)
	first := fields[0]
	if strings.ContainsAny(first, "'\"$\\`=*?[{") || noPrefix[commandName(first)] {
		return "", false
	}
	if !multiWord[first] {
		return first, true
	}
	if len(fields) < 2 {
		return first, true
	}
	second := fields[1]
	if strings.HasPrefix(second, "-") || strings.ContainsAny(second, "'\"$\\`=*?[{") {
		return "", false
	}
	return first + " " + second, true
}

// PrefixEntry is the allowlist entry that stores an "always allow commands
// starting with <prefix>" answer: the glob "<prefix> *" (Allowed also lets
// it match the bare prefix).
func PrefixEntry(prefix string) string {
	return prefix + " *"
}

var verificationName = regexp.MustCompile(`\Ahermes-(?:verify|ad-hoc)-[A-Za-z0-9_.-]+\z`)

// isVerificationCleanup is hermes's one exemption: exactly
// `rm -f <tmpdir>/hermes-(verify|ad-hoc)-<name>` in the canonical temp
// directory removes a script hermes wrote itself.
func isVerificationCleanup(command string) bool {
	fields := strings.Fields(command)
	if len(fields) != 3 || fields[0] != "rm" || fields[1] != "-f" {
		return false
	}
	operand := fields[2]
	if strings.ContainsAny(operand, "'\"$`\\;&|<>(){}*?[") {
		return false
	}
	tmp := os.TempDir()
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	base := filepath.Base(operand)
	if operand != filepath.Join(tmp, base) || !verificationName.MatchString(base) {
		return false
	}
	dir := filepath.Dir(operand)
	if r, err := filepath.EvalSymlinks(dir); err != nil || r != tmp {
		return false
	}
	return true
}
