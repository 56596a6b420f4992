package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var savedPathRE = regexp.MustCompile(`Full output saved to: (\S+)`)

// saveOne runs one call whose result is over the per-result budget and
// returns the path its <persisted-output> note names.
func saveOne(t *testing.T, p *Pipeline, id string) string {
	t.Helper()
	outs := p.NewTurn().Run(context.Background(), []*Call{{ID: id, Name: "big", RawArgs: `{}`}}, RunOptions{})
	m := savedPathRE.FindStringSubmatch(outs[0].Content)
	if !outs[0].Persisted || m == nil {
		t.Fatalf("result of %s not saved: %.300s", id, outs[0].Content)
	}
	return m[1]
}

// TestSavedResult checks a pipeline recognises exactly the files its own
// budget saved: by the path its note gives, or that path through a
// symbolic link; not another session's file, the folder or a relative
// spelling.
func TestSavedResult(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big := Entry{Name: "big", Toolset: "t", MaxResultChars: 10_000, Handler: func(context.Context, *Call) (Result, error) {
		return Text(strings.Repeat("line of output\n", 2_000), false), nil
	}}
	reader := readerEntry("read_file", okHandler(""))
	results := filepath.Join(dir, "home", "results")
	mine := newTestPipeline(t, PipelineOptions{ResultsDir: results, SessionID: "s1"}, big, reader)
	theirs := newTestPipeline(t, PipelineOptions{ResultsDir: results, SessionID: "s2"}, big, reader)
	a, b := saveOne(t, mine, "call_1"), saveOne(t, mine, "call_2")
	other := saveOne(t, theirs, "call_1")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "home"), link); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(link, "results", filepath.Base(a))
	for _, tc := range []struct {
		name, path string
		want       bool
	}{
		{"first saved result", a, true},
		{"second saved result", b, true},
		{"through a symbolic link", viaLink, true},
		{"uncleaned spelling", filepath.Join(results, "x", "..", filepath.Base(b)), true},
		{"another session's result", other, false},
		{"the results folder", results, false},
		{"relative spelling", filepath.Base(a), false},
		{"a sibling name", a + ".txt", false},
	} {
		real, ok := mine.SavedResult(tc.path)
		if ok != tc.want || ok && real != filepath.Clean(tc.path) && tc.path != viaLink {
			t.Errorf("%s: SavedResult(%q) = %q, %v; want %v", tc.name, tc.path, real, ok, tc.want)
		}
		if ok && real != a && real != b {
			t.Errorf("%s: SavedResult(%q) = %q; want one of the saved files", tc.name, tc.path, real)
		}
	}
	if _, ok := theirs.SavedResult(a); ok {
		t.Errorf("session s2 recognises s1's result %s", a)
	}
}

// TestSavedResultRelativeDir checks a relative results dir gives notes with
// an absolute path, which read_file takes whatever the session's cwd.
func TestSavedResultRelativeDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	big := Entry{Name: "big", Toolset: "t", MaxResultChars: 10_000, Handler: func(context.Context, *Call) (Result, error) {
		return Text(strings.Repeat("line of output\n", 2_000), false), nil
	}}
	reader := readerEntry("read_file", okHandler(""))
	p := newTestPipeline(t, PipelineOptions{ResultsDir: "results", SessionID: "s1"}, big, reader)
	path := saveOne(t, p, "call_1")
	if !filepath.IsAbs(path) {
		t.Errorf("note names %q; want an absolute path", path)
	}
	if _, ok := p.SavedResult(path); !ok {
		t.Errorf("SavedResult(%q) = false; want the saved file", path)
	}
}

// TestSaveResult: a text a tool saves for the model (web_extract's full
// page) lands in the results dir and is readable like a saved result, and
// only by its own session; without a results dir nothing is saved.
func TestSaveResult(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	reader := readerEntry("read_file", okHandler(""))
	mine := newTestPipeline(t, PipelineOptions{ResultsDir: results, SessionID: "s1"}, reader)
	theirs := newTestPipeline(t, PipelineOptions{ResultsDir: results, SessionID: "s2"}, reader)
	path, err := mine.SaveResult("call_7_page1", "the whole page\n")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != results || !strings.Contains(filepath.Base(path), "call_7_page1") {
		t.Errorf("saved at %s, want a file of %s named for the call", path, results)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "the whole page\n" {
		t.Errorf("file holds %q, %v", b, err)
	}
	if _, ok := mine.SavedResult(path); !ok {
		t.Error("the session cannot read back the text it saved")
	}
	if _, ok := theirs.SavedResult(path); ok {
		t.Error("another session can read the saved text")
	}
	none := newTestPipeline(t, PipelineOptions{}, reader)
	if _, err := none.SaveResult("c", "x"); err == nil {
		t.Error("SaveResult without a results dir succeeded")
	}
}

// TestSavedResultsBounded: a result longer than the file bound is saved
// cut there, with a note at its end and a <persisted-output> note that says
// so; a session's saved results stay under its bound, the oldest removed
// first and no longer readable.
func TestSavedResultsBounded(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	big := Entry{Name: "big", Toolset: "t", MaxResultChars: 10_000, Handler: func(context.Context, *Call) (Result, error) {
		return Text(strings.Repeat("é line of output\n", 5_000), false), nil // 90 000 bytes
	}}
	reader := readerEntry("read_file", okHandler(""))
	p := newTestPipeline(t, PipelineOptions{ResultsDir: results, SessionID: "s1", MaxSavedFileBytes: 32 << 10, MaxSavedSessionBytes: 100 << 10}, big, reader)

	outs := p.NewTurn().Run(context.Background(), []*Call{{ID: "c1", Name: "big", RawArgs: `{}`}}, RunOptions{})
	m := regexp.MustCompile(`Its first ([\d,]+) bytes saved to: (\S+)`).FindStringSubmatch(outs[0].Content)
	if !outs[0].Persisted || m == nil {
		t.Fatalf("the cut result's note: %.400s", outs[0].Content)
	}
	first := m[2]
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 32<<10 || !strings.HasSuffix(string(data), "a saved result keeps at most its first 32 KiB ...]\n") || !strings.HasPrefix(string(data), "é line") {
		t.Errorf("saved file: %d bytes, ends %q", len(data), data[max(0, len(data)-120):])
	}
	var paths []string
	for i := range 4 {
		path, err := p.SaveResult(fmt.Sprintf("page%d", i), strings.Repeat("x", 30<<10))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	// 32 KiB + 4 × 30 KiB passes 100 KiB: the first two went, oldest first.
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the oldest saved result is still there: %v", err)
	}
	if _, ok := p.SavedResult(first); ok {
		t.Error("the removed result is still readable")
	}
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Errorf("the second oldest is still there: %v", err)
	}
	var total int64
	entries, _ := os.ReadDir(results)
	for _, e := range entries {
		fi, _ := e.Info()
		total += fi.Size()
		if fi.Size() > 32<<10 {
			t.Errorf("%s is %d bytes, over the file bound", e.Name(), fi.Size())
		}
	}
	if total > 100<<10 || len(entries) != 3 {
		t.Errorf("%d files, %d bytes saved; want 3 files under 100 KiB", len(entries), total)
	}
	for _, path := range paths[1:] {
		if _, ok := p.SavedResult(path); !ok {
			t.Errorf("%s is not readable", path)
		}
	}
}
