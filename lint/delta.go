package lint

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// Result is the delta lint of one edit: the diagnostics of the new content,
// split into those the edit introduced and those that were already there.
// A Result is a value; its methods render it for the model
// ([Result.ModelLint]), the approval prompt ([Result.Summary]), the editor
// ([Result.Diagnostics], [Result.Meta]) and the syntax gate ([Result.Gate]).
type Result struct {
	// Language is the language the content was checked as.
	Language Language
	// Introduced holds the new content's diagnostics that the edit
	// introduced, in order. Never nil in a Result from Delta.
	Introduced []protocol.Diagnostic
	// Preexisting holds the new content's diagnostics that were already in
	// the old content, in order. Never nil in a Result from Delta.
	Preexisting []protocol.Diagnostic
	// Skipped is true when the language has no linter.
	Skipped bool
	// SkipReason says why the lint was skipped, in hermes-agent's words
	// ("No linter for .txt files").
	SkipReason string
	// Elsewhere holds the diagnostics the edit introduced in other files:
	// the Go type check's errors in other files of the edited package (a
	// renamed function still called there), by file. Set by [Result.WithTypes].
	Elsewhere []FileDiagnostics
	// TypesPending is true when the Go type check of the edit had not
	// finished when this Result was rendered: its findings go to the
	// editor as diagnostics when they are ready.
	TypesPending bool
}

// maxDiffLines bounds the changed middle of the two contents (in lines, old
// and new together) that is given to the line diff; a larger rewrite counts
// as changed throughout, so every diagnostic in it is introduced. go-diff
// (under [diff.LineMap]) encodes each distinct line as one rune and cannot
// encode more than about 1.1 million of them.
const maxDiffLines = 400_000

// delta is the delta lint behind [Linter.Delta] (a nil *Linter is its pure
// form, remembering nothing). It lints after, the new content of a file, as
// lang with the checker chk and classifies each diagnostic as introduced by
// the edit or pre-existing in before, the old content:
//
//   - when after is clean, before is never linted (the hot path);
//   - before == nil means a new file: every diagnostic is introduced;
//   - a diagnostic on a line that the edit changed is introduced, so before
//     is linted only when some diagnostic sits on an unchanged line (for a
//     small edit; after a large rewrite before is linted first, and the line
//     diff is skipped when it is clean);
//   - otherwise a diagnostic is pre-existing when it sits on a line of after
//     that a line diff of before and after leaves unchanged, and the
//     corresponding line of before carries a diagnostic with the same code
//     and the same message, line numbers inside messages aside (each before
//     diagnostic vouches for one after diagnostic). So an error that only
//     moved because lines were inserted above it is pre-existing, and any
//     diagnostic on a changed line is introduced.
//
// A large Go file is parsed in pieces on several goroutines, and the
// declarations the edit left alone are parsed once for both contents (see
// gopieces.go); the diagnostics and their classification are those of
// whole-file parses. A [Linter] also remembers them across calls.
//
// For [LanguageNone] the Result is skipped with a generic reason; use
// [Linter.DeltaFile] to get hermes-agent's "No linter for <ext> files".
// after is linted first and once, before at most once and only when needed.
func delta(chk checker, lang Language, before, after []byte) Result {
	r := Result{Language: lang, Introduced: []protocol.Diagnostic{}, Preexisting: []protocol.Diagnostic{}}
	if lang == LanguageNone {
		r.Skipped = true
		r.SkipReason = "No linter for this file type"
		return r
	}
	afterFs := chk(lang, after)
	if len(afterFs) == 0 {
		return r
	}
	var introduced []bool // nil: all introduced
	if before != nil {
		introduced = classifyEdit(func() []finding { return chk(lang, before) }, before, after, afterFs)
	}
	m := newRangeCursor(NewMapper(after))
	for i, f := range afterFs {
		d := protocol.Diagnostic{
			Range:    m.clampedRange(f.start, f.end),
			Severity: f.severity,
			Code:     f.code,
			Source:   Source,
			Message:  f.message,
		}
		if introduced == nil || introduced[i] {
			r.Introduced = append(r.Introduced, d)
		} else {
			r.Preexisting = append(r.Preexisting, d)
		}
	}
	return r
}

// lineKey identifies a diagnostic of the old content for matching: its line,
// code and normalised message.
type lineKey struct {
	line    int
	code    string
	message string
}

// smallEditLines is the size of a changed middle (old and new lines
// together) up to which the line diff is computed before the old content is
// linted: it is cheap, and when every diagnostic sits on a changed line the
// old content need not be parsed at all.
const smallEditLines = 2000

// classifyEdit reports, for each finding of after, whether the edit from
// before introduced it; nil means all of them. The old content is linted only
// when a finding sits on a line the edit left unchanged, and the line diff is
// computed only when needed too: up front for a small edit, else only when
// the old content has findings.
func classifyEdit(lintBefore func() []finding, before, after []byte, afterFs []finding) []bool {
	bText, aText := newTextLines(before), newTextLines(after)
	prefix, suffix := commonLines(bText, aText)
	var toBefore []int
	if bText.count()+aText.count()-2*(prefix+suffix) <= smallEditLines {
		toBefore = mapLines(bText, aText, prefix, suffix, maxDiffLines)
		unchanged := false
		for _, f := range afterFs {
			if toBefore[aText.lineOf(f.start)] >= 0 {
				unchanged = true
				break
			}
		}
		if !unchanged {
			return nil
		}
	}
	beforeFs := lintBefore()
	if len(beforeFs) == 0 {
		return nil
	}
	if toBefore == nil {
		toBefore = mapLines(bText, aText, prefix, suffix, maxDiffLines)
	}
	return classify(bText, aText, toBefore, beforeFs, afterFs)
}

// classify reports, for each finding of after, whether the edit introduced
// it, given the old content's findings and the line map from after to before.
func classify(bText, aText textLines, toBefore []int, beforeFs, afterFs []finding) []bool {
	vouchers := make(map[lineKey]int, len(beforeFs))
	for _, f := range beforeFs {
		vouchers[lineKey{bText.lineOf(f.start), f.code, normalizeMessage(f.message)}]++
	}
	introduced := make([]bool, len(afterFs))
	for i, f := range afterFs {
		bl := toBefore[aText.lineOf(f.start)]
		k := lineKey{bl, f.code, normalizeMessage(f.message)}
		if bl >= 0 && vouchers[k] > 0 {
			vouchers[k]--
			continue
		}
		introduced[i] = true
	}
	return introduced
}

// lineNumbers matches the line and column numbers that messages may quote
// ("already defined at line 3", "started at go.mod:2:1").
var lineNumbers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i:\b(?:lines?|columns?|col)\s+|:)\d+`) })

// normalizeMessage replaces line and column numbers in msg with "#", so that
// an error whose message quotes a line that moved still matches.
func normalizeMessage(msg string) string {
	if !strings.ContainsAny(msg, "0123456789") {
		return msg // most messages: no regular expression needed
	}
	return lineNumbers().ReplaceAllStringFunc(msg, func(s string) string {
		i := len(s)
		for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
			i--
		}
		return s[:i] + "#"
	})
}

// textLines splits content into the lines a line diff sees: each ends after
// a "\n", and a last line without one counts too.
type textLines struct {
	content []byte
	// newlines holds the offset of every "\n".
	newlines []int
}

// newTextLines indexes content's line breaks.
func newTextLines(content []byte) textLines {
	newlines := make([]int, 0, bytes.Count(content, []byte{'\n'}))
	return textLines{content: content, newlines: appendNewlines(newlines, content, 0)}
}

// count returns the number of lines.
func (t textLines) count() int {
	n := len(t.newlines)
	if len(t.content) > 0 && t.content[len(t.content)-1] != '\n' {
		n++
	}
	return n
}

// lineOf returns the line holding offset off; the end of content after a
// final "\n" is line count(), one past the last.
func (t textLines) lineOf(off int) int {
	return sort.SearchInts(t.newlines, off)
}

// start returns the offset where line i starts (len(content) for i >= count()).
func (t textLines) start(i int) int {
	switch {
	case i == 0:
		return 0
	case i > len(t.newlines):
		return len(t.content)
	}
	return t.newlines[i-1] + 1
}

// commonLines returns how many lines before and after share at their start
// (prefix) and, after those, at their end (suffix). It compares bytes, not
// lines: a line is shared when its bytes and the line break ending it are.
func commonLines(before, after textLines) (prefix, suffix int) {
	nb, na := before.count(), after.count()
	b, a := before.content, after.content
	p := diff.CommonPrefix(b, a)
	prefix = sort.SearchInts(after.newlines, p) // each "\n" before p ends a shared line
	if p == len(a) && p == len(b) {
		return na, 0 // identical; a last line without "\n" is shared too
	}
	pa, pb := after.start(prefix), before.start(prefix) // equal
	s := diff.CommonSuffix(b[pb:], a[pa:])
	// The last k lines are shared when the bytes from the start of the
	// first of them to the end are, and that start is a line start in both:
	// each "\n" inside the shared end starts one such line in both.
	first := sort.SearchInts(after.newlines, len(a)-s)
	suffix = len(after.newlines) - first
	if s > 0 && a[len(a)-1] == '\n' {
		suffix-- // the final "\n" starts no line
	}
	// The line starting right where the shared bytes start is shared too
	// when that is a line start in both.
	if x, y := len(a)-s, len(b)-s; x < len(a) && (x == 0 || a[x-1] == '\n') && (y == 0 || b[y-1] == '\n') {
		suffix++
	}
	return prefix, max(0, min(suffix, nb-prefix, na-prefix))
}

// mapLines returns, for each line of after and for the end of after (index
// count()), the line of before it is unchanged from, or -1 when the edit
// changed it. The prefix and suffix lines, from [commonLines], map directly;
// the changed middle goes through a line diff ([diff.LineMap]) unless it has
// more than limit lines, in which case all of it counts as changed.
func mapLines(before, after textLines, prefix, suffix, limit int) []int {
	nb, na := before.count(), after.count()
	toBefore := make([]int, na+1)
	for i := range toBefore {
		toBefore[i] = -1
	}
	for i := range prefix {
		toBefore[i] = i
	}
	for j := range suffix {
		toBefore[na-1-j] = nb - 1 - j
	}
	if midB, midA := nb-prefix-suffix, na-prefix-suffix; midB > 0 && midA > 0 && midB+midA <= limit {
		diffMiddle(toBefore, prefix,
			string(before.content[before.start(prefix):before.start(nb-suffix)]),
			string(after.content[after.start(prefix):after.start(na-suffix)]))
	}
	// The end of the content is unchanged when the last lines are.
	if (na == 0 && nb == 0) || (na > 0 && nb > 0 && toBefore[na-1] == nb-1) {
		toBefore[na] = nb
	}
	return toBefore
}

// diffMiddle maps the unchanged lines of the changed middle of two contents,
// which starts at line first in both, with a line diff ([diff.LineMap]).
func diffMiddle(toBefore []int, first int, before, after string) {
	for k, i := range diff.LineMap(before, after) {
		if i >= 0 {
			toBefore[first+k] = first + i
		}
	}
}
