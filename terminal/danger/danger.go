// Package danger classifies shell commands the way hermes-agent's
// tools/approval.py does — an unconditional hardline floor, the
// DANGEROUS_PATTERNS categories and their approval keys, hermes's
// normalisation against obfuscation — and adds a real shell parse: the
// rules are matched against every simple command the shell would run
// (inside pipelines, lists, $( ), backticks, subshells, functions, the
// scripts of bash -c and eval, the command after xargs, find -exec and
// wrappers such as sudo or env), so prose inside quotes handed to another
// command (git commit -m "rm -rf /") is not a command.
//
// The check fails closed: a word the walk cannot resolve to a literal where
// it names the program to run (the output of a command substitution, a
// variable the command did not set, a glob, an alias or array), code handed
// to an interpreter or piped into a shell, a script the same command
// writes, or a computed argument of a command whose arguments decide its
// danger is unknown, and unknown asks ([KeyHidden]) — unless every value it
// may take is one the walk knows and finds harmless.
//
// It is pure: no I/O beyond reading HOME, HERMES_HOME and the temporary
// folder's name.
package danger

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Verdict is the classification of one command string. The zero Verdict
// (Rules nil, no Needs) is a command that runs without asking.
//
// Rules lists every rule the command triggers, each once, by its approval
// key: the floor's first, then those that ask, in the rule table's order
// (hermes's DANGEROUS_PATTERNS, then this package's). A caller asks the
// user about every rule no allowlist entry or earlier approval covers, and
// an approval covers only the rules it names: approving "recursive delete"
// for a session does not approve the "git force push" in the same
// compound command.
type Verdict struct {
	// Hardline: some rule is on the unconditional floor; the command never
	// runs, whatever the approvals.
	Hardline bool
	// Dangerous: the command needs the user's approval (len(Rules) > 0).
	Dangerous bool
	// Rules are the rules the command triggers.
	Rules []Rule
	// Needs are what its programs usually need of the terminal sandbox
	// (the network, the credentials): the user is asked for them with
	// the command, whether or not it is dangerous.
	Needs Needs
	// ReadOnly: the command only reads (readonly.go) — every program it
	// runs is one known to change nothing, with arguments that keep it so,
	// no redirection writes a file and no rule asks. False when in doubt:
	// plan mode runs only read-only commands.
	ReadOnly bool
}

// Rule is one rule a command triggers.
type Rule struct {
	// Key is the approval key: hermes's pattern description (for its
	// rules), or this package's ([KeyHidden] and the like).
	Key string
	// Hardline: the rule is on the floor.
	Hardline bool
}

// Keys returns the verdict's approval keys, in order.
func (v Verdict) Keys() []string {
	keys := make([]string, len(v.Rules))
	for i, r := range v.Rules {
		keys[i] = r.Key
	}
	return keys
}

// Reasons returns the keys joined for one line of text ("recursive delete;
// git force push (rewrites remote history)").
func (v Verdict) Reasons() string { return strings.Join(v.Keys(), "; ") }

// Has reports whether the verdict names key (or the key hermes spelled it
// with).
func (v Verdict) Has(key string) bool {
	key = CanonicalKey(key)
	for _, r := range v.Rules {
		if r.Key == key {
			return true
		}
	}
	return false
}

// hardlineReasons returns the floor's keys joined.
func (v Verdict) hardlineReasons() string {
	var keys []string
	for _, r := range v.Rules {
		if r.Hardline {
			keys = append(keys, r.Key)
		}
	}
	return strings.Join(keys, "; ")
}

// Options say where a command runs, for the rules that depend on it
// (shred, wipefs or truncate of a file outside the workspace). The zero
// Options knows no workspace: relative paths that do not climb out with
// ".." are inside it, every other path is outside.
type Options struct {
	// Dir is the folder the command runs in (absolute), "" if not known.
	Dir string
	// Roots are the workspace's root folders (absolute).
	Roots []string
}

// maxCommand is hermes's parser limit: a longer command is refused outright.
const maxCommand = 128_000

// Check classifies command with the zero Options. It is safe for
// concurrent use.
func Check(command string) Verdict { return Options{}.Check(command) }

// Check classifies command as it would run in o's workspace. It is safe
// for concurrent use.
func (o Options) Check(command string) Verdict {
	t := rules()
	if len(command) > maxCommand {
		return Verdict{Hardline: true, Dangerous: true, Rules: []Rule{{Key: keyParserLimit, Hardline: true}}}
	}
	if isVerificationCleanup(command) {
		return Verdict{}
	}
	c := newCheck(&o)
	c.analyze(command, 0, nil)
	c.finish()
	var v Verdict
	for i, hit := range c.hit {
		if !hit {
			continue
		}
		hard := i < t.floor
		v.Rules = append(v.Rules, Rule{Key: t.keys[i], Hardline: hard})
		v.Hardline = v.Hardline || hard
	}
	v.Dangerous = len(v.Rules) > 0
	v.Needs = c.needs
	v.ReadOnly = strings.TrimSpace(command) != "" && !v.Dangerous && !c.mutates && len(c.writes) == 0 && !c.writesAny
	return v
}

// HardlineMessage is hermes's "BLOCKED (hardline): <desc>. This command is
// on the unconditional blocklist…" text for v, naming the floor's rules.
func HardlineMessage(v Verdict) string {
	return "BLOCKED (hardline): " + v.hardlineReasons() + ". This command is on the unconditional blocklist and " +
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

var verificationName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\Ahermes-(?:verify|ad-hoc)-[A-Za-z0-9_.-]+\z`) })

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
	if operand != filepath.Join(tmp, base) || !verificationName().MatchString(base) {
		return false
	}
	dir := filepath.Dir(operand)
	if r, err := filepath.EvalSymlinks(dir); err != nil || r != tmp {
		return false
	}
	return true
}
