package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/internal/threat"
)

// Snapshot renders both targets as they are on disk now, for the system
// prompt: the agent takes it once when a session opens and keeps it for the
// whole session (a stable prompt prefix that provider caches can reuse;
// writes made during the session show in the next one). Empty targets are
// left out; "" means no memory. A file that cannot be read is left out and
// reported in the error, with whatever could be rendered.
func (s *Store) Snapshot() (string, error) {
	var blocks []string
	var errs []string
	for _, t := range []string{TargetMemory, TargetUser} {
		entries, err := s.Entries(t)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if b := s.block(t, sanitize(entries, filepath.Base(s.Path(t)))); b != "" {
			blocks = append(blocks, b)
		}
	}
	out := strings.Join(blocks, "\n\n")
	if len(errs) > 0 {
		return out, fmt.Errorf("memory snapshot: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// block renders one target with hermes's header and usage line. A file
// grown past twice its limit by other writers is cut (head and tail kept)
// so it cannot fill the context window.
func (s *Store) block(target string, entries []string) string {
	if len(entries) == 0 {
		return ""
	}
	limit := s.Limit(target)
	content := Format(entries)
	n := utf8.RuneCountInString(content)
	if limitCap := max(limit*2, 4000); n > limitCap {
		r := []rune(content)
		head, tail := limitCap*7/10, limitCap*2/10
		content = string(r[:head]) +
			fmt.Sprintf("\n\n[... %s chars truncated — memory over budget (%s/%s); consolidate via memory(action=remove/replace) ...]\n\n",
				pyfmt.Commas(int64(n-head-tail)), pyfmt.Commas(int64(n)), pyfmt.Commas(int64(limit))) +
			string(r[len(r)-tail:])
	}
	over := ""
	if n > limit {
		over = " ⚠ OVER BUDGET"
	}
	title := "MEMORY (your personal notes)"
	if target == TargetUser {
		title = "USER PROFILE (who the user is)"
	}
	sep := strings.Repeat("═", 46)
	return fmt.Sprintf("%s\n%s [%d%% — %s/%s chars%s]\n%s\n%s", sep, title, percent(n, limit), pyfmt.Commas(int64(n)), pyfmt.Commas(int64(limit)), over, sep, content)
}

// sanitize replaces each stored entry that fails the threat scan (written
// by something other than the memory tool: a command, an editor, an older
// version) with hermes's marker, so it never reaches the prompt while the
// file keeps it for the user to see and remove.
func sanitize(entries []string, file string) []string {
	var out []string
	for i, e := range entries {
		findings := threat.Scan(e, threat.Strict)
		if len(findings) == 0 {
			continue
		}
		if out == nil {
			out = append([]string(nil), entries...)
		}
		out[i] = fmt.Sprintf("[BLOCKED: %s entry contained threat pattern(s): %s. Removed from system prompt; use memory(action=remove) to delete the original.]",
			file, strings.Join(findings, ", "))
	}
	if out == nil {
		return entries
	}
	return out
}
