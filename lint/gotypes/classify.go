package gotypes

import (
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/internal/diff"
	"github.com/hermes-acp/hermes-acp/lint"
)

// classify builds the Result of an edit from the type errors of the
// package before and after it. An error after the edit is matched with
// one before it, in the same file, by its message (positions in it aside)
// and its line mapped through a line diff of the file's two versions; an
// error on a line the edit changed is also matched with an unmatched error
// of the same message on a changed line before it (the model rewrote the
// line and the error stayed). Each error before vouches for one after.
// What stays unmatched is introduced. Errors in files the edit left alone
// keep their lines, so an error the edit caused in another file of the
// package (a renamed function still called there) is introduced there.
func classify(dir, edited string, before, after *state, bErrs, aErrs []typeError) Result {
	r := Result{Dir: dir}
	// An error without a position, or outside the checked files, goes at
	// the start of the edited file.
	byFile := func(s *state, errs []typeError) map[string][]typeError {
		in := map[string]bool{}
		for _, f := range s.all() {
			in[filepath.Join(dir, f.name)] = true
		}
		m := map[string][]typeError{}
		for _, e := range errs {
			if e.off < 0 || !in[e.file] {
				e.file, e.off = edited, 0
			}
			m[e.file] = append(m[e.file], e)
		}
		return m
	}
	bBy, aBy := byFile(before, bErrs), byFile(after, aErrs)
	files := after.all()
	slices.SortFunc(files, func(a, b *srcFile) int { return strings.Compare(a.name, b.name) })
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		out := File{Path: path}
		errs := aBy[path]
		if len(errs) == 0 {
			r.Files = append(r.Files, out)
			continue
		}
		old := before.files[f.name]
		var oldErrs []typeError
		if old != nil && slices.Contains(before.all(), old) {
			oldErrs = bBy[path]
		}
		out.Findings = matchFile(old, f, oldErrs, errs)
		r.Files = append(r.Files, out)
	}
	return r
}

// matchFile classifies the errors of one file after the edit (in f)
// against its errors before (in old, nil for a new file).
func matchFile(old, f *srcFile, oldErrs, errs []typeError) []Finding {
	aLines := lineStarts(f.content)
	var bLines []int
	var toBefore []int // after line → before line, or -1
	switch {
	case old == nil:
	case old.hash == f.hash:
		bLines = aLines
		toBefore = make([]int, len(aLines))
		for i := range toBefore {
			toBefore[i] = i
		}
	default:
		bLines = lineStarts(old.content)
		toBefore = diff.LineMap(string(old.content), string(f.content))
	}
	type key struct {
		line int
		msg  string
	}
	vouchers := map[key][]int{}
	changedBefore := map[int]bool{} // before lines that no after line maps to
	if old != nil {
		mapped := make([]bool, len(bLines)+1)
		for _, b := range toBefore {
			if b >= 0 && b < len(mapped) {
				mapped[b] = true
			}
		}
		for i := range bLines {
			if !mapped[i] {
				changedBefore[i] = true
			}
		}
		for i, e := range oldErrs {
			k := key{lineOf(bLines, e.off), normalize(e.msg)}
			vouchers[k] = append(vouchers[k], i)
		}
	}
	used := make([]bool, len(oldErrs))
	take := func(k key) int {
		for len(vouchers[k]) > 0 {
			i := vouchers[k][0]
			vouchers[k] = vouchers[k][1:]
			if !used[i] {
				used[i] = true
				return i
			}
		}
		return -1
	}
	am, bm := lint.NewMapper(f.content), (*lint.Mapper)(nil)
	if old != nil {
		bm = lint.NewMapper(old.content)
	}
	out := make([]Finding, len(errs))
	var second []int // errors on changed lines, for the second pass
	for i, e := range errs {
		out[i] = Finding{Diagnostic: diagnostic(am, f.content, e), Introduced: true}
		if old == nil {
			continue
		}
		l := lineOf(aLines, e.off)
		b := -1
		if l < len(toBefore) {
			b = toBefore[l]
		}
		if b < 0 {
			second = append(second, i)
			continue
		}
		if j := take(key{b, normalize(e.msg)}); j >= 0 {
			out[i].Introduced = false
			out[i].Before = bm.ClampedRange(oldErrs[j].off, tokenEnd(old.content, oldErrs[j].off))
		}
	}
	for _, i := range second {
		msg := normalize(errs[i].msg)
		for j, oe := range oldErrs {
			if !used[j] && changedBefore[lineOf(bLines, oe.off)] && normalize(oe.msg) == msg {
				used[j] = true
				out[i].Introduced = false
				out[i].Before = bm.ClampedRange(oe.off, tokenEnd(old.content, oe.off))
				break
			}
		}
	}
	return out
}

// diagnostic converts a type error in content to LSP.
func diagnostic(m *lint.Mapper, content []byte, e typeError) protocol.Diagnostic {
	off := max(e.off, 0)
	d := protocol.Diagnostic{
		Range:    m.ClampedRange(off, tokenEnd(content, off)),
		Severity: protocol.DiagnosticSeverityError,
		Code:     lint.CodeGoTypes,
		Source:   lint.Source,
		Message:  oneLine(e.msg),
	}
	for _, r := range e.related {
		if r.file != e.file || r.off < 0 {
			continue // another file's position cannot be mapped here
		}
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: lint.URI(fileURI(e.file)), Range: m.ClampedRange(r.off, tokenEnd(content, r.off))},
			Message:  oneLine(r.msg),
		})
	}
	return d
}

// lineStarts returns the offset where each line of content starts.
func lineStarts(content []byte) []int {
	starts := []int{0}
	for i, c := range content {
		if c == '\n' && i+1 < len(content) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf returns the line holding offset off (line 0 for a negative one).
func lineOf(starts []int, off int) int {
	i, found := slices.BinarySearch(starts, off)
	if found {
		return i
	}
	return max(i-1, 0)
}

// tokenEnd returns where the token at off ends, for a diagnostic's range:
// after an identifier or number, after a string literal on its line, else
// after one rune.
func tokenEnd(content []byte, off int) int {
	if off >= len(content) {
		return len(content)
	}
	if q := content[off]; q == '"' || q == '`' || q == '\'' {
		for i := off + 1; i < len(content) && content[i] != '\n'; i++ {
			switch {
			case q != '`' && content[i] == '\\':
				i++
			case content[i] == q:
				return i + 1
			}
		}
	}
	end := off
	for end < len(content) {
		r, size := utf8.DecodeRune(content[end:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		end += size
	}
	if end == off {
		_, size := utf8.DecodeRune(content[off:])
		end += size
	}
	return end
}

// positions matches file positions quoted in messages.
var positions = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.go:\d+(:\d+)?`) })

// normalize is the part of a message that identifies an error across an
// edit: one line, positions quoted in it replaced.
func normalize(msg string) string {
	msg = oneLine(msg)
	if strings.Contains(msg, ".go:") {
		msg = positions().ReplaceAllString(msg, ".go:#")
	}
	return msg
}

// oneLine folds a multi-line message of go/types onto one line: each line
// break, with the indentation around it, becomes one space.
func oneLine(msg string) string {
	if !strings.ContainsAny(msg, "\r\n") {
		return strings.TrimSpace(msg)
	}
	var parts []string
	for line := range strings.Lines(msg) {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, " ")
}

// fileURI is the file:// URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
