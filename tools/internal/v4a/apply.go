package v4a

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"
)

// Files is the read-only view of the files a V4A patch names, implemented by
// the caller. Paths are passed exactly as written in the patch; the
// implementation resolves them (against its workspace) and decides what a
// missing file is.
//
// Read returns the text of the file at path. A missing file is an error
// matching [fs.ErrNotExist]; any other error means something is at path that
// cannot be read: [Apply] reports the error's text and creates nothing over
// it. ctx is the context [Apply] was called with.
type Files interface {
	Read(ctx context.Context, path string) (string, error)
}

// Matcher replaces the unique occurrence of search in content by replace
// and returns the whole new content, or an error whose text says why it
// could not ([Apply] quotes it to the model). A Matcher stops when ctx is
// done and then returns an error; it must not modify anything. The patch
// tool passes its fuzzy matcher; [Exact] is the strict one.
type Matcher func(ctx context.Context, content, search, replace string) (string, error)

// Exact is the [Matcher] that requires search to occur exactly once in
// content, byte for byte.
func Exact(_ context.Context, content, search, replace string) (string, error) {
	switch n := strings.Count(content, search); {
	case search == "":
		return "", errors.New("empty search text")
	case n == 0:
		return "", errors.New("search text not found")
	case n > 1:
		return "", fmt.Errorf("search text is ambiguous (%d occurrences)", n)
	}
	return strings.Replace(content, search, replace, 1), nil
}

// Change is one file operation computed by [Apply]. Changes are listed in
// patch order and must be applied in that order (a patch may delete and
// re-add a path, or move a file and then update it).
type Change struct {
	// Kind is the operation that produced the change.
	Kind Kind
	// Path is the file changed (a Move's source), as written in the patch.
	Path string
	// MoveTo is a Move's destination, as written in the patch.
	MoveTo string
	// OldText is the file's content before this change; nil for Add.
	OldText *string
	// NewText is the content after the change: "" for Delete, the moved
	// content (at MoveTo) for Move.
	NewText string
}

// Apply validates every operation and, only if all of them validate,
// returns the file changes they make. It never writes: the caller applies the
// returned changes (atomically, after approval) in order.
//
// Operations are simulated in patch order on an overlay of the files'
// current contents, read through files with ctx, so a later operation sees
// the effect of earlier ones (a Move followed by an Update of the
// destination, a Delete followed by an Add of the same path). Update hunks
// are applied one after the other with match ([Exact] when nil), which is
// given ctx too; a hunk whose whole-file match fails is retried inside a
// window from 500 characters before to 2000 after the first occurrence of
// its hint. Context-only hunks are ignored. An addition-only
// hunk is inserted after the line holding its hint, which must occur exactly
// once, or appended at the end of the file when it has no hint. Delete and
// Move sources must exist; Add targets and Move destinations must not.
//
// Every problem is collected, each naming its file (and hunk number), and
// returned together as a *[Error] reading "Patch validation failed (no
// files were modified):" followed by one "  • …" line per problem; a patch
// whose hunks are all context fails with "Patch contains no changes (only
// context lines were provided)". Unlike hermes, validation and the computed
// result cannot disagree: both come from the same simulation (hermes skips
// the hint window while validating, so an ambiguous hunk it could have
// placed is rejected).
//
// When ctx is done Apply stops and returns ctx's error, wrapped. It keeps no
// state; it is safe for concurrent use when files and match are.
func Apply(ctx context.Context, ops []Op, files Files, match Matcher) ([]Change, error) {
	if match == nil {
		match = Exact
	}
	st := state{files: files, match: match, pending: map[string]string{}, removed: map[string]bool{}}
	var changes []Change
	realChanges := 0
	for _, op := range ops {
		switch op.Kind {
		case Update:
			c, n, ok := st.update(ctx, op)
			realChanges += n
			if ok {
				changes = append(changes, c)
			}
		case Delete:
			realChanges++
			old, errMsg := st.read(ctx, op.Path)
			if errMsg != "" {
				st.fail("%s: file not found for deletion", op.Path)
				continue
			}
			st.remove(op.Path)
			changes = append(changes, Change{Kind: Delete, Path: op.Path, OldText: &old})
		case Move:
			realChanges++
			if op.MoveTo == "" {
				st.fail("%s: MOVE operation missing destination path", op.Path)
				continue
			}
			src, errMsg := st.read(ctx, op.Path)
			if errMsg != "" {
				st.fail("%s: source file not found for move", op.Path)
			}
			if st.occupied(ctx, op.MoveTo) {
				st.fail("%s: destination already exists — move would overwrite", op.MoveTo)
				continue
			}
			if errMsg != "" {
				continue
			}
			st.remove(op.Path)
			st.pending[overlayKey(op.MoveTo)] = src
			changes = append(changes, Change{
				Kind: Move, Path: op.Path, MoveTo: op.MoveTo, OldText: &src, NewText: src,
			})
		case Add:
			realChanges++
			if st.occupied(ctx, op.Path) {
				st.fail("%s: file already exists — use Update File, not Add File", op.Path)
				continue
			}
			delete(st.removed, overlayKey(op.Path))
			st.pending[overlayKey(op.Path)] = op.AddContent
			changes = append(changes, Change{Kind: Add, Path: op.Path, NewText: op.AddContent})
		default:
			st.fail("%s: unknown operation %v", op.Path, op.Kind)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("apply patch: %w", err)
		}
	}
	if len(st.errs) == 0 && realChanges == 0 {
		st.fail("Patch contains no changes (only context lines were provided)")
	}
	if len(st.errs) > 0 {
		var b strings.Builder
		b.WriteString("Patch validation failed (no files were modified):")
		for _, e := range st.errs {
			b.WriteString("\n  • ")
			b.WriteString(e)
		}
		return nil, &Error{Msg: b.String()}
	}
	return changes, nil
}

// state is the overlay Apply simulates operations on.
type state struct {
	files   Files
	match   Matcher
	pending map[string]string // content written by earlier operations
	removed map[string]bool   // paths deleted or moved away by earlier operations
	errs    []string
}

// overlayKey identifies a path in the overlay, so that "a.go" and "./a.go"
// share state.
func overlayKey(p string) string { return path.Clean(p) }

func (st *state) fail(format string, args ...any) {
	st.errs = append(st.errs, fmt.Sprintf(format, args...))
}

// read returns a path's current content, or a reason it cannot be read.
func (st *state) read(ctx context.Context, p string) (string, string) {
	k := overlayKey(p)
	if c, ok := st.pending[k]; ok {
		return c, ""
	}
	if st.removed[k] {
		return "", "file not found"
	}
	c, err := st.files.Read(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "file not found"
		}
		return "", err.Error()
	}
	return c, ""
}

// occupied reports whether something is at p (after earlier operations): a
// file, or anything that cannot be read.
func (st *state) occupied(ctx context.Context, p string) bool {
	k := overlayKey(p)
	if _, ok := st.pending[k]; ok {
		return true
	}
	if st.removed[k] {
		return false
	}
	_, err := st.files.Read(ctx, p)
	return !errors.Is(err, fs.ErrNotExist)
}

func (st *state) remove(p string) {
	k := overlayKey(p)
	st.removed[k] = true
	delete(st.pending, k)
}

// update simulates an Update. It returns the change, the number of hunks that
// count as changes, and whether every hunk applied.
func (st *state) update(ctx context.Context, op Op) (Change, int, bool) {
	old, errMsg := st.read(ctx, op.Path)
	if errMsg != "" {
		st.fail("%s: %s", op.Path, errMsg)
		return Change{}, 0, false
	}
	sim := old
	realChanges := 0
	ok := true
	for i, h := range op.Hunks {
		search, replace, hasSearch, changes := splitHunk(h)
		if hasSearch && search == replace {
			// Context-only anchors are inert; identical -/+ pairs are no-ops
			// that still count as the patch "changing" something.
			if changes {
				realChanges++
			}
			continue
		}
		realChanges++
		if !hasSearch {
			next, msg := insertAddition(sim, h.Hint, replace)
			if msg != "" {
				st.fail("%s: %s", op.Path, msg)
				ok = false
				continue
			}
			sim = next
			continue
		}
		res, err := st.match(ctx, sim, search, replace)
		if ctx.Err() != nil {
			return Change{}, realChanges, false // Apply returns the error
		}
		if err != nil && h.Hint != "" {
			if pos := strings.Index(sim, h.Hint); pos >= 0 {
				ws, we := hintWindow(sim, pos)
				if wres, werr := st.match(ctx, sim[ws:we], search, replace); werr == nil {
					res, err = sim[:ws]+wres+sim[we:], nil
				}
			}
		}
		if err != nil {
			label := "(no hint)"
			if h.Hint != "" {
				label = "'" + h.Hint + "'"
			}
			st.fail("%s: hunk %d %s not found — %s", op.Path, i+1, label, err.Error())
			ok = false
			continue
		}
		sim = res
	}
	if !ok {
		return Change{}, realChanges, false
	}
	st.pending[overlayKey(op.Path)] = sim
	return Change{Kind: Update, Path: op.Path, OldText: &old, NewText: sim}, realChanges, true
}

// insertAddition places an addition-only hunk: after the line holding hint,
// which must occur exactly once, or at the end of the content without a hint.
func insertAddition(content, hint, text string) (string, string) {
	if hint != "" {
		switch n := countOverlapping(content, hint); {
		case n == 0:
			return "", fmt.Sprintf("addition-only hunk context hint '%s' not found", hint)
		case n > 1:
			return "", fmt.Sprintf("addition-only hunk context hint '%s' is ambiguous (%d occurrences)", hint, n)
		}
		pos := strings.Index(content, hint)
		eol := strings.IndexByte(content[pos:], '\n')
		if eol < 0 {
			return content + "\n" + text, ""
		}
		eol += pos
		return content[:eol+1] + text + "\n" + content[eol+1:], ""
	}
	trimmed := strings.TrimRight(content, "\n")
	if trimmed == "" {
		return text + "\n", "" // hermes would start an empty file with a blank line
	}
	return trimmed + "\n" + text + "\n", ""
}

// splitHunk returns a hunk's search text (context and removed lines) and
// replacement text (context and added lines), each joined by "\n", and
// whether it has any search lines.
func splitHunk(h Hunk) (search, replace string, hasSearch bool, changes bool) {
	var s, r []string
	for _, l := range h.Lines {
		if l.Op != '+' {
			s = append(s, l.Text)
		}
		if l.Op != '-' {
			r = append(r, l.Text)
		}
		if l.Op == '+' || l.Op == '-' {
			changes = true
		}
	}
	return strings.Join(s, "\n"), strings.Join(r, "\n"), len(s) > 0, changes
}

// countOverlapping counts occurrences of sub in s, overlapping ones included
// (hermes's _count_occurrences).
func countOverlapping(s, sub string) int {
	if sub == "" {
		return utf8.RuneCountInString(s) + 1
	}
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return n
		}
		n++
		_, w := utf8.DecodeRuneInString(s[i+j:])
		i += j + w
	}
}

// hintWindow returns the byte range from 500 characters before pos to 2000
// characters after it (hermes's fallback search window around a hunk's
// hint), clamped to s.
func hintWindow(s string, pos int) (int, int) {
	start := pos
	for n := 0; n < 500 && start > 0; n++ {
		_, w := utf8.DecodeLastRuneInString(s[:start])
		start -= w
	}
	end := pos
	for n := 0; n < 2000 && end < len(s); n++ {
		_, w := utf8.DecodeRuneInString(s[end:])
		end += w
	}
	return start, end
}
