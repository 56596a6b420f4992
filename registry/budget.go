package registry

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Result budget constants (hermes tools/budget_config.py).
const (
	DefaultTurnBudgetChars  = 200_000
	DefaultPreviewChars     = 1_500
	minResultChars          = 8_000
	minTurnBudgetChars      = 16_000
	charsPerToken           = 4
	maxResultFileStem       = 120
	persistedOutputTag      = "<persisted-output>"
	persistedOutputCloseTag = "</persisted-output>"
)

// BudgetForContextWindow scales the per-result and per-turn budgets to a
// model's context window as hermes's budget_for_context_window does: 15% and
// 30% of the window (at 4 characters a token), clamped to
// [8,000 … 100,000] and [16,000 … 200,000] characters. A window of 0 or less
// gives the defaults.
func BudgetForContextWindow(contextTokens int) (resultChars, turnChars int) {
	if contextTokens <= 0 {
		return DefaultMaxResultChars, DefaultTurnBudgetChars
	}
	window := float64(contextTokens) * charsPerToken
	resultChars = max(minResultChars, min(int(window*0.15), DefaultMaxResultChars))
	turnChars = max(minTurnBudgetChars, min(int(window*0.30), DefaultTurnBudgetChars))
	return resultChars, turnChars
}

// Bounds of the saved results of one session (issue 26): a result longer
// than DefaultMaxSavedFileBytes is saved cut there, with a note at its end;
// once a session's saved results would pass DefaultMaxSavedSessionBytes,
// its oldest files are removed first.
const (
	DefaultMaxSavedFileBytes    = 8 << 20
	DefaultMaxSavedSessionBytes = 64 << 20
)

// resultStore persists oversized results under dir ("" = inline truncation).
type resultStore struct {
	dir     string
	session string // the session's id, part of every saved file's name
	preview int
	log     *slog.Logger
	// suffix returns the random part of a saved file's name; nil means
	// randomSuffix. Tests replace it to force name collisions.
	suffix func() string
	// fault is the pipeline's fault-injection hook (nil but in the tests of
	// the catch-all and the faultinject build).
	fault func(stage, tool string)
	// maxFile and maxSession bound one file and all of this store's files
	// (bytes).
	maxFile, maxSession int64

	mu    sync.Mutex        // guards saved, files and total
	saved map[string]string // path of each file this store saved (as named, and real) → real path
	files []savedFile       // the files this store saved and still has, oldest first
	total int64             // their bytes
}

// savedFile is one file a store wrote.
type savedFile struct {
	name, path string
	size       int64
}

// remember records path, a file of size bytes this store just saved under
// name, by its path and its real path (symbolic links in the results dir
// resolved).
func (s *resultStore) remember(name, path string, size int64) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saved == nil {
		s.saved = map[string]string{}
	}
	s.saved[path] = real
	s.saved[real] = real
	s.files = append(s.files, savedFile{name, path, size})
	s.total += size
}

// forget undoes remember for a file removed again.
func (s *resultStore) forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(path)
}

func (s *resultStore) forgetLocked(path string) {
	if real, ok := s.saved[path]; ok {
		delete(s.saved, real)
		delete(s.saved, path)
	}
	for i, f := range s.files {
		if f.path == path {
			s.total -= f.size
			s.files = append(s.files[:i], s.files[i+1:]...)
			break
		}
	}
}

// makeRoom removes this store's oldest files until size more bytes fit in
// the session's bound.
func (s *resultStore) makeRoom(root *os.Root, size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.files) > 0 && s.total+size > s.limitSession() {
		old := s.files[0]
		if err := root.Remove(old.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("could not remove an old saved result", "path", old.path, "err", err)
		}
		s.log.Info("removed the oldest saved result: the session's saved results are bounded", "path", old.path, "bytes", old.size, "bound", s.limitSession())
		s.forgetLocked(old.path)
	}
}

func (s *resultStore) limitFile() int64 {
	if s.maxFile > 0 {
		return s.maxFile
	}
	return DefaultMaxSavedFileBytes
}

func (s *resultStore) limitSession() int64 {
	if s.maxSession > 0 {
		return max(s.maxSession, s.limitFile())
	}
	return max(DefaultMaxSavedSessionBytes, s.limitFile())
}

// bounded returns content as it is saved: whole, or cut at the file bound
// (at a character boundary) with a note at its end; cut is the bytes kept
// (0 when whole).
func (s *resultStore) bounded(content string) (saved string, cut int64) {
	limit := s.limitFile()
	if int64(len(content)) <= limit {
		return content, 0
	}
	note := fmt.Sprintf("\n\n[... cut here: the result was %s bytes; a saved result keeps at most its first %s ...]\n",
		groupThousands(len(content)), sizeText(limit))
	keep := max(int(limit)-len(note), 0)
	for keep > 0 && !utf8.RuneStart(content[keep]) {
		keep--
	}
	return content[:keep] + note, int64(keep)
}

// sizeText writes a byte count as "8 MiB" or "512 KiB".
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n>>10, 10) + " KiB"
}

// lookup returns the real path of the saved file that path names exactly,
// once cleaned and, failing a literal match, once its symbolic links are
// resolved. Nothing else matches: not another file of the results dir,
// not the dir itself.
func (s *resultStore) lookup(path string) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	path = filepath.Clean(path)
	s.mu.Lock()
	real, ok := s.saved[path]
	empty := len(s.saved) == 0
	s.mu.Unlock()
	if ok || empty {
		return real, ok
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	real, ok = s.saved[resolved]
	return real, ok
}

// SavedResult reports whether path names, exactly, a file in which this
// pipeline's result budget saved a result (the path its <persisted-output>
// note gives, or that path with symbolic links resolved), and returns the
// file's real path. A session's read_file uses it to open the results its
// own budget saved, which lie outside the workspace; every other file of
// the results dir, other sessions' results included, stays unreadable.
func (p *Pipeline) SavedResult(path string) (string, bool) { return p.store.lookup(path) }

// SaveResult saves content, a text a tool keeps for the model to read back
// (web_extract's full page behind a summary), as a result of call id: in
// the results dir, readable by the session's read_file like a saved
// result. It returns the file's path; without a results dir it fails.
func (p *Pipeline) SaveResult(id, content string) (string, error) {
	if p.store.dir == "" {
		return "", errors.New("save result: no results dir")
	}
	return p.store.write(id, content)
}

// persist applies the per-result budget: a result longer than threshold
// characters is written to a file and replaced by hermes's
// <persisted-output> block naming reader, the tool that reads it back (or
// truncated inline when it cannot be written or no tool can read it).
// A negative threshold means never. The replacement is used only when it is
// shorter than content: the budget never makes a result bigger, so content
// that a note would not shrink stays as it is. persist reports whether a
// file was written.
func (s *resultStore) persist(reader, tool, id, content string, threshold int) (string, bool) {
	if threshold < 0 || len(content) <= threshold { // bytes ≥ characters, so this is a safe fast path
		return content, false
	}
	size := utf8.RuneCountInString(content)
	if size <= threshold {
		return content, false
	}
	preview, hasMore := generatePreview(content, s.preview)
	if !hasMore {
		return content, false // the preview alone is the whole result: any note is bigger
	}
	if s.dir != "" && reader != "" {
		// Every name has the same length, so the note's size is known before
		// anything is written: a note that would not shrink the result
		// costs no file.
		_, cut := s.bounded(content)
		msg := func(path string) string { return persistedMessage(reader, preview, hasMore, size, path, cut) }
		if utf8.RuneCountInString(msg(filepath.Join(s.dir, s.name(id, strings.Repeat("0", resultSuffixHex))))) >= size {
			return content, false
		}
		path, err := s.write(id, content)
		if err == nil {
			if note := msg(path); utf8.RuneCountInString(note) < size {
				s.log.Info("persisted large tool result", "tool", tool, "id", id, "chars", size, "path", path)
				return note, true
			}
			_ = os.Remove(path) // only when a name came out longer than planned
			s.forget(path)
			return content, false
		}
		s.log.Warn("tool result write failed; truncating inline", "tool", tool, "id", id, "err", err)
	}
	inline := fmt.Sprintf("%s\n\n[Truncated: tool response was %s chars. Full output could not be saved to sandbox.]",
		preview, groupThousands(size))
	if utf8.RuneCountInString(inline) >= size {
		return content, false
	}
	return inline, false
}

// Saved result names: <session>_<call id>_<random>.txt.
const (
	resultSuffixHex     = 8  // hex digits of the random part of a name
	maxSessionFileStem  = 48 // characters of the session part of a name
	resultNameAttempts  = 16 // names tried before giving up on a full dir
	resultNameHashChars = 12 // hex digits of the hash that stands for a long session id
)

// name returns the file name of a result of call id in this store's
// session with the given random suffix: the sanitised session id (at most
// 48 characters), the sanitised call id (see [safeResultFileName]) and
// suffix, joined by "_". The session and the suffix keep the results of two
// sessions — or of two processes on one session — that reuse a call id
// apart; O_EXCL in write catches the rest.
func (s *resultStore) name(id, suffix string) string {
	stem := strings.TrimSuffix(safeResultFileName(id), ".txt")
	if s.session != "" {
		sess := strings.TrimSuffix(safeResultFileName(s.session), ".txt")
		if len(sess) > maxSessionFileStem {
			sum := sha256.Sum256([]byte(s.session))
			sess = strings.TrimRight(sess[:maxSessionFileStem-resultNameHashChars-1], "._-") + "_" + hex.EncodeToString(sum[:])[:resultNameHashChars]
		}
		stem = sess + "_" + stem
	}
	return stem + "_" + suffix + ".txt"
}

// nextSuffix returns a random name suffix.
func (s *resultStore) nextSuffix() string {
	if s.suffix != nil {
		return s.suffix()
	}
	return randomSuffix()
}

// randomSuffix returns resultSuffixHex random hex digits.
func randomSuffix() string {
	var b [resultSuffixHex / 2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// write stores content in a new file of dir named for call id through an
// os.Root, so the file can never land outside dir. The file is created
// with O_EXCL: it never replaces another result, whoever wrote that one;
// a taken name is retried with a new suffix. Content longer than the file
// bound is saved cut (see bounded), and the session's oldest files are
// removed first when the new one would pass the session's bound. write
// checks that every byte reached the disk and returns the file's path.
func (s *resultStore) write(id, content string) (string, error) {
	content, _ = s.bounded(content)
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", fmt.Errorf("create results dir: %w", err)
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return "", fmt.Errorf("open results dir: %w", err)
	}
	defer root.Close()
	s.makeRoom(root, int64(len(content)))
	for range resultNameAttempts {
		name := s.name(id, s.nextSuffix())
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create result %s: %w", name, err)
		}
		if err := writeAll(f, content); err != nil {
			_ = root.Remove(name)
			return "", fmt.Errorf("write result %s: %w", name, err)
		}
		path := filepath.Join(s.dir, name)
		s.remember(name, path, int64(len(content)))
		return path, nil
	}
	return "", fmt.Errorf("write result for %q: %d names taken", id, resultNameAttempts)
}

// writeAll writes content to f, checks its size on disk and closes f.
func writeAll(f *os.File, content string) error {
	_, err := f.WriteString(content)
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil && fi.Size() != int64(len(content)) {
			err = fmt.Errorf("%d of %d bytes on disk", fi.Size(), len(content))
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// safeResultFileName maps a tool-call id to one safe file name (hermes
// _safe_result_filename): runs of characters outside [A-Za-z0-9_.-] become
// "_", leading and trailing "._-" are stripped, the stem is at most 120
// characters, and a 12-hex-digit SHA-256 suffix keeps sanitised ids apart.
// The result never contains a path separator and never starts with ".".
func safeResultFileName(id string) string {
	raw := id
	if raw == "" {
		raw = "tool_result"
	}
	var b strings.Builder
	inRun := false
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRuneInString(raw[i:])
		i += n
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			b.WriteRune(r)
			inRun = false
			continue
		}
		if !inRun {
			b.WriteByte('_')
			inRun = true
		}
	}
	stem := strings.Trim(b.String(), "._-")
	changed := stem != raw
	if stem == "" {
		stem = "tool_result"
	}
	if changed || len(stem) > maxResultFileStem {
		sum := sha256.Sum256([]byte(raw))
		if len(stem) > maxResultFileStem {
			stem = stem[:maxResultFileStem] // ASCII only, so byte slicing is character slicing
		}
		stem = strings.TrimRight(stem, "._-")
		if stem == "" {
			stem = "tool_result"
		}
		stem += "_" + hex.EncodeToString(sum[:])[:12]
	}
	return stem + ".txt"
}

// generatePreview returns the first max characters of content, cut after the
// last newline when that newline lies past the halfway point, and whether
// anything was left out (hermes generate_preview).
func generatePreview(content string, max int) (string, bool) {
	cut, n := -1, 0
	for i := range content {
		if n == max {
			cut = i
			break
		}
		n++
	}
	if cut < 0 { // at most max characters
		return content, false
	}
	head := content[:cut]
	if nl := strings.LastIndexByte(head, '\n'); nl >= 0 && utf8.RuneCountInString(head[:nl]) > max/2 {
		return head[:nl+1], true
	}
	return head, true
}

// persistedMessage renders hermes's <persisted-output> block.
// cut, when not 0, is the bytes of the output the file holds (the rest was
// past the saved file's bound).
func persistedMessage(reader, preview string, hasMore bool, size int, path string, cut int64) string {
	kb := float64(size) / 1024
	sizeStr := strconv.FormatFloat(kb, 'f', 1, 64) + " KB"
	if kb >= 1024 {
		sizeStr = strconv.FormatFloat(kb/1024, 'f', 1, 64) + " MB"
	}
	var b strings.Builder
	b.WriteString(persistedOutputTag + "\n")
	fmt.Fprintf(&b, "This tool result was too large (%s characters, %s).\n", groupThousands(size), sizeStr)
	if cut > 0 {
		fmt.Fprintf(&b, "Its first %s bytes saved to: %s\n", groupThousands(int(cut)), path)
	} else {
		fmt.Fprintf(&b, "Full output saved to: %s\n", path)
	}
	fmt.Fprintf(&b, "Use the %s tool with offset and limit to access specific sections of this output.\n\n", reader)
	fmt.Fprintf(&b, "Preview (first %d chars):\n", utf8.RuneCountInString(preview))
	b.WriteString(preview)
	if hasMore {
		b.WriteString("\n...")
	}
	b.WriteString("\n" + persistedOutputCloseTag)
	return b.String()
}

// groupThousands formats n with comma separators, like Python's f"{n:,}".
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// budgetToolName is the tool name the turn budget logs its saves under
// (hermes _BUDGET_TOOL_NAME).
const budgetToolName = "__budget_enforcement__"

// enforceTurnBudget applies hermes's per-turn budget to one batch of
// outcomes: while their total size exceeds budget characters, the largest
// results not yet persisted are persisted with threshold 0, largest first,
// stopping as soon as the batch fits. Results of pinned calls (tools whose
// MaxResultChars is Unlimited: read_file) are never saved: saving a read of
// a saved result would send the model into a save → read → save loop, and
// read_file already limits itself. A result is replaced only by a shorter
// note (see persist), so the batch never grows: when only small results are
// left, the batch stays over budget rather than get bigger.
//
// A panic while one result is saved fails that call (the catch-all's error
// result replaces its content; see [Turn.Run]); the others stay as they
// are.
func (s *resultStore) enforceTurnBudget(reader string, calls []*Call, pinned []bool, outs []Outcome, budget int) {
	sizes := make([]int, len(outs))
	total := 0
	for i, o := range outs {
		sizes[i] = utf8.RuneCountInString(o.Content)
		total += sizes[i]
	}
	if total <= budget {
		return
	}
	var candidates []int
	for i, o := range outs {
		if !strings.Contains(o.Content, persistedOutputTag) && !pinned[i] {
			candidates = append(candidates, i)
		}
	}
	sort.SliceStable(candidates, func(a, b int) bool { return sizes[candidates[a]] > sizes[candidates[b]] })
	for _, i := range candidates {
		if total <= budget {
			break
		}
		id := calls[i].ID
		if id == "" {
			id = "budget_" + strconv.Itoa(i)
		}
		var (
			replacement string
			written     bool
		)
		if pp := catchPanic(func() {
			if s.fault != nil {
				s.fault(stageTurnBudget, calls[i].Name)
			}
			replacement, written = s.persist(reader, budgetToolName, id, outs[i].Content, 0)
		}); pp != nil {
			outs[i] = pp.outcome(stageTurnBudget, calls[i], s.log)
			total += utf8.RuneCountInString(outs[i].Content) - sizes[i]
			continue
		}
		if replacement == outs[i].Content {
			continue // a note would not be shorter
		}
		total += utf8.RuneCountInString(replacement) - sizes[i]
		outs[i].Content = replacement
		outs[i].Persisted = outs[i].Persisted || written
		s.log.Info("turn budget: persisted tool result", "id", id, "chars", sizes[i])
	}
}
