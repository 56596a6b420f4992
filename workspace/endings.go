package workspace

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// textLine is one line of a text: its content and its ending ("\r\n", "\n",
// "\r", or "" for a last line without one).
type textLine struct {
	content, ending string
}

// splitEndings splits text into lines, each with its own ending. A lone CR
// ends a line.
func splitEndings(text string) []textLine {
	var out []textLine
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
// write_file does; [PatchEndings] applies LF too. Lines are compared by a
// Myers diff bounded to one second; past that, some unchanged lines may be
// treated as changed, which can only give them the dominant ending.
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
	if !strings.ContainsAny(old, "\r\n") {
		return new
	}
	return keepEndings(old, new)
}

func keepEndings(old, new string) string {
	if new == "" {
		return new
	}
	a, b := splitEndings(old), splitEndings(new)
	dominant := dominantEnding(a)
	// Compare lines without their endings, but tell a last line without
	// one from a line with one, so it never gains or loses an ending.
	key := func(lines []textLine) string {
		var s strings.Builder
		for _, l := range lines {
			s.WriteString(l.content)
			if l.ending == "" {
				s.WriteString("\x00noeol")
			}
			s.WriteByte('\n')
		}
		return s.String()
	}
	dmp := diffmatchpatch.New()
	ra, rb, _ := dmp.DiffLinesToRunes(key(a), key(b))
	diffs := dmp.DiffMainRunes(ra, rb, false)

	var out strings.Builder
	out.Grow(len(new) + len(new)/16)
	i, j := 0, 0 // next line of a, of b
	for _, d := range diffs {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for k := range n {
				out.WriteString(b[j+k].content)
				out.WriteString(a[i+k].ending)
			}
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			i += n
		case diffmatchpatch.DiffInsert:
			for k := range n {
				l := b[j+k]
				out.WriteString(l.content)
				if l.ending != "" {
					out.WriteString(dominant)
				}
			}
			j += n
		}
	}
	return out.String()
}
