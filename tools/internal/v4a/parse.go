package v4a

import (
	"fmt"
	"github.com/hermes-acp/hermes-acp/tools/internal/fuzzy"
	"regexp"
	"strings"
	"sync"
)

// Kind is the kind of one V4A operation.
type Kind int

// The V4A operations.
const (
	Update Kind = iota + 1 // "*** Update File: p" with hunks
	Add                    // "*** Add File: p" with "+" lines
	Delete                 // "*** Delete File: p"
	Move                   // "*** Move File: a -> b"
)

// String returns the operation's name as hermes-agent spells it in messages
// (UPDATE, ADD, DELETE, MOVE).
func (k Kind) String() string {
	switch k {
	case Update:
		return "UPDATE"
	case Add:
		return "ADD"
	case Delete:
		return "DELETE"
	case Move:
		return "MOVE"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Op is one parsed V4A operation.
type Op struct {
	Kind Kind
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

// V4A grammar. Markers occupy a whole line from column 0, so content lines
// that merely mention them ("+*** End Patch") are ordinary lines. No space is
// needed after "***" ("***Update File: p").
var (
	beginRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*\*\s*Begin\s+Patch\s*$`) })
	endRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*\*\s*End\s+Patch\s*$`) })
	headerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*\*\s*(Update|Add|Delete|Move)\s+File:(.*)$`) })
	arrowRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+?)\s*->\s*(.*)$`) })
	hintRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@\s*(.+?)\s*@@`) })
	eofRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*\*\s*End\s+of\s+File\s*$`) })
	moveToRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*\*\s*Move\s+to:\s*(.*)$`) })
)

// splitLines splits patch text into lines, dropping the CR of CRLF line
// ends so that they reach neither markers nor hunk text.
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// header is one "*** <Kind> File:" header line.
type header struct {
	kind     Kind
	path, to string
	arrow    bool // a Move header had "->"
}

// parseHeader recognises a header line.
func parseHeader(line string) (header, bool) {
	m := headerRe().FindStringSubmatch(line)
	if m == nil {
		return header{}, false
	}
	h := header{path: strings.TrimSpace(m[2])}
	switch m[1] {
	case "Update":
		h.kind = Update
	case "Add":
		h.kind = Add
	case "Delete":
		h.kind = Delete
	case "Move":
		h.kind = Move
		if a := arrowRe().FindStringSubmatch(h.path); a != nil {
			h.path, h.to, h.arrow = strings.TrimSpace(a[1]), strings.TrimSpace(a[2]), true
		}
	}
	return h, true
}

// Paths returns every path named in a V4A header of text (Update, Add and
// Delete paths and both ends of a Move), in order and without duplicates. It
// scans every line, inside or outside the Begin/End markers, and tolerates
// any malformation, so the caller can ask for approval of (a superset of)
// what the patch could touch before parsing it. Paths is safe for
// concurrent use.
func Paths(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, line := range splitLines(text) {
		h, ok := parseHeader(line)
		if !ok {
			continue
		}
		add(h.path)
		add(h.to)
	}
	return out
}

// HasTraversal reports whether p has a ".." component (either separator).
func HasTraversal(p string) bool {
	for part := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return true
		}
	}
	return false
}

// Parse is hermes-agent's lenient parse_v4a_patch. The "*** Begin Patch"
// and "*** End Patch" markers are optional; "***" may be followed directly by
// the keyword; hunk lines start with ' ', '-' or '+', other non-empty lines
// are context, "\ No newline at end of file" and codex's "*** End of File"
// are skipped. An empty line between two lines of the same hunk is an empty
// context line (hermes drops it, which desynchronises the hunk from the file);
// empty lines elsewhere are ignored. A hunk header is "@@ hint @@", a bare
// "@@", or codex's open "@@ hint".
//
// The errors are *[Error] values in hermes's wording: a header path with
// a ".." component ("V4A patch header contains '..' traversal: …", checked
// first, on every header line); otherwise "Parse error: " followed by every
// problem found, joined by "; " (an Update without hunks, a Move without
// destination, an empty path, codex's unsupported "*** Move to:", and — a
// rule hermes lacks, since it silently drops them — edit lines after a Move
// header). An empty patch yields no operations and no error. Parse is a
// pure function and safe for concurrent use.
func Parse(text string) ([]Op, error) {
	for _, p := range Paths(text) {
		if HasTraversal(p) {
			return nil, &Error{Msg: fmt.Sprintf(
				"V4A patch header contains '..' traversal: %s. Use the agent's cwd-relative path (no '..') or an absolute path in '*** Update File:' / '*** Add File:' / '*** Delete File:' / '*** Move File:' headers.",
				fuzzy.Repr(p))}
		}
	}
	lines := splitLines(text)
	start, end := -1, len(lines)
	for i, l := range lines {
		if beginRe().MatchString(l) {
			start = i
		} else if endRe().MatchString(l) {
			end = i
			break
		}
	}

	var (
		ops       []Op
		problems  []string
		cur       *Op // the Update or Add being read
		hunk      *Hunk
		blanks    int // empty lines waiting inside an Update hunk
		afterMove *Op // the Move whose header was the last one seen
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
		if cur.Kind == Add {
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
		if h, ok := parseHeader(line); ok {
			flush()
			afterMove = nil
			op := Op{Kind: h.kind, Path: h.path}
			switch h.kind {
			case Move:
				op.MoveTo = h.to
				ops = append(ops, op)
				moved := op
				afterMove = &moved
			case Delete:
				ops = append(ops, op)
			case Add:
				cur, hunk = &op, &Hunk{}
			default:
				cur = &op
			}
			continue
		}
		if eofRe().MatchString(line) {
			continue
		}
		if m := moveToRe().FindStringSubmatch(line); m != nil && cur != nil {
			to := strings.TrimSpace(m[1])
			problems = append(problems, fmt.Sprintf(
				"'*** Move to: %s' is not supported; rename with '*** Move File: %s -> %s' and put any edits in their own '*** Update File:' block",
				to, cur.Path, to))
			continue
		}
		if afterMove != nil && line != "" && (line[0] == '+' || line[0] == '-') {
			problems = append(problems, fmt.Sprintf(
				"MOVE %s: edit lines after a '*** Move File:' header are not supported; put them in their own '*** Update File: %s' block",
				fuzzy.Repr(afterMove.Path), afterMove.MoveTo))
			afterMove = nil // report once per Move
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "@@") {
			flushHunk()
			hunk = &Hunk{}
			if m := hintRe().FindStringSubmatch(line); m != nil {
				hunk.Hint = strings.TrimSpace(m[1])
			} else {
				// codex's "@@ def f():" has no closing marker.
				rest := strings.TrimSpace(strings.TrimPrefix(line, "@@"))
				hunk.Hint = strings.TrimSpace(strings.TrimSuffix(rest, "@@"))
			}
			continue
		}
		if line == "" {
			if cur.Kind == Update && hunk != nil && len(hunk.Lines) > 0 {
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
		if op.Kind == Update && len(op.Hunks) == 0 {
			problems = append(problems, fmt.Sprintf("UPDATE %s: no hunks found", fuzzy.Repr(op.Path)))
		}
		if op.Kind == Move && op.MoveTo == "" {
			problems = append(problems, fmt.Sprintf("MOVE %s: missing destination path (expected 'src -> dst')", fuzzy.Repr(op.Path)))
		}
	}
	if len(problems) > 0 {
		return nil, &Error{Msg: "Parse error: " + strings.Join(problems, "; ")}
	}
	return ops, nil
}

// Error is a patch failure the model can act on. Its text is meant to be
// returned to the model verbatim.
type Error struct {
	// Msg is the failure in hermes-agent's wording.
	Msg string
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }
