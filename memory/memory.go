// Package memory is hermes's curated memory: two small files of entries
// under $HERMES_HOME/memories that survive across sessions and processes.
// MEMORY.md holds the agent's notes (target "memory", 2 200 characters) and
// USER.md what it knows of the user (target "user", 1 375 characters);
// entries are separated by "\n§\n". Every change is a locked
// read-modify-write of one file, checked against the limit on its result
// and written atomically (a temporary file renamed over the old one), so
// several agent processes can write at once without losing an entry and a
// reader never sees half a file.
//
// The package knows nothing of ACP or of tools: the agent turns its answers
// into tool results.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/internal/threat"
)

// Delimiter separates the entries of a memory file.
const Delimiter = "\n§\n"

// The targets: which file an operation changes.
const (
	TargetMemory = "memory" // MEMORY.md, the agent's own notes
	TargetUser   = "user"   // USER.md, the user's profile
)

// hermes's limits, in characters (Unicode code points) of the whole file.
const (
	MemoryLimit = 2200
	UserLimit   = 1375
)

// The actions of an [Op].
const (
	ActionAdd     = "add"
	ActionReplace = "replace"
	ActionRemove  = "remove"
)

// Op is one change: add Content; replace the entry OldText identifies by
// Content; remove the entry OldText identifies. OldText is a substring of
// the entry (an entry equal to it wins over entries that contain it).
type Op struct {
	Action  string
	Content string
	OldText string
}

// Outcome describes a target after a successful change.
type Outcome struct {
	Target  string
	Chars   int // characters of the file's content
	Limit   int
	Entries int
	Message string // "Entry added.", "Applied 3 operation(s).", …
}

// Usage is hermes's usage line: "12% — 264/2,200 chars".
func (o Outcome) Usage() string {
	return fmt.Sprintf("%d%% — %s/%s chars", percent(o.Chars, o.Limit), pyfmt.Commas(int64(o.Chars)), pyfmt.Commas(int64(o.Limit)))
}

// Refusal is a change that was not made because of the request (no match, an
// ambiguous match, over the limit, a malformed operation): nothing was
// written, and the message tells the model what to do. Usage is
// "current/limit" when the limit was the reason, else "".
type Refusal struct {
	Message string
	Usage   string
}

func (r *Refusal) Error() string { return r.Message }

func refuse(format string, args ...any) *Refusal {
	return &Refusal{Message: fmt.Sprintf(format, args...)}
}

// Store is the memory of one Hermes home. It is safe for concurrent use, by
// goroutines and by processes sharing the directory.
type Store struct {
	dir         string
	memoryLimit int
	userLimit   int
}

// New returns the store kept in dir ($HERMES_HOME/memories) with hermes's
// limits. The directory is made on the first write.
func New(dir string) *Store {
	return &Store{dir: dir, memoryLimit: MemoryLimit, userLimit: UserLimit}
}

// ValidTarget reports whether t names a target.
func ValidTarget(t string) bool { return t == TargetMemory || t == TargetUser }

// Limit returns the character limit of target.
func (s *Store) Limit(target string) int {
	if target == TargetUser {
		return s.userLimit
	}
	return s.memoryLimit
}

// Path returns the file of target.
func (s *Store) Path(target string) string {
	if target == TargetUser {
		return filepath.Join(s.dir, "USER.md")
	}
	return filepath.Join(s.dir, "MEMORY.md")
}

// Entries reads target's entries as they are on disk now. A missing file
// has none.
func (s *Store) Entries(target string) ([]string, error) {
	if !ValidTarget(target) {
		return nil, fmt.Errorf("memory entries: unknown target %q", target)
	}
	return readEntries(s.Path(target))
}

// Parse splits a memory file into its entries: trimmed, empty ones dropped,
// duplicates kept once (the first).
func Parse(raw string) []string {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range strings.Split(raw, Delimiter) {
		e = strings.TrimSpace(e)
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		out = append(out, e)
	}
	return out
}

// Format joins entries into a memory file's content.
func Format(entries []string) string { return strings.Join(entries, Delimiter) }

// Chars is the size of entries as the limits count it: the characters of
// the file's content.
func Chars(entries []string) int { return utf8.RuneCountInString(Format(entries)) }

// readEntries reads and parses a file; a file that exists but cannot be
// read is an error, never an empty store (a later write would wipe it).
func readEntries(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return Parse(string(raw)), nil
}

// Apply makes ops on target as one change: under the target's lock it reads
// the file, applies the operations in order to a copy, checks the limit on
// the result and writes it atomically. Either every operation is applied or
// none: a *Refusal reports an operation the model must correct (nothing
// written), any other error a failure to read or write the file (nothing
// lost). batch selects hermes's batch wording and rules (a duplicate add is
// skipped, the limit is checked only on the final result); a single
// operation uses the single-call wording.
func (s *Store) Apply(target string, ops []Op, batch bool) (Outcome, error) {
	if !ValidTarget(target) {
		return Outcome{}, refuse("Invalid target '%s'. Use 'memory' or 'user'.", target)
	}
	if len(ops) == 0 {
		return Outcome{}, refuse("operations list is empty.")
	}
	if !batch && len(ops) != 1 {
		return Outcome{}, fmt.Errorf("memory apply: %d operations in a single call", len(ops))
	}
	// Check what needs no file first: the fields, then what the new
	// entries say (they reach every later session's system prompt).
	for i, op := range ops {
		if err := checkOp(op, i, batch); err != nil {
			return Outcome{}, err
		}
	}
	for i, op := range ops {
		if err := scanOp(op, i, batch); err != nil {
			return Outcome{}, err
		}
	}
	path := s.Path(target)
	limit := s.Limit(target)
	var out Outcome
	err := s.locked(path, func() error {
		entries, err := readEntries(path)
		if err != nil {
			return err
		}
		if needsWholeEntries(ops) {
			if err := checkDrift(path, entries, limit); err != nil {
				return err
			}
		}
		before := Chars(entries)
		working := append([]string(nil), entries...)
		msg := ""
		for i, op := range ops {
			var m string
			working, m, err = applyOp(working, op, i, batch, limit, before)
			if err != nil {
				return err
			}
			msg = m
		}
		after := Chars(working)
		if after > limit && after > before {
			if batch {
				return &Refusal{
					Message: fmt.Sprintf("After applying all %d operations, memory would be at %s/%s chars -- over the limit. "+
						"Remove or shorten more entries in the same batch, then retry. No operations were applied (batch is all-or-nothing).",
						len(ops), pyfmt.Commas(int64(after)), pyfmt.Commas(int64(limit))),
					Usage: usage(before, limit),
				}
			}
			// Single calls check the limit in applyOp.
		}
		if batch {
			msg = fmt.Sprintf("Applied %d operation(s).", len(ops))
		}
		if !slices.Equal(entries, working) {
			if err := atomicfile.Write(path, []byte(Format(working)), 0o600); err != nil {
				return fmt.Errorf("write %s: %w", filepath.Base(path), err)
			}
		}
		out = Outcome{Target: target, Chars: after, Limit: limit, Entries: len(working), Message: msg}
		return nil
	})
	return out, err
}

// checkOp validates an operation's fields.
func checkOp(op Op, i int, batch bool) error {
	content, old := strings.TrimSpace(op.Content), strings.TrimSpace(op.OldText)
	if batch {
		pos := fmt.Sprintf("Operation %d (%s)", i+1, orUnknown(op.Action))
		switch op.Action {
		case ActionAdd:
			if content == "" {
				return batchRefusal("%s: content is required.", pos)
			}
		case ActionReplace:
			if old == "" {
				return batchRefusal("%s: old_text is required.", pos)
			}
			if content == "" {
				return batchRefusal("%s: content is required (use action='remove' to delete).", pos)
			}
		case ActionRemove:
			if old == "" {
				return batchRefusal("%s: old_text is required.", pos)
			}
		default:
			return batchRefusal("%s: unknown action. Use add, replace, or remove.", pos)
		}
		return nil
	}
	switch op.Action {
	case ActionAdd:
		if content == "" {
			return refuse("Content cannot be empty.")
		}
	case ActionReplace:
		if old == "" {
			return refuse("old_text cannot be empty.")
		}
		if content == "" {
			return refuse("new_content cannot be empty. Use 'remove' to delete entries.")
		}
	case ActionRemove:
		if old == "" {
			return refuse("old_text cannot be empty.")
		}
	default:
		return refuse("Unknown action '%s'. Use: add, replace, remove", op.Action)
	}
	return nil
}

// scanOp refuses an add or replace whose content fails the shared threat
// scan in hermes's strict scope (prompt injection, exfiltration,
// persistence, hard-coded secrets, hidden Unicode), naming the pattern, as
// hermes's memory tool does; a batch names the operation too.
func scanOp(op Op, i int, batch bool) error {
	if op.Action != ActionAdd && op.Action != ActionReplace {
		return nil
	}
	msg := threat.Check(op.Content, threat.Strict)
	if msg == "" {
		return nil
	}
	if batch {
		return refuse("Operation %d: %s", i+1, msg)
	}
	return refuse("%s", msg)
}

func batchRefusal(format string, args ...any) *Refusal {
	return refuse(format+" No operations were applied (batch is all-or-nothing).", args...)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// applyOp applies one validated operation to entries.
func applyOp(entries []string, op Op, i int, batch bool, limit, before int) ([]string, string, error) {
	content, old := strings.TrimSpace(op.Content), strings.TrimSpace(op.OldText)
	pos := fmt.Sprintf("Operation %d (%s)", i+1, op.Action)
	switch op.Action {
	case ActionAdd:
		for _, e := range entries {
			if e == content {
				return entries, "Entry already exists (no duplicate added).", nil
			}
		}
		next := append(entries, content)
		if n := Chars(next); !batch && n > limit {
			return nil, "", &Refusal{
				Message: fmt.Sprintf("Memory at %s/%s chars. Adding this entry (%d chars) would exceed the limit. "+
					"Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or "+
					"less important entries, then retry this add — all in this turn (one call with 'operations' can do both).",
					pyfmt.Commas(int64(before)), pyfmt.Commas(int64(limit)), utf8.RuneCountInString(content)),
				Usage: usage(before, limit),
			}
		}
		return next, "Entry added.", nil
	case ActionReplace, ActionRemove:
		idx, err := match(entries, old)
		if err != nil {
			if batch {
				if errors.Is(err, errNoMatch) {
					return nil, "", batchRefusal("%s: no entry matched '%s'.", pos, old)
				}
				return nil, "", batchRefusal("%s: '%s' matched multiple distinct entries -- be more specific.", pos, old)
			}
			if errors.Is(err, errNoMatch) {
				verb := op.Action
				return nil, "", refuse("No entry matched '%s'. Retry with old_text set to a short unique substring of the exact text of the entry you want to %s.", old, verb)
			}
			return nil, "", refuse("Multiple entries matched '%s'. Be more specific.", old)
		}
		next := append([]string(nil), entries...)
		if op.Action == ActionRemove {
			return append(next[:idx], next[idx+1:]...), "Entry removed.", nil
		}
		next[idx] = content
		if n := Chars(next); !batch && n > limit && n > before {
			return nil, "", &Refusal{
				Message: fmt.Sprintf("Replacement would put memory at %s/%s chars. Shorten the new content, or 'remove' "+
					"other stale or less important entries to make room, then retry — all in this turn.", pyfmt.Commas(int64(n)), pyfmt.Commas(int64(limit))),
				Usage: usage(before, limit),
			}
		}
		return next, "Entry replaced.", nil
	}
	return nil, "", refuse("Unknown action '%s'. Use: add, replace, remove", op.Action)
}

var (
	errNoMatch   = errors.New("no entry matched")
	errAmbiguous = errors.New("several entries matched")
)

// match finds the entry old identifies: one equal to it, else the only
// distinct entry containing it.
func match(entries []string, old string) (int, error) {
	for i, e := range entries {
		if e == old {
			return i, nil
		}
	}
	idx := -1
	for i, e := range entries {
		if !strings.Contains(e, old) {
			continue
		}
		if idx >= 0 && entries[idx] != e {
			return -1, errAmbiguous
		}
		if idx < 0 {
			idx = i
		}
	}
	if idx < 0 {
		return -1, errNoMatch
	}
	return idx, nil
}

// needsWholeEntries reports whether ops rewrite existing entries (replace,
// remove), for which the drift check applies; adds only append.
func needsWholeEntries(ops []Op) bool {
	for _, op := range ops {
		if op.Action != ActionAdd {
			return true
		}
	}
	return false
}

// checkDrift refuses to rewrite entries when one of them is longer than the
// whole file may be: something other than this tool (an editor, a shell
// append) wrote free text into the file, and replacing that "entry" would
// throw the text away.
func checkDrift(path string, entries []string, limit int) error {
	for _, e := range entries {
		if n := utf8.RuneCountInString(e); n > limit {
			return refuse("Refusing to write %s: an entry on disk is %s chars, more than the whole file's limit of %s, "+
				"so the file was changed outside the memory tool. Rewrite it as a clean §-delimited list of entries, "+
				"or move the extra content out, then retry. Nothing was changed.",
				filepath.Base(path), pyfmt.Commas(int64(n)), pyfmt.Commas(int64(limit)))
		}
	}
	return nil
}

// procMu serialises this process's writers (the file lock does the same
// between processes; where the platform has none, this is all there is).
var procMu sync.Mutex

// locked runs fn holding the exclusive lock of path (path + ".lock", a
// file of its own so that path itself can be replaced by a rename).
func (s *Store) locked(path string, fn func() error) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("memory dir %s: %w", s.dir, err)
	}
	procMu.Lock()
	defer procMu.Unlock()
	lf, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock %s: %w", filepath.Base(path)+".lock", err)
	}
	defer lf.Close()
	if err := lockFile(lf); err != nil {
		return fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	defer unlockFile(lf) //nolint:errcheck // closing the file releases it too
	return fn()
}

func percent(n, limit int) int {
	if limit <= 0 {
		return 0
	}
	return min(100, n*100/limit)
}

func usage(n, limit int) string { return pyfmt.Commas(int64(n)) + "/" + pyfmt.Commas(int64(limit)) }
