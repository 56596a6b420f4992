package search

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds matching lines. A pattern without regular
// expression metacharacters is searched as a literal; any other pattern is
// compiled with RE2 (package regexp), and when it has a literal every
// match must contain (case-sensitive, or ASCII case-insensitive under
// (?i)), that literal is found first and the expression runs only on the
// lines containing it. Literals are found by scanning for their rarest
// byte with bytes.IndexByte (SIMD), as ripgrep does with memchr.
type matcher struct {
	re    *regexp.Regexp // nil for a plain literal
	find  *finder        // required literal; nil when there is none
	never bool           // no line can match (the pattern needs a line break)
}

func compilePattern(pattern string) (*matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if regexp.QuoteMeta(pattern) == pattern {
		return &matcher{find: newFinder(pattern, false), never: strings.Contains(pattern, "\n")}, nil
	}
	m := &matcher{re: re}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		var exact, fold string
		for _, l := range required(parsed.Simplify()) {
			switch {
			case !l.fold && len(l.s) > len(exact):
				exact = l.s
			case l.fold:
				for _, piece := range foldPieces(l.s) {
					if len(piece) > len(fold) {
						fold = piece
					}
				}
			}
		}
		switch {
		case exact != "":
			m.find = newFinder(exact, false)
			m.never = strings.Contains(exact, "\n")
		case fold != "":
			m.find = newFinder(fold, true)
		}
	}
	return m, nil
}

// literal is a literal that every match contains; fold means it is
// matched ignoring case.
type literal struct {
	s    string
	fold bool
}

// required returns literals that every match of r contains.
func required(r *syntax.Regexp) []literal {
	switch r.Op {
	case syntax.OpLiteral:
		return []literal{{string(r.Rune), r.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(r.Sub[0])
	case syntax.OpRepeat:
		if r.Min >= 1 {
			return required(r.Sub[0])
		}
	case syntax.OpConcat:
		var out []literal
		var run strings.Builder
		runFold := false
		flush := func() {
			if run.Len() > 0 {
				out = append(out, literal{run.String(), runFold})
				run.Reset()
			}
		}
		for _, sub := range r.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if run.Len() > 0 && fold != runFold {
					flush()
				}
				runFold = fold
				run.WriteString(string(sub.Rune))
				continue
			}
			flush()
			out = append(out, required(sub)...)
		}
		flush()
		return out
	}
	return nil
}

// foldPieces splits a case-insensitive literal into the pieces an
// ASCII case-insensitive scan can find exactly: only ASCII text, and cut
// at k and s, which Unicode folding also matches to the Kelvin sign and
// the long s.
func foldPieces(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S'
	})
}

// byteRank orders bytes from most to least frequent in source code
// and prose; a byte not listed is rarer than all of them.
const byteRank = " etnaoirsldcu\n\tphmf.g(),_=;\"bywv:kx/-*{}0[]'>#1<2+&|!\\$ETSARCINOLDPMF"

// finder finds a literal by its rarest byte.
type finder struct {
	needle []byte // lower-cased when fold
	fold   bool
	rare   int  // index of the rarest byte in needle
	b1, b2 byte // the rarest byte and its other case (b2 == b1 when none)
}

func newFinder(lit string, fold bool) *finder {
	f := &finder{needle: []byte(lit), fold: fold}
	if fold {
		f.needle = bytes.ToLower(f.needle)
	}
	best := -1
	for i, c := range f.needle {
		rank := strings.IndexByte(byteRank, c)
		if rank < 0 {
			rank = len(byteRank)
		}
		if fold && 'a' <= c && c <= 'z' {
			if r := strings.IndexByte(byteRank, c-'a'+'A'); r >= 0 && r < rank {
				rank = r
			}
		}
		if rank > best {
			best, f.rare = rank, i
		}
	}
	if len(f.needle) > 0 {
		f.b1, f.b2 = f.needle[f.rare], f.needle[f.rare]
		if fold && 'a' <= f.b1 && f.b1 <= 'z' {
			f.b2 = f.b1 - 'a' + 'A'
		}
	}
	return f
}

// index returns the offset of the first occurrence of the literal in data,
// or -1.
func (f *finder) index(data []byte) int {
	n := len(f.needle)
	if n == 0 {
		return 0
	}
	if !f.fold && n > 1 && f.rare == 0 {
		return bytes.Index(data, f.needle)
	}
	pos := f.rare // the rare byte cannot occur earlier in a match
	next2 := -2   // cached next position of b2; -2 unknown, -1 none
	for pos < len(data) {
		c := bytes.IndexByte(data[pos:], f.b1)
		if c >= 0 {
			c += pos
		}
		if f.b2 != f.b1 {
			if next2 == -2 || (next2 >= 0 && next2 < pos) {
				next2 = bytes.IndexByte(data[pos:], f.b2)
				if next2 >= 0 {
					next2 += pos
				}
			}
			if next2 >= 0 && (c < 0 || next2 < c) {
				c = next2
			}
		}
		if c < 0 {
			return -1
		}
		start := c - f.rare
		if start+n <= len(data) && f.equal(data[start:start+n]) {
			return start
		}
		pos = c + 1
	}
	return -1
}

func (f *finder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.needle)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != f.needle[i] {
			return false
		}
	}
	return true
}

// checkEvery is how many lines each tests between two looks at the
// context: a 16 MiB file of short lines is left within about a millisecond
// of a cancel.
const checkEvery = 1024

// each calls fn for each matching line of data, in order, until fn
// returns false or ctx is done (one line is matched without a look).
func (m *matcher) each(ctx context.Context, data []byte, fn func(start, end int) bool) {
	if m.never {
		return
	}
	pos, tested := 0, 0
	if m.find != nil {
		for pos < len(data) {
			if tested++; tested%checkEvery == 0 && ctx.Err() != nil {
				return
			}
			i := m.find.index(data[pos:])
			if i < 0 {
				return
			}
			i += pos
			start := pos
			if j := bytes.LastIndexByte(data[pos:i], '\n'); j >= 0 {
				start = pos + j + 1
			}
			end := len(data)
			if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
				end = i + j
			}
			if (m.re == nil || m.re.Match(data[start:end])) && !fn(start, end) {
				return
			}
			pos = end + 1
		}
		return
	}
	for pos < len(data) {
		if tested++; tested%checkEvery == 0 && ctx.Err() != nil {
			return
		}
		end := len(data)
		if j := bytes.IndexByte(data[pos:], '\n'); j >= 0 {
			end = pos + j
		}
		if m.re.Match(data[pos:end]) && !fn(pos, end) {
			return
		}
		pos = end + 1
	}
}

// lines returns the matching lines of data with their numbers.
func (m *matcher) lines(ctx context.Context, data []byte) []line {
	var out []line
	no, at := 1, 0
	m.each(ctx, data, func(start, end int) bool {
		no += bytes.Count(data[at:start], []byte{'\n'})
		at = start
		out = append(out, line{no: no, start: start, end: end})
		return true
	})
	return out
}

// count returns how many lines of data match.
func (m *matcher) count(ctx context.Context, data []byte) int {
	n := 0
	m.each(ctx, data, func(int, int) bool { n++; return true })
	return n
}

// any reports whether a line of data matches.
func (m *matcher) any(ctx context.Context, data []byte) bool {
	found := false
	m.each(ctx, data, func(int, int) bool { found = true; return false })
	return found
}

// line is one matching line: its 1-based number and byte range.
type line struct {
	no         int
	start, end int
}
