package projctx

import (
	"crypto/sha256"
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode/utf8"
)

// Caps in characters (runes), as hermes counts them.
const (
	// RootMaxChars caps the workspace root's file in the system prompt
	// (hermes CONTEXT_FILE_MAX_CHARS, the floor of its window-derived cap).
	RootMaxChars = 20_000
	// FolderMaxChars caps a sub-folder's file in a tool result (hermes
	// _MAX_HINT_CHARS).
	FolderMaxChars = 32_000
	// MaxAncestors is how many folders, from the touched file's own folder
	// upwards, one touch looks at (hermes _MAX_ANCESTOR_WALK).
	MaxAncestors = 5
)

// Truncation keeps 70 % of the cap from the head and 20 % from the tail.
const (
	headShare = 0.7
	tailShare = 0.2
)

// names returns the context file names in precedence order: the first that
// a folder holds is that folder's project context. hermes prefers
// .hermes.md and HERMES.md to AGENTS.md, and AGENTS.md to agents.md.
func names() [4]string { return [4]string{".hermes.md", "HERMES.md", "AGENTS.md", "agents.md"} }

// skipped reports folders that hold copies of other projects, whose
// context files are not this project's (hermes SEARCH_PRUNE_DIR_NAMES).
func skipped(name string) bool {
	switch name {
	case ".git", "node_modules", "vendor", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache":
		return true
	}
	return false
}

// ReadFunc reads the file rel, a slash path relative to the workspace
// root ("AGENTS.md", "pkg/sub/AGENTS.md"). Any error (no such file, a
// folder, a file the workspace refuses to read) makes the name count as
// absent, and the next name in precedence order is tried.
type ReadFunc func(rel string) (string, error)

// File is one project context file as the model gets it.
type File struct {
	// Path is the file's slash path relative to the workspace root.
	Path string
	// Text is the file's content to show: trimmed, YAML front matter
	// removed, truncated to the cap; when Blocked is set it is the note
	// that says the content was not loaded.
	Text string
	// Blocked lists why the content was left out (see [Scan]); nil when
	// it was loaded.
	Blocked []string
	// Truncated reports that the content passed the cap.
	Truncated bool
	// Chars is the length in characters of the content before truncation.
	Chars int
}

// Load returns the context file of the folder dir ("." for the root):
// the first of .hermes.md, HERMES.md, AGENTS.md and agents.md that read
// returns with text after trimming, scanned and capped to max characters.
// ok is false when the folder holds none.
func Load(read ReadFunc, dir string, max int) (f File, ok bool) {
	f, _, ok = load(read, dir, max)
	return f, ok
}

func load(read ReadFunc, dir string, max int) (File, [32]byte, bool) {
	for _, name := range names() {
		rel := path.Join(dir, name)
		text, err := read(rel)
		if err != nil {
			continue
		}
		text = strings.TrimSpace(stripFrontMatter(strings.TrimPrefix(text, "\ufeff")))
		if text == "" {
			continue
		}
		return prepare(rel, text, max), sha256.Sum256([]byte(text)), true
	}
	return File{}, [32]byte{}, false
}

// prepare scans and caps the trimmed text of the file rel.
func prepare(rel, text string, max int) File {
	f := File{Path: rel, Chars: utf8.RuneCountInString(text)}
	if f.Blocked = Scan(text); f.Blocked != nil {
		f.Text = fmt.Sprintf("[BLOCKED: %s contained potential prompt injection (%s). Content not loaded.]", rel, strings.Join(f.Blocked, ", "))
		return f
	}
	f.Text, f.Truncated = Truncate(text, rel, max)
	return f
}

// stripFrontMatter drops a leading "---" YAML block so that only the
// Markdown body reaches the model, as hermes does.
func stripFrontMatter(s string) string {
	if !strings.HasPrefix(s, "---") {
		return s
	}
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return s
	}
	body := strings.TrimLeft(s[3+end+4:], "\n")
	if body == "" {
		return s
	}
	return body
}

// Truncate caps text at max characters the way hermes does: 70 % of max
// from the head, a marker naming the file and how much was kept, and 20 %
// from the tail. Text within the cap comes back unchanged.
func Truncate(text, name string, max int) (string, bool) {
	n := utf8.RuneCountInString(text)
	if n <= max {
		return text, false
	}
	head, tail := int(float64(max)*headShare), int(float64(max)*tailShare)
	runes := []rune(text)
	marker := fmt.Sprintf("\n\n[...truncated %s: kept %d+%d of %d chars. Use file tools to read the full file.]\n\n", name, head, tail, n)
	return string(runes[:head]) + marker + string(runes[n-tail:]), true
}

// Root loads the context file at the workspace root, capped at
// [RootMaxChars].
func Root(read ReadFunc) (File, bool) { return Load(read, ".", RootMaxChars) }

// Section renders the root's file for the system prompt, hermes's
// "# Project Context" block.
func Section(f File) string {
	return "# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n## " +
		f.Path + "\n\n" + f.Text + "\n"
}

// Note renders sub-folder files for a tool result, one hermes
// "[Subdirectory context discovered: PATH]" block each.
func Note(files []File) string {
	var b strings.Builder
	for i, f := range files {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[Subdirectory context discovered: %s]\n%s", f.Path, f.Text)
	}
	return b.String()
}

// Tracker finds the context files of the folders below one workspace root
// that tool calls touch, each folder once and each content once (the same
// file reached through another folder, or the root's own file, is not sent
// again). It is safe for concurrent use.
type Tracker struct {
	read ReadFunc

	mu      sync.Mutex
	visited map[string]bool   // folders looked at, by slash path
	seen    map[[32]byte]bool // digests of the contents handed out
}

// NewTracker returns a tracker for the root that read reads. With
// rootLoaded the root folder counts as visited (its file is in the system
// prompt) and its content as handed out; otherwise the root's file is
// handed out by the first touch below it, like any folder's.
func NewTracker(read ReadFunc, rootLoaded bool) *Tracker {
	t := &Tracker{read: read, visited: map[string]bool{}, seen: map[[32]byte]bool{}}
	if rootLoaded {
		t.visited["."] = true
		if _, sum, ok := load(read, ".", RootMaxChars); ok {
			t.seen[sum] = true
		}
	}
	return t
}

// Touch is called with the folder (a slash path relative to the root) of a
// file a tool call touched. It looks at that folder and its parents, at
// most [MaxAncestors] of them and stopping at the first folder already
// looked at, and returns the context files found, nearest folder first,
// each capped at [FolderMaxChars]. Folders below node_modules, vendor,
// .git and the like are skipped; so is a dir that leaves the root.
func (t *Tracker) Touch(dir string) []File {
	dir = path.Clean(dir)
	if dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(dir) {
		return nil
	}
	t.mu.Lock()
	var todo []string
	for d, i := dir, 0; i < MaxAncestors; i++ {
		if t.visited[d] {
			break
		}
		t.visited[d] = true
		if !hasSkipped(d) {
			todo = append(todo, d)
		}
		if d == "." {
			break
		}
		d = path.Dir(d)
	}
	t.mu.Unlock()
	var out []File
	for _, d := range todo {
		f, sum, ok := load(t.read, d, FolderMaxChars)
		if !ok {
			continue
		}
		t.mu.Lock()
		dup := t.seen[sum]
		t.seen[sum] = true
		t.mu.Unlock()
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

func hasSkipped(dir string) bool {
	for _, part := range strings.Split(dir, "/") {
		if skipped(part) {
			return true
		}
	}
	return false
}
