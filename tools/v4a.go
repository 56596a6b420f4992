package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// This file is the Go port of hermes-agent's tools/patch_parser.py: the V4A
// patch format (the one OpenAI's codex and cline emit) behind the patch tool's
// "patch" mode, plus the unified diff every patch result shows.

// OpKind is the kind of one V4A operation.
type OpKind int

// The V4A operations.
const (
	OpUpdate OpKind = iota + 1 // "*** Update File: p" with hunks
	OpAdd                      // "*** Add File: p" with "+" lines
	OpDelete                   // "*** Delete File: p"
	OpMove                     // "*** Move File: a -> b"
)

// String returns the operation's name as hermes-agent spells it in messages
// (UPDATE, ADD, DELETE, MOVE).
func (k OpKind) String() string {
	switch k {
	case OpUpdate:
		return "UPDATE"
	case OpAdd:
		return "ADD"
	case OpDelete:
		return "DELETE"
	case OpMove:
		return "MOVE"
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// PatchOp is one parsed V4A operation.
type PatchOp struct {
	Kind OpKind
	// Path is the file the operation applies to (the source of a Move),
	// exactly as written in the header.
	Path string
	// MoveTo is a Move's destination.
	MoveTo string
	// Hunks are an Update's hunks, in order.
	Hunks []Hunk
	// AddContent is an Add's file content: its "+" lines joined by "\n"
	// (hermes-agent writes no final newline unless the patch ends with a "+"
	// line that is empty).
	AddContent string
}

// Hunk is one "@@ hint @@" section of an Update.
type Hunk struct {
	// Hint is the text between "@@" markers ("" for a bare "@@" or a hunk
	// without header). It anchors addition-only hunks and narrows the search
	// when the whole-file match fails.
	Hint  string
	Lines []HunkLine
}

// HunkLine is one line of a hunk.
type HunkLine struct {
	// Op is ' ' for context, '-' for a removed line and '+' for an added
	// line.
	Op   byte
	Text string
}

// PatchFS is the read-only view of the files a V4A patch names. Paths are
// passed exactly as written in the patch; the implementation resolves them
// (against the workspace root) and decides what a missing file is.
// ReadFile reports a missing file with an error matching [fs.ErrNotExist].
type PatchFS interface {
	ReadFile(path string) (string, error)
	Exists(path string) bool
}

// FileChange is one file operation computed by [ApplyV4A]. Changes are
// listed in patch order and must be applied in that order (a patch may
// delete and re-add a path, or move a file and then update it).
type FileChange struct {
	// Kind is the operation that produced the change.
	Kind OpKind
	// Path is the file changed (a Move's source), as written in the patch.
	Path string
	// MoveTo is a Move's destination, as written in the patch.
	MoveTo string
	// OldText is the file's content before this change; nil for Add.
	OldText *string
	// NewText is the content after the change: "" for Delete, the moved
	// content (at MoveTo) for Move.
	NewText string
	// Diff is a unified diff (a/<path>, b/<path>; /dev/null for the missing
	// side of an Add or Delete) or, for a Move, "# Moved: a -> b".
	Diff string
}

// V4A grammar. Markers occupy a whole line from column 0, so content lines
// that merely mention them ("+*** End Patch") are ordinary lines. No space is
// needed after "***" ("***Update File: p").
var (
	v4aBeginRe  = regexp.MustCompile(`^\*\*\*\s*Begin\s+Patch\s*$`)
	v4aEndRe    = regexp.MustCompile(`^\*\*\*\s*End\s+Patch\s*$`)
	v4aHeaderRe = regexp.MustCompile(`^\*\*\*\s*(Update|Add|Delete|Move)\s+File:(.*)$`)
	v4aArrowRe  = regexp.MustCompile(`^(.+?)\s*->\s*(.*)$`)
	v4aHintRe   = regexp.MustCompile(`^@@\s*(.+?)\s*@@`)
	v4aEOFRe    = regexp.MustCompile(`^\*\*\*\s*End\s+of\s+File\s*$`)
	v4aMoveToRe = regexp.MustCompile(`^\*\*\*\s*Move\s+to:\s*(.*)$`)
)

// splitPatchLines splits patch text into lines, dropping the CR of CRLF line
// ends so that they reach neither markers nor hunk text.
func splitPatchLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// v4aHeader is one "*** <Kind> File:" header line.
type v4aHeader struct {
	kind     OpKind
	path, to string
	arrow    bool // a Move header had "->"
}

// parseV4AHeader recognises a header line.
func parseV4AHeader(line string) (v4aHeader, bool) {
	m := v4aHeaderRe.FindStringSubmatch(line)
	if m == nil {
		return v4aHeader{}, false
	}
	h := v4aHeader{path: strings.TrimSpace(m[2])}
	switch m[1] {
	case "Update":
		h.kind = OpUpdate
	case "Add":
		h.kind = OpAdd
	case "Delete":
		h.kind = OpDelete
	case "Move":
		h.kind = OpMove
		if a := v4aArrowRe.FindStringSubmatch(h.path); a != nil {
			h.path, h.to, h.arrow = strings.TrimSpace(a[1]), strings.TrimSpace(a[2]), true
		}
	}
	return h, true
}

// V4APaths returns every path named in a V4A header of text (Update, Add and
// Delete paths and both ends of a Move), in order and without duplicates. It
// scans every line, inside or outside the Begin/End markers, and tolerates
// any malformation, so the caller can ask for approval of (a superset of)
// what the patch could touch before parsing it. V4APaths is safe for
// concurrent use.
func V4APaths(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, line := range splitPatchLines(text) {
		h, ok := parseV4AHeader(line)
		if !ok {
			continue
		}
		add(h.path)
		add(h.to)
	}
	return out
}

// hasTraversal reports whether p has a ".." component (either separator).
func hasTraversal(p string) bool {
	for part := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return true
		}
	}
	return false
}

// ParseV4A is hermes-agent's lenient parse_v4a_patch. The "*** Begin Patch"
// and "*** End Patch" markers are optional; "***" may be followed directly by
// the keyword; hunk lines start with ' ', '-' or '+', other non-empty lines
// are context, "\ No newline at end of file" and codex's "*** End of File"
// are skipped. An empty line between two lines of the same hunk is an empty
// context line (hermes drops it, which desynchronises the hunk from the file);
// empty lines elsewhere are ignored. A hunk header is "@@ hint @@", a bare
// "@@", or codex's open "@@ hint".
//
// The errors are *[PatchError] values in hermes's wording: a header path with
// a ".." component ("V4A patch header contains '..' traversal: …", checked
// first, on every header line); otherwise "Parse error: " followed by every
// problem found, joined by "; " (an Update without hunks, a Move without
// destination, an empty path, codex's unsupported "*** Move to:", and — a
// rule hermes lacks, since it silently drops them — edit lines after a Move
// header). An empty patch yields no operations and no error. ParseV4A is a
// pure function and safe for concurrent use.
func ParseV4A(text string) ([]PatchOp, error) {
	for _, p := range V4APaths(text) {
		if hasTraversal(p) {
			return nil, &PatchError{Msg: fmt.Sprintf(
				"V4A patch header contains '..' traversal: %s. Use the agent's cwd-relative path (no '..') or an absolute path in '*** Update File:' / '*** Add File:' / '*** Delete File:' / '*** Move File:' headers.",
				pyRepr(p))}
		}
	}
	lines := splitPatchLines(text)
	start, end := -1, len(lines)
	for i, l := range lines {
		if v4aBeginRe.MatchString(l) {
			start = i
		} else if v4aEndRe.MatchString(l) {
			end = i
			break
		}
	}

	var (
		ops       []PatchOp
		problems  []string
		cur       *PatchOp // the Update or Add being read
		hunk      *Hunk
		blanks    int      // empty lines waiting inside an Update hunk
		afterMove *PatchOp // the Move whose header was the last one seen
	)
	flushHunk := func() {
		if cur != nil && hunk != nil && len(hunk.Lines) > 0 {
			cur.Hunks = append(cur.Hunks, *hunk)
		}
		hunk, blanks = nil, 0
	}
	flush := func() {
		if cur == nil {
			return
		}
		flushHunk()
		if cur.Kind == OpAdd {
			var added []string
			for _, h := range cur.Hunks {
				for _, l := range h.Lines {
					if l.Op == '+' {
						added = append(added, l.Text)
					}
				}
			}
			cur.AddContent = strings.Join(added, "\n")
			cur.Hunks = nil
		}
		ops = append(ops, *cur)
		cur = nil
	}
	for _, line := range lines[start+1 : end] {
		if h, ok := parseV4AHeader(line); ok {
			flush()
			afterMove = nil
			op := PatchOp{Kind: h.kind, Path: h.path}
			switch h.kind {
			case OpMove:
				op.MoveTo = h.to
				ops = append(ops, op)
				moved := op
				afterMove = &moved
			case OpDelete:
				ops = append(ops, op)
			case OpAdd:
				cur, hunk = &op, &Hunk{}
			default:
				cur = &op
			}
			continue
		}
		if v4aEOFRe.MatchString(line) {
			continue
		}
		if m := v4aMoveToRe.FindStringSubmatch(line); m != nil && cur != nil {
			to := strings.TrimSpace(m[1])
			problems = append(problems, fmt.Sprintf(
				"'*** Move to: %s' is not supported; rename with '*** Move File: %s -> %s' and put any edits in their own '*** Update File:' block",
				to, cur.Path, to))
			continue
		}
		if afterMove != nil && line != "" && (line[0] == '+' || line[0] == '-') {
			problems = append(problems, fmt.Sprintf(
				"MOVE %s: edit lines after a '*** Move File:' header are not supported; put them in their own '*** Update File: %s' block",
				pyRepr(afterMove.Path), afterMove.MoveTo))
			afterMove = nil // report once per Move
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "@@") {
			flushHunk()
			hunk = &Hunk{}
			if m := v4aHintRe.FindStringSubmatch(line); m != nil {
				hunk.Hint = strings.TrimSpace(m[1])
			} else {
				// codex's "@@ def f():" has no closing marker.
				rest := strings.TrimSpace(strings.TrimPrefix(line, "@@"))
				hunk.Hint = strings.TrimSpace(strings.TrimSuffix(rest, "@@"))
			}
			continue
		}
		if line == "" {
			if cur.Kind == OpUpdate && hunk != nil && len(hunk.Lines) > 0 {
				blanks++
			}
			continue
		}
		if line[0] == '\\' {
			continue
		}
		if hunk == nil {
			hunk = &Hunk{}
		}
		for ; blanks > 0; blanks-- {
			hunk.Lines = append(hunk.Lines, HunkLine{Op: ' '})
		}
		switch line[0] {
		case ' ', '-', '+':
			hunk.Lines = append(hunk.Lines, HunkLine{Op: line[0], Text: line[1:]})
		default:
			hunk.Lines = append(hunk.Lines, HunkLine{Op: ' ', Text: line})
		}
	}
	flush()

	for _, op := range ops {
		if op.Path == "" {
			problems = append(problems, "Operation with empty file path")
		}
		if op.Kind == OpUpdate && len(op.Hunks) == 0 {
			problems = append(problems, fmt.Sprintf("UPDATE %s: no hunks found", pyRepr(op.Path)))
		}
		if op.Kind == OpMove && op.MoveTo == "" {
			problems = append(problems, fmt.Sprintf("MOVE %s: missing destination path (expected 'src -> dst')", pyRepr(op.Path)))
		}
	}
	if len(problems) > 0 {
		return nil, &PatchError{Msg: "Parse error: " + strings.Join(problems, "; ")}
	}
	return ops, nil
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

// ApplyV4A validates every operation and, only if all of them validate,
// returns the file changes they make. It never writes: the caller applies the
// returned changes (atomically, after approval) in order.
//
// Operations are simulated in patch order on an overlay of the files' current
// contents read through fsys, so a later operation sees the effect of earlier
// ones (a Move followed by an Update of the destination, a Delete followed by
// an Add of the same path). Update hunks are applied one after the other with
// [FuzzyReplace] (uniqueness required); a hunk whose whole-file match fails is
// retried inside a window from 500 characters before to 2000 after the first
// occurrence of its hint. Context-only hunks are ignored. An addition-only
// hunk is inserted after the line holding its hint, which must occur exactly
// once, or appended at the end of the file when it has no hint. Delete and
// Move sources must exist; Add targets and Move destinations must not.
//
// Every problem is collected, each naming its file (and hunk number), and
// returned together as a *[PatchError] reading "Patch validation failed (no
// files were modified):" followed by one "  • …" line per problem; a patch
// whose hunks are all context fails with "Patch contains no changes (only
// context lines were provided)". Unlike hermes, validation and the computed
// result cannot disagree: both come from the same simulation (hermes skips
// the hint window while validating, so an ambiguous hunk it could have
// placed is rejected).
//
// When ctx is done ApplyV4A stops and returns ctx's error, wrapped. It
// keeps no state; it is safe for concurrent use when fsys is.
func ApplyV4A(ctx context.Context, ops []PatchOp, fsys PatchFS) ([]FileChange, error) {
	st := v4aState{ctx: ctx, fs: fsys, pending: map[string]string{}, removed: map[string]bool{}}
	var changes []FileChange
	realChanges := 0
	for _, op := range ops {
		switch op.Kind {
		case OpUpdate:
			c, n, ok := st.update(op)
			realChanges += n
			if ok {
				changes = append(changes, c)
			}
		case OpDelete:
			realChanges++
			old, errMsg := st.read(op.Path)
			if errMsg != "" {
				st.fail("%s: file not found for deletion", op.Path)
				continue
			}
			st.remove(op.Path)
			diff := unifiedDiff("a/"+op.Path, "/dev/null", old, "")
			if diff == "" {
				diff = "# Deleted: " + op.Path
			}
			changes = append(changes, FileChange{Kind: OpDelete, Path: op.Path, OldText: &old, Diff: diff})
		case OpMove:
			realChanges++
			if op.MoveTo == "" {
				st.fail("%s: MOVE operation missing destination path", op.Path)
				continue
			}
			src, errMsg := st.read(op.Path)
			if errMsg != "" {
				st.fail("%s: source file not found for move", op.Path)
			}
			if st.occupied(op.MoveTo) {
				st.fail("%s: destination already exists — move would overwrite", op.MoveTo)
				continue
			}
			if errMsg != "" {
				continue
			}
			st.remove(op.Path)
			st.pending[overlayKey(op.MoveTo)] = src
			changes = append(changes, FileChange{
				Kind: OpMove, Path: op.Path, MoveTo: op.MoveTo, OldText: &src, NewText: src,
				Diff: fmt.Sprintf("# Moved: %s -> %s", op.Path, op.MoveTo),
			})
		case OpAdd:
			realChanges++
			if st.occupied(op.Path) {
				st.fail("%s: file already exists — use Update File, not Add File", op.Path)
				continue
			}
			delete(st.removed, overlayKey(op.Path))
			st.pending[overlayKey(op.Path)] = op.AddContent
			changes = append(changes, FileChange{
				Kind: OpAdd, Path: op.Path, NewText: op.AddContent,
				Diff: unifiedDiff("/dev/null", "b/"+op.Path, "", op.AddContent),
			})
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
		return nil, &PatchError{Msg: b.String()}
	}
	return changes, nil
}

// v4aState is the overlay ApplyV4A simulates operations on.
type v4aState struct {
	ctx     context.Context // stops the fuzzy matching of hunks
	fs      PatchFS
	pending map[string]string // content written by earlier operations
	removed map[string]bool   // paths deleted or moved away by earlier operations
	errs    []string
}

// overlayKey identifies a path in the overlay, so that "a.go" and "./a.go"
// share state.
func overlayKey(p string) string { return path.Clean(p) }

func (st *v4aState) fail(format string, args ...any) {
	st.errs = append(st.errs, fmt.Sprintf(format, args...))
}

// read returns a path's current content, or a reason it cannot be read.
func (st *v4aState) read(p string) (string, string) {
	k := overlayKey(p)
	if c, ok := st.pending[k]; ok {
		return c, ""
	}
	if st.removed[k] {
		return "", "file not found"
	}
	c, err := st.fs.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || !st.fs.Exists(p) {
			return "", "file not found"
		}
		return "", err.Error()
	}
	return c, ""
}

// occupied reports whether something is at p (after earlier operations).
func (st *v4aState) occupied(p string) bool {
	k := overlayKey(p)
	if _, ok := st.pending[k]; ok {
		return true
	}
	if st.removed[k] {
		return false
	}
	return st.fs.Exists(p)
}

func (st *v4aState) remove(p string) {
	k := overlayKey(p)
	st.removed[k] = true
	delete(st.pending, k)
}

// update simulates an Update. It returns the change, the number of hunks that
// count as changes, and whether every hunk applied.
func (st *v4aState) update(op PatchOp) (FileChange, int, bool) {
	old, errMsg := st.read(op.Path)
	if errMsg != "" {
		st.fail("%s: %s", op.Path, errMsg)
		return FileChange{}, 0, false
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
		res, err := FuzzyReplace(st.ctx, sim, search, replace, false)
		if st.ctx.Err() != nil {
			return FileChange{}, realChanges, false // ApplyV4A returns the error
		}
		if err != nil && h.Hint != "" {
			if pos := strings.Index(sim, h.Hint); pos >= 0 {
				ws, we := hintWindow(sim, pos)
				if wres, werr := FuzzyReplace(st.ctx, sim[ws:we], search, replace, false); werr == nil {
					res, err = FuzzyResult{Content: sim[:ws] + wres.Content + sim[we:]}, nil
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
		sim = res.Content
	}
	if !ok {
		return FileChange{}, realChanges, false
	}
	st.pending[overlayKey(op.Path)] = sim
	return FileChange{
		Kind: OpUpdate, Path: op.Path, OldText: &old, NewText: sim,
		Diff: UnifiedDiff(op.Path, old, sim),
	}, realChanges, true
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

// UnifiedDiff returns the unified diff from old to new of the file at path,
// with "--- a/<path>" and "+++ b/<path>" headers, "@@ -l,n +l,n @@" hunks and
// three lines of context, exactly as Python's difflib.unified_diff computes
// it (see [diff.Unified]). A last line without newline is followed by
// "\ No newline at end of file". Equal texts give "". UnifiedDiff is safe
// for concurrent use.
func UnifiedDiff(path, old, new string) string {
	return unifiedDiff("a/"+path, "b/"+path, old, new)
}

// unifiedDiff is UnifiedDiff with explicit header names.
func unifiedDiff(fromName, toName, old, new string) string {
	return diff.Unified(fromName, toName, old, new, 3)
}
