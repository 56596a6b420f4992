package workspace

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// txtarFile is one file of a txtar archive.
type txtarFile struct {
	name string
	data []byte
}

// parseTxtar reads the txtar format (golang.org/x/tools/txtar): a comment,
// then files introduced by "-- name --" lines. It is enough for our
// fixtures and keeps the package free of another module.
func parseTxtar(data []byte) (comment []byte, files []txtarFile) {
	lines := strings.SplitAfter(string(data), "\n")
	cur := -1
	var buf strings.Builder
	flush := func() {
		if cur < 0 {
			comment = []byte(buf.String())
		} else {
			files[cur].data = []byte(buf.String())
		}
		buf.Reset()
	}
	for _, l := range lines {
		trimmed := strings.TrimRight(l, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			files = append(files, txtarFile{name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])})
			cur = len(files) - 1
			continue
		}
		buf.WriteString(l)
	}
	flush()
	return comment, files
}

func TestGitignoreFixtures(t *testing.T) {
	matches, err := filepath.Glob(filepath.Join("testdata", "gitignore", "*.txtar"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, fx := range matches {
		t.Run(filepath.Base(fx), func(t *testing.T) {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			_, files := parseTxtar(data)
			rules := newIgnoreRules()
			var want string
			for _, f := range files {
				switch {
				case f.name == "want":
					want = string(f.data)
				case path.Base(f.name) == ".gitignore":
					rules.set(path.Dir(f.name), f.data)
				}
			}
			for _, line := range strings.Split(strings.TrimRight(want, "\n"), "\n") {
				sp := strings.LastIndex(line, " ")
				p, verdict := line[:sp], line[sp+1:]
				isDir := strings.HasSuffix(p, "/")
				p = strings.TrimSuffix(p, "/")
				if got := rules.ignored(p, isDir); got != (verdict == "ignored") {
					t.Errorf("ignored(%q, dir=%v) = %v, want %s", p, isDir, got, verdict)
				}
			}
		})
	}
}

func TestGitignorePatterns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern string
		path    string
		isDir   bool
		want    bool
	}{
		{"*.o", "a.o", false, true},
		{"*.o", "deep/dir/a.o", false, true},
		{"*.o", "a.oo", false, false},
		{"/*.o", "a.o", false, true},
		{"/*.o", "deep/a.o", false, false},
		{"out/", "out", true, true},
		{"out/", "out", false, false},
		{"out", "out", false, true},
		{"src/gen", "src/gen", true, true},
		{"src/gen", "x/src/gen", true, false},
		{"*", "anything", false, true},
		{"**", "a/b", false, true},
		{"a?c", "abc", false, true},
		{"a?c", "a/c", false, false},
		{"a*c", "a/c", false, false},
		{"[a-c]x", "bx", false, true},
		{"[a-c]x", "dx", false, false},
		{"[!a]x", "/x", false, false},
		{"[]]x", "]x", false, true},
		{"[unclosed", "[unclosed", false, true},
		{"dot.*", "dot.txt", false, true},
		{"a+b(c)", "a+b(c)", false, true},
		{"", "x", false, false},
		{"# comment", "# comment", false, false},
		{"!x", "x", false, false},
	} {
		r := newIgnoreRules()
		r.set(".", []byte(tc.pattern+"\n"))
		if got := r.ignored(tc.path, tc.isDir); got != tc.want {
			t.Errorf("pattern %q: ignored(%q, dir=%v) = %v, want %v", tc.pattern, tc.path, tc.isDir, got, tc.want)
		}
	}
}

func TestGitignoreCRLFAndRemoval(t *testing.T) {
	t.Parallel()
	r := newIgnoreRules()
	r.set(".", []byte("*.tmp\r\nbuild/\r\n"))
	if !r.ignored("a.tmp", false) || !r.ignored("build", true) {
		t.Error("CRLF .gitignore lines not honoured")
	}
	r.set(".", nil)
	if r.ignored("a.tmp", false) {
		t.Error("patterns still apply after the .gitignore was removed")
	}
}
