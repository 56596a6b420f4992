package workspace

import (
	"strings"

	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// textLine is one line of a text: its content and its ending ("\r\n", "\n",
// "\r", or "" for a last line without one).
type textLine struct {
	content, ending string
}

// splitEndings splits text into lines, each with its own ending. A lone CR
// ends a line.
func splitEndings(text string) []textLine {
	out := make([]textLine, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			out = append(out, textLine{content: text})
			break
		}
		n := 1
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			n = 2
		}
		out = append(out, textLine{content: text[:i], ending: text[i : i+n]})
		text = text[i+n:]
	}
	return out
}

// dominantEnding returns the line ending most lines of lines end with
// (ties go to the one seen first), or "" when no line has one.
func dominantEnding(lines []textLine) string {
	counts := map[string]int{}
	best := ""
	for _, l := range lines {
		if l.ending == "" {
			continue
		}
		counts[l.ending]++
		if best == "" || counts[l.ending] > counts[best] {
			best = l.ending
		}
	}
	return best
}

// KeepEndings returns new, the edited text of a file whose text was old,
// with old's line-ending conventions applied without touching lines the
// edit left alone: each line of new that is unchanged from old (matched by
// a line diff that ignores endings) keeps the ending it has in old, and each
// new or changed line gets old's dominant ending. When old has no CR at all
// (LF line endings, or none), new is returned as given, as hermes's
// write_file does; [PatchEndings] applies LF too. Lines are matched by a
// line diff of bounded work; past that bound the lines between the first
// and the last change all count as changed and get the dominant ending.
func KeepEndings(old, new string) string {
	if !strings.Contains(old, "\r") {
		return new
	}
	return keepEndings(old, new)
}

// PatchEndings is [KeepEndings] as hermes's patch applies it: new and
// changed lines get old's dominant ending even when that is LF, so a CRLF
// in a replacement does not land in an LF file. When old has no line
// ending at all, new is returned as given.
func PatchEndings(old, new string) string {
	if !strings.ContainsAny(old, "\r\n") || !strings.Contains(old, "\r") && !strings.Contains(new, "\r") {
		return new // no endings to go by, or LF everywhere already
	}
	return keepEndings(old, new)
}

func keepEndings(old, new string) string {
	if new == "" {
		return new
	}
	a, b := splitEndings(old), splitEndings(new)
	dominant := dominantEnding(a)
	matched := matchLines(a, b)
	var out strings.Builder
	out.Grow(len(new) + len(new)/16)
	for j, l := range b {
		out.WriteString(l.content)
		switch i := matched[j]; {
		case l.ending == "":
		case i >= 0:
			out.WriteString(a[i].ending)
		default:
			out.WriteString(dominant)
		}
	}
	return out.String()
}

// maxEditWork bounds the work of matchLines's line diff: a lower bound on
// the edits it needs times the lines it compares (see [diff.Match]).
const maxEditWork = 20_000_000

// matchLines returns, for each line of b, the index of the line of a it is
// unchanged from, or -1 for a new or changed line. Lines are compared by
// content, and a last line without an ending never matches one with an
// ending. The common head and tail are matched directly; the lines between
// are matched by a line diff ([diff.Match]) when it needs no more than
// maxEditWork work, and otherwise all count as changed.
func matchLines(a, b []textLine) []int {
	var ids diff.Interner[textLine]
	intern := func(lines []textLine) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			key := textLine{content: l.content}
			if l.ending == "" {
				key.ending = "none"
			}
			out[i] = ids.ID(key)
		}
		return out
	}
	ia := intern(a)
	return diff.Match(ia, intern(b), maxEditWork)
}
