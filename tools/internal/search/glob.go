package search

import (
	"fmt"
	"path"
	"strings"
)

// glob matches files by name or by path, as ripgrep's --glob does: a
// pattern without "/" matches the file name at any depth, one with "/"
// matches the path below the search root ("**" spans directories). A
// leading "!" negates; "{a,b}" alternates.
type glob struct {
	alts   [][]string // each alternative split on "/"
	byPath bool
	negate bool
	fold   bool // compare case-insensitively (bare names)
}

// compileGlob compiles pattern. With bare, a pattern without any
// glob metacharacter is a substring of the name (hermes's bare-name
// wrapping), matched case-insensitively.
func compileGlob(pattern string, bare bool) (*glob, error) {
	g := &glob{}
	p := strings.TrimSpace(pattern)
	if strings.HasPrefix(p, "!") {
		g.negate = true
		p = p[1:]
	}
	if p == "" {
		p = "*"
	}
	if bare && !strings.ContainsAny(p, "*?[{/") {
		p = "*" + strings.ToLower(p) + "*"
		g.fold = true
	}
	p = strings.TrimPrefix(p, "/")
	g.byPath = strings.Contains(strings.TrimPrefix(p, "**/"), "/")
	if !g.byPath {
		p = strings.TrimPrefix(p, "**/")
	}
	for _, alt := range expandBraces(p) {
		segs := strings.Split(alt, "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("invalid glob pattern %q: %v", pattern, err)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// match reports whether the file at slash path rel (below the search
// root) with base name name is selected.
func (g *glob) match(rel, name string) bool {
	if g.fold {
		rel, name = strings.ToLower(rel), strings.ToLower(name)
	}
	hit := false
	for _, alt := range g.alts {
		if g.byPath {
			hit = matchSegs(alt, strings.Split(rel, "/"))
		} else {
			hit, _ = path.Match(alt[0], name)
		}
		if hit {
			break
		}
	}
	return hit != g.negate
}

// matchSegs matches path segments against pattern segments, "**"
// matching any number of segments.
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			pat = pat[1:]
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// expandBraces expands "{a,b}" alternatives (nested ones too) into
// plain patterns. Unbalanced braces are left as they are.
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth := 0
	var parts []string
	last := open + 1
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case ',':
			if depth == 1 {
				parts = append(parts, p[last:i])
				last = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, p[last:i])
				var out []string
				for _, rest := range expandBraces(p[i+1:]) {
					for _, part := range parts {
						for _, inner := range expandBraces(part) {
							out = append(out, p[:open]+inner+rest)
						}
					}
				}
				return out
			}
		}
	}
	return []string{p}
}
