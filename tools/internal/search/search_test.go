package search

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeTree creates files (slash paths → content) below a new folder,
// with modification times one hour apart in the order of names, and returns
// the folder.
func writeTree(t *testing.T, names []string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// nameIgnorer is an Ignorer whose .gitignore files list base names: a file
// or folder is excluded when a .gitignore of a folder above it lists its
// name. It records the folders whose .gitignore it was given.
type nameIgnorer struct {
	mu    sync.Mutex
	names map[string][]string // by folder
}

func (n *nameIgnorer) Set(dir string, data []byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.names == nil {
		n.names = map[string][]string{}
	}
	n.names[dir] = strings.Fields(string(data))
}

func (n *nameIgnorer) Excluded(rel string, isDir bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for dir, names := range n.names {
		if dir != "." && !strings.HasPrefix(rel, dir+"/") {
			continue
		}
		for _, name := range names {
			if path.Base(rel) == name {
				return true
			}
		}
	}
	return false
}

func (n *nameIgnorer) folders() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for d := range n.names {
		out = append(out, d)
	}
	return out
}

// rows flattens hits into "path:line:text" rows.
func rows(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		for _, e := range h.Entries {
			out = append(out, fmt.Sprintf("%s:%d:%s", h.Path, e.Line, e.Text))
		}
	}
	return out
}

func mustCompile(t *testing.T, q Query) *Search {
	t.Helper()
	s, err := Compile(q)
	if err != nil {
		t.Fatalf("Compile(%+v) = %v", q, err)
	}
	return s
}

// TestRunWalkRules checks what the walk searches: not hidden folders,
// node_modules, ignored files and folders, symbolic links, binary files
// or files over the size limit.
func TestRunWalkRules(t *testing.T) {
	t.Parallel()
	names := []string{"a.go", "sub/b.go", ".hidden/c.go", "node_modules/d.go", "sub/.gitignore", "sub/gen/e.go",
		"sub/skip.go", ".env.go", "bin.dat", "text.bin", "deep/f.txt"}
	files := map[string]string{
		"a.go": "needle a\n", "sub/b.go": "x\nneedle b\n", ".hidden/c.go": "needle c\n", "node_modules/d.go": "needle d\n",
		"sub/.gitignore": "gen skip.go\n", "sub/gen/e.go": "needle e\n", "sub/skip.go": "needle skip\n",
		".env.go": "needle env\n", "bin.dat": "needle\x00binary\n", "text.bin": "needle but binary by the caller\n",
		"deep/f.txt": "needle f\n",
	}
	dir := writeTree(t, names, files)
	if err := os.Symlink(filepath.Join(dir, "a.go"), filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte("needle big\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	ign := &nameIgnorer{}
	tree := Tree{
		Dir: openRoot(t, dir), Ignore: ign, IgnoreBase: ".",
		Binary: func(first []byte) bool { return strings.Contains(string(first), "binary by the caller") },
	}
	got, err := mustCompile(t, Query{Pattern: "needle", Keep: 100}).Run(context.Background(), tree, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env.go:1:needle env", "a.go:1:needle a", "deep/f.txt:1:needle f", "sub/b.go:2:needle b"}
	if diff := cmp.Diff(want, rows(got.Hits)); diff != "" {
		t.Errorf("Run rows mismatch (-want +got):\n%s", diff)
	}
	if got.Units != 4 || got.TimedOut || got.Omitted != 0 {
		t.Errorf("Run = %d units, timed out %v, %d omitted; want 4, false, 0", got.Units, got.TimedOut, got.Omitted)
	}
	if diff := cmp.Diff([]string{"sub"}, ign.folders()); diff != "" {
		t.Errorf("folders whose .gitignore the walk read mismatch (-want +got):\n%s", diff)
	}
}

// TestRunIgnoreBase checks that the ignore rules see paths below the
// caller's base, not below the searched folder.
func TestRunIgnoreBase(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, []string{"x/keep.txt", "x/drop.txt"}, map[string]string{"x/keep.txt": "hit\n", "x/drop.txt": "hit\n"})
	ign := &nameIgnorer{}
	ign.Set("proj/sub", []byte("drop.txt"))
	tree := Tree{Dir: openRoot(t, dir), Ignore: ign, IgnoreBase: "proj/sub"}
	got, err := mustCompile(t, Query{Pattern: "hit", Keep: 10}).Run(context.Background(), tree, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x/keep.txt:1:hit"}, rows(got.Hits)); diff != "" {
		t.Errorf("Run rows mismatch (-want +got):\n%s", diff)
	}
}

func TestRunModes(t *testing.T) {
	t.Parallel()
	names := []string{"a.txt", "b.go", "c/d.go"}
	files := map[string]string{
		"a.txt":  "one hit\ntwo\nthree hit\nfour\nfive\nsix\nseven hit\r\n" + strings.Repeat("é", MaxLineChars+5) + " hit\n",
		"b.go":   "hit\n",
		"c/d.go": "nothing\n",
	}
	dir := writeTree(t, names, files)
	root := openRoot(t, dir)
	run := func(q Query, tree Tree) Result {
		t.Helper()
		if tree.Dir == nil {
			tree.Dir = root
		}
		got, err := mustCompile(t, q).Run(context.Background(), tree, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	got := run(Query{Pattern: "hit", Context: 1, Keep: 100}, Tree{})
	want := []string{"a.txt:1:one hit", "a.txt:2:two", "a.txt:3:three hit", "a.txt:4:four",
		"a.txt:6:six", "a.txt:7:seven hit", "a.txt:8:" + strings.Repeat("é", MaxLineChars), "b.go:1:hit"}
	if diff := cmp.Diff(want, rows(got.Hits)); diff != "" {
		t.Errorf("Lines with context rows mismatch (-want +got):\n%s", diff)
	}
	if got.Units != len(want) {
		t.Errorf("Lines with context: Units = %d, want %d", got.Units, len(want))
	}

	got = run(Query{Pattern: "hit", Mode: Counts, Keep: 100}, Tree{})
	var counts []string
	for _, h := range got.Hits {
		counts = append(counts, fmt.Sprintf("%s=%d", h.Path, h.Count))
	}
	if diff := cmp.Diff([]string{"a.txt=4", "b.go=1"}, counts); diff != "" || got.CountSum != 5 || got.Units != 2 {
		t.Errorf("Counts = %v (sum %d, units %d), want a.txt=4 b.go=1 (sum 5, units 2); diff:\n%s", counts, got.CountSum, got.Units, diff)
	}

	got = run(Query{Pattern: "hit", Mode: Files, Glob: "*.go", Keep: 100}, Tree{Show: func(rel string) string { return "shown/" + rel }})
	if len(got.Hits) != 1 || got.Hits[0].Path != "shown/b.go" {
		t.Errorf("Files with glob *.go = %+v, want shown/b.go only", got.Hits)
	}

	got = run(Query{Pattern: "hit", Keep: 100}, Tree{Admit: func(rel string) bool { return rel != "a.txt" }})
	if diff := cmp.Diff([]string{"b.go:1:hit"}, rows(got.Hits)); diff != "" || got.Omitted != 4 || got.Units != 1 {
		t.Errorf("Admit refusing a.txt: rows %v, %d omitted, %d units; want b.go only, 4 omitted, 1 unit; diff:\n%s", rows(got.Hits), got.Omitted, got.Units, diff)
	}

	got = run(Query{Pattern: "hit", Keep: 100}, Tree{File: "b.go"})
	if diff := cmp.Diff([]string{"b.go:1:hit"}, rows(got.Hits)); diff != "" {
		t.Errorf("single file rows mismatch (-want +got):\n%s", diff)
	}
}

// TestRunNames checks a names search: newest first, bare words matched as
// substrings ignoring case, every name kept whatever Keep says.
func TestRunNames(t *testing.T) {
	t.Parallel()
	names := []string{"old_Config.yaml", "src/main.go", "src/config.go", "new-config.txt"}
	files := map[string]string{}
	dir := writeTree(t, names, files)
	got, err := mustCompile(t, Query{Pattern: "CONFIG", Names: true, Keep: 1}).Run(context.Background(), Tree{Dir: openRoot(t, dir)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range got.Hits {
		paths = append(paths, h.Path)
	}
	if diff := cmp.Diff([]string{"new-config.txt", "src/config.go", "old_Config.yaml"}, paths); diff != "" || got.Units != 3 {
		t.Errorf("names search mismatch (units %d, want 3) (-want +got):\n%s", got.Units, diff)
	}
}

// TestRunKeepsOnePage checks the top-k selection: every row is counted but
// only the files holding the first Keep rows in path order are kept.
func TestRunKeepsOnePage(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("d%02d/f.txt", i)
		names = append(names, name)
		files[name] = strings.Repeat("hit\n", 30)
	}
	dir := writeTree(t, names, files)
	got, err := mustCompile(t, Query{Pattern: "hit", Keep: 605}).Run(context.Background(), Tree{Dir: openRoot(t, dir)}, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got.Units != 1200 {
		t.Errorf("Units = %d, want 1200", got.Units)
	}
	var kept []string
	for _, h := range got.Hits {
		kept = append(kept, h.Path)
	}
	want := names[:21] // 21 files of 30 rows hold the first 605
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept files mismatch (-want +got):\n%s", diff)
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, []string{"a.txt", "b.txt", "c/d.txt"}, map[string]string{"a.txt": "x\n", "b.txt": "x\n", "c/d.txt": "x\n"})
	root := openRoot(t, dir)
	synctest.Test(t, func(t *testing.T) {
		// Every file takes longer than the search may.
		opts := Options{Workers: 2, Timeout: time.Minute, BeforeFile: func(ctx context.Context) { <-ctx.Done() }}
		start := time.Now()
		got, err := mustCompile(t, Query{Pattern: "x", Keep: 10}).Run(t.Context(), Tree{Dir: root}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != time.Minute {
			t.Errorf("search took %v of fake time, want exactly the 1m timeout", took)
		}
		if !got.TimedOut || got.Units != 0 {
			t.Errorf("timed-out Run = %+v, want TimedOut and nothing found", got)
		}
	})
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, []string{"a.txt"}, map[string]string{"a.txt": "x\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := mustCompile(t, Query{Pattern: "x", Keep: 10}).Run(ctx, Tree{Dir: openRoot(t, dir)}, Options{}); err != context.Canceled {
		t.Errorf("Run(cancelled) = %+v, %v; want context.Canceled", got, err)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Pattern: "a("}, "invalid regex \"a(\": missing closing ): `a(`"},
		{Query{Pattern: "a", Glob: "[x"}, "invalid glob pattern \"[x\": syntax error in pattern"},
		{Query{Pattern: "[x", Names: true}, "invalid glob pattern \"[x\": syntax error in pattern"},
	}
	for _, tt := range tests {
		if _, err := Compile(tt.q); err == nil || err.Error() != tt.want {
			t.Errorf("Compile(%+v) = %v, want %q", tt.q, err, tt.want)
		}
	}
}
