package danger

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

var shellOperator = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?:\\n|&&|\\|\\||[;&|<>`]|\\$\\()") })

// HasShellOperators reports whether command has shell operators (newline,
// &&, ||, ; & | < > backtick, $( ) — hermes's rule for allowlist matching:
// such a command is too compound for a pattern entry.
func HasShellOperators(command string) bool {
	return shellOperator().MatchString(command)
}

// An allowlist entry (config command_allowlist, and what "always allow"
// stores) is one of:
//
//   - an approval key ("recursive delete", hermes's spellings too): it
//     covers that rule in every command;
//   - a command ("rm -rf build"): a command equal to it (spaces around
//     trimmed) has the same rules, and the entry covers them all;
//   - a pattern with wildcards ("rm -rf build/*", "git push --force *"):
//     it matches a simple command of plain words (no operators, quotes or
//     expansions) word by word — * and ? stay inside one word, a word
//     matched by a wildcard may not climb out with "..", "dir/*" also
//     matches "dir", and a last " *" matches any further words — and it
//     covers the rules of its own text up to the first wildcard
//     ("rm -rf build/" is a recursive delete), never more.
//
// So an entry covers only its own rules: "rm -rf build/*" approves
// recursive deletes below build, not the "git force push" of a command
// that also pushes, and "git push *" (a hand-written hermes glob) covers
// nothing, because "git push" alone is not dangerous.

// Uncovered returns the rules of v (the verdict of command) that no entry
// of allowlist and no key in approved covers, in v's order. A hardline
// rule is never covered.
func Uncovered(command string, v Verdict, allowlist, approved []string) []Rule {
	covered := map[string]bool{}
	for _, k := range approved {
		covered[CanonicalKey(k)] = true
	}
	command = strings.TrimSpace(command)
	for _, e := range allowlist {
		for _, k := range entryCovers(e, command, v) {
			covered[k] = true
		}
	}
	var out []Rule
	for _, r := range v.Rules {
		if r.Hardline || !covered[r.Key] {
			out = append(out, r)
		}
	}
	return out
}

// IsKey reports whether s is an approval key this package reports (or
// hermes's spelling of one).
func IsKey(s string) bool {
	_, ok := rules().index[CanonicalKey(s)]
	return ok
}

// Kinds of allowlist entries (EntryRules).
const (
	EntryKey     = "danger"
	EntryCommand = "command"
	EntryPattern = "pattern"
)

// EntryRules says what an allowlist entry is (EntryKey, EntryCommand or
// EntryPattern) and the keys of the rules it covers in the commands it
// matches (for a command: the rules of that command; for a pattern: those
// of its text up to the first wildcard).
func EntryRules(entry string) (kind string, keys []string) {
	e := strings.TrimSpace(entry)
	switch {
	case IsKey(e):
		return EntryKey, []string{CanonicalKey(e)}
	case strings.ContainsAny(e, "*?["):
		lit := strings.TrimSpace(e[:strings.IndexAny(e, "*?[")])
		if lit == "" {
			return EntryPattern, nil
		}
		return EntryPattern, Check(lit).Keys()
	}
	return EntryCommand, Check(e).Keys()
}

// entryCovers returns the keys entry e covers for command (whose verdict
// is v).
func entryCovers(e, command string, v Verdict) []string {
	e = strings.TrimSpace(e)
	switch {
	case e == "":
		return nil
	case e == command:
		return v.Keys()
	case IsKey(e):
		return []string{CanonicalKey(e)}
	case !strings.ContainsAny(e, "*?["):
		return nil
	}
	if !plainCommand(command) || !matchWords(strings.Fields(e), strings.Fields(command)) {
		return nil
	}
	lit := e[:strings.IndexAny(e, "*?[")]
	if strings.TrimSpace(lit) == "" {
		return nil
	}
	return Check(lit).Keys()
}

// plainWord matches a word with no shell syntax in it.
var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,^~-]+$`) })

// plainCommand reports a command of plain words only.
func plainCommand(command string) bool {
	if command == "" || HasShellOperators(command) {
		return false
	}
	for _, w := range strings.Fields(command) {
		if !plainWord().MatchString(w) {
			return false
		}
	}
	return true
}

// matchWords matches a pattern's words against a command's.
func matchWords(pattern, words []string) bool {
	for i, p := range pattern {
		if p == "*" && i == len(pattern)-1 {
			for _, w := range words[min(i, len(words)):] {
				if climbs(w) {
					return false
				}
			}
			return true
		}
		if i >= len(words) {
			return false
		}
		w := words[i]
		if !strings.ContainsAny(p, "*?[") {
			if p != w {
				return false
			}
			continue
		}
		if climbs(w) {
			return false
		}
		if dir, ok := strings.CutSuffix(p, "/*"); ok && !strings.ContainsAny(dir, "*?[") && strings.TrimSuffix(w, "/") == dir {
			continue
		}
		if ok, err := path.Match(p, w); (err != nil || !ok) && !matchAcrossSlashes(p, w) {
			return false
		}
	}
	return len(words) == len(pattern)
}

// matchAcrossSlashes lets a pattern's last * stand for a deeper path:
// "build/*" matches "build/out/x".
func matchAcrossSlashes(p, w string) bool {
	dir, ok := strings.CutSuffix(p, "/*")
	if !ok || strings.ContainsAny(dir, "*?[") {
		return false
	}
	return strings.HasPrefix(w, dir+"/")
}

// climbs reports a word with a ".." path component.
func climbs(w string) bool {
	for _, part := range strings.Split(w, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// noPrefix are commands whose name alone says nothing about what runs
// (wrappers, shells and interpreters): no prefix entry is offered for them.
var noPrefix = map[string]bool{
	"sudo": true, "doas": true, "su": true, "env": true, "exec": true, "eval": true, "command": true,
	"builtin": true, "nohup": true, "setsid": true, "time": true, "nice": true, "timeout": true,
	"xargs": true, "stdbuf": true, "ionice": true, "chrt": true, "taskset": true, "busybox": true,
	"bash": true, "sh": true, "zsh": true, "ksh": true, "dash": true, "fish": true, "source": true,
	".": true, "watch": true, "find": true, "ssh": true, "python": true, "python3": true, "node": true,
	"perl": true, "ruby": true, "awk": true, "make": true,
}

// pathCommands act on the paths they are given: their prefix entry keeps
// the path and allows what is below it.
var pathCommands = map[string]bool{
	"rm": true, "rmdir": true, "chmod": true, "chown": true, "chgrp": true, "shred": true, "truncate": true,
}

// PrefixEntry returns the allowlist entry "always allow" may offer for a
// dangerous command besides the command itself: one that keeps the
// dangerous part. For a command acting on a path it is the command with
// that path widened to what is below it ("rm -rf build" → "rm -rf
// build/*"); for other commands, the shortest run of leading words that
// is dangerous in the same ways, then " *" ("git push --force origin main"
// → "git push --force *"). ok is false when there is none narrower than
// every command and broader than this one: for a hardline command, one with
// operators, quotes or expansions, a wrapper, shell or interpreter, and a
// command whose danger needs all its words.
func PrefixEntry(command string, v Verdict) (entry string, ok bool) {
	command = strings.TrimSpace(command)
	if v.Hardline || !v.Dangerous || !plainCommand(command) {
		return "", false
	}
	words := strings.Fields(command)
	name := words[0]
	if noPrefix[name] || len(words) < 2 || strings.Contains(name, "/") {
		return "", false
	}
	covers := func(e string) bool {
		got := entryCovers(e, command, v)
		for _, r := range v.Rules {
			if !containsString(got, r.Key) {
				return false
			}
		}
		return true
	}
	if pathCommands[name] {
		last := words[len(words)-1]
		if strings.HasPrefix(last, "-") || strings.HasPrefix(last, "/") || strings.HasPrefix(last, "~") ||
			climbs(last) || strings.ContainsAny(last, "*?[") || path.Clean(last) == "." {
			return "", false
		}
		e := strings.Join(words[:len(words)-1], " ") + " " + strings.TrimSuffix(last, "/") + "/*"
		if covers(e) {
			return e, true
		}
		return "", false
	}
	for k := 2; k < len(words); k++ {
		e := strings.Join(words[:k], " ") + " *"
		if covers(e) {
			return e, true
		}
	}
	return "", false
}
