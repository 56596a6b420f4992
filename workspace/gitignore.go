package workspace

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// ignorePattern is one line of a .gitignore file.
type ignorePattern struct {
	re      *regexp.Regexp // matches a slash path relative to the file's directory
	negate  bool           // "!pattern" re-includes
	dirOnly bool           // "pattern/" matches directories only
}

// parseGitignore parses the patterns of one .gitignore file, following
// gitignore(5): blank lines and "#" comments are skipped, trailing spaces
// are dropped unless escaped with "\", "!" negates, a trailing "/" matches
// only directories, a "/" at the start or in the middle anchors the
// pattern to the file's directory (otherwise it matches a name at any
// depth), "*" and "?" and "[...]" do not match "/", and "**" matches any
// number of directories in "**/x", "x/**" and "x/**/y".
func parseGitignore(data []byte) []ignorePattern {
	var out []ignorePattern
	for _, line := range strings.Split(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		var p ignorePattern
		if strings.HasPrefix(line, "!") {
			p.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		re, err := regexp.Compile(globRegexp(line, anchored))
		if err != nil {
			continue // an unparsable pattern matches nothing, as in git
		}
		p.re = re
		out = append(out, p)
	}
	return out
}

// globRegexp translates a gitignore glob to an anchored regular expression
// over slash paths.
func globRegexp(pat string, anchored bool) string {
	var b strings.Builder
	if anchored {
		b.WriteString("^")
	} else {
		b.WriteString("^(?:.*/)?")
	}
	for i := 0; i < len(pat); {
		c := pat[i]
		switch c {
		case '*':
			j := i
			for j < len(pat) && pat[j] == '*' {
				j++
			}
			startOK := i == 0 || pat[i-1] == '/'
			endOK := j == len(pat) || pat[j] == '/'
			switch {
			case j-i == 2 && startOK && j == len(pat):
				b.WriteString(".*") // "x/**" and "**": everything below
				i = j
			case j-i == 2 && startOK && endOK:
				b.WriteString("(?:.*/)?") // "**/": zero or more directories
				i = j + 1
			default:
				b.WriteString("[^/]*")
				i = j
			}
		case '?':
			b.WriteString("[^/]")
			i++
		case '[':
			if class, n := globClass(pat[i:]); n > 0 {
				b.WriteString(class)
				i += n
			} else {
				b.WriteString(`\[`)
				i++
			}
		case '\\':
			if i+1 < len(pat) {
				b.WriteString(regexp.QuoteMeta(pat[i+1 : i+2]))
				i += 2
			} else {
				b.WriteString(`\\`)
				i++
			}
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
			i++
		}
	}
	b.WriteString("$")
	return b.String()
}

// globClass translates the bracket expression at the start of s and
// returns it with the number of bytes consumed, or 0 when s has no closing
// bracket (the "[" is then literal).
func globClass(s string) (string, int) {
	i := 1
	negate := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negate = true
		i++
	}
	var body strings.Builder
	first := true
	for i < len(s) {
		c := s[i]
		if c == ']' && !first {
			out := "["
			if negate {
				out += "^/"
			}
			return out + body.String() + "]", i + 1
		}
		first = false
		switch {
		case c == '\\' && i+1 < len(s):
			body.WriteString(regexp.QuoteMeta(s[i+1 : i+2]))
			i += 2
			continue
		case c == '-':
			body.WriteByte('-')
		case c == '[' || c == ']' || c == '^' || c == '\\':
			body.WriteByte('\\')
			body.WriteByte(c)
		default:
			body.WriteByte(c)
		}
		i++
	}
	return "", 0
}

// ignoreRules holds the .gitignore patterns of one root, by the slash path
// (relative to the root, "." for the root) of the directory holding each
// file. It is not safe for concurrent use; the watcher's event goroutine
// owns it.
type ignoreRules struct {
	byDir map[string][]ignorePattern
}

func newIgnoreRules() *ignoreRules {
	return &ignoreRules{byDir: make(map[string][]ignorePattern)}
}

// set replaces the patterns of the .gitignore in dir; empty data removes
// them.
func (ir *ignoreRules) set(dir string, data []byte) {
	pats := parseGitignore(data)
	if len(pats) == 0 {
		delete(ir.byDir, dir)
		return
	}
	ir.byDir[dir] = pats
}

// ignored reports whether the slash path rel (relative to the root) is
// ignored. A path is ignored when one of its parent directories is (git
// cannot re-include a file below an excluded directory), or when the last
// matching pattern, deeper .gitignore files overriding shallower ones,
// excludes it.
func (ir *ignoreRules) ignored(rel string, isDir bool) bool {
	if rel == "." || rel == "" || len(ir.byDir) == 0 {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if ir.match(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return ir.match(rel, isDir)
}

// match applies the patterns of every .gitignore above rel, shallowest
// first, and returns the verdict of the last one that matches.
func (ir *ignoreRules) match(rel string, isDir bool) bool {
	verdict := false
	dir := "."
	rest := rel
	for {
		for _, p := range ir.byDir[dir] {
			if p.dirOnly && !isDir {
				continue
			}
			if p.re.MatchString(rest) {
				verdict = !p.negate
			}
		}
		head, tail, ok := strings.Cut(rest, "/")
		if !ok {
			return verdict
		}
		dir = path.Join(dir, head)
		rest = tail
	}
}
