package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// The /allowlist command shows the command allowlist (command_allowlist:
// the configuration's entries and those "always allow" added) with what
// each entry covers, the dangers this session allowed, and removes entries:
// "/allowlist remove N" or "/allowlist remove <entry>" takes the entry out
// of every session and out of the configuration file.

func cmdAllowlist(_ context.Context, s *Session, arg string) commandResult {
	arg = strings.TrimSpace(arg)
	op, rest, _ := strings.Cut(arg, " ")
	switch op {
	case "":
		s.sendText(allowlistText(s))
	case "remove", "rm", "delete":
		s.sendText(removeAllowlistEntry(s, strings.TrimSpace(rest)))
	default:
		s.sendText("Usage: `/allowlist` lists the command allowlist; `/allowlist remove N` (or `/allowlist remove <entry>`) removes entry N.")
	}
	return done()
}

// allowlistText lists the entries, numbered, each with what it covers.
func allowlistText(s *Session) string {
	entries := s.a.allowlistEntries()
	var b strings.Builder
	if len(entries) == 0 {
		b.WriteString("The command allowlist is empty: every dangerous command asks.")
	} else {
		fmt.Fprintf(&b, "Command allowlist (%d): `/allowlist remove N` removes entry N.\n", len(entries))
		for i, e := range entries {
			fmt.Fprintf(&b, "%d. %s\n", i+1, describeEntry(e))
		}
	}
	keys := s.allowed.allowedKeys()
	if len(keys) > 0 {
		b.WriteString("\nThis session also allows: " + strings.Join(keys, "; ") + ".")
	}
	return strings.TrimRight(b.String(), "\n")
}

// describeEntry says what an entry is and which dangers it covers.
func describeEntry(e string) string {
	kind, keys := danger.EntryRules(e)
	covers := "no danger"
	if len(keys) > 0 {
		covers = strings.Join(keys, "; ")
	}
	switch kind {
	case danger.EntryKey:
		return fmt.Sprintf("%s — every command with this danger", inlineCode(e))
	case danger.EntryPattern:
		return fmt.Sprintf("%s — matching commands, for: %s", inlineCode(e), covers)
	}
	return fmt.Sprintf("%s — this exact command, for: %s", inlineCode(e), covers)
}

func removeAllowlistEntry(s *Session, arg string) string {
	if arg == "" {
		return "Usage: `/allowlist remove N` or `/allowlist remove <entry>`."
	}
	entries := s.a.allowlistEntries()
	entry := strings.Trim(arg, "`")
	if n, err := strconv.Atoi(arg); err == nil {
		if n < 1 || n > len(entries) {
			return fmt.Sprintf("There is no entry %d: the command allowlist has %d. `/allowlist` lists them.", n, len(entries))
		}
		entry = entries[n-1]
	}
	held, err := s.a.removeFromAllowlist(entry)
	switch {
	case !held:
		return fmt.Sprintf("%s is not in the command allowlist. `/allowlist` lists it.", inlineCode(entry))
	case err != nil:
		s.a.log.Warn("could not remove the entry from the configuration file", "entry", entry, "error", err)
		return fmt.Sprintf("Removed %s for this run, but not from the configuration file (%v): it comes back when the agent restarts.", inlineCode(entry), err)
	}
	return fmt.Sprintf("Removed %s from the command allowlist: such commands ask again.", inlineCode(entry))
}

// allowlistContext is the /context line about the command allowlist.
func allowlistContext(s *Session) string {
	entries := s.a.allowlistEntries()
	if len(entries) == 0 {
		return "\nCommand allowlist: empty."
	}
	shown := entries
	if len(shown) > 10 {
		shown = shown[:10]
	}
	quoted := make([]string, len(shown))
	for i, e := range shown {
		quoted[i] = inlineCode(e)
	}
	more := ""
	if len(entries) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(entries)-len(shown))
	}
	return fmt.Sprintf("\nCommand allowlist (%d): %s%s — `/allowlist` shows what each covers and removes entries.", len(entries), strings.Join(quoted, ", "), more)
}
