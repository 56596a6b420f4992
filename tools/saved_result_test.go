package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// savedEnv is a session whose budget saved the files in saved (as named →
// real path): its Deps.SavedResult reports them.
type savedEnv struct {
	*fakeEnv
	saved map[string]string
}

func newSavedEnv(env *fakeEnv, saved map[string]string) savedEnv {
	env.SavedResult = func(path string) (string, bool) {
		real, ok := saved[path]
		return real, ok
	}
	return savedEnv{env, saved}
}

func (e savedEnv) read(t *testing.T, args map[string]any) map[string]any {
	t.Helper()
	return readFileDecode(t, e.Run(t, "read_file", args))
}

// TestReadFileSavedResult checks read_file pages through a result the
// session's budget saved outside the workspace, shown indented so that a
// one-line JSON result is readable past read_file's line cut, and that
// nothing else beside it becomes readable.
func TestReadFileSavedResult(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{})
	results := filepath.Join(env.Home, ".hermes", "results")
	if err := os.MkdirAll(results, 0o700); err != nil {
		t.Fatal(err)
	}
	var matches []map[string]any
	for i := range 300 {
		matches = append(matches, map[string]any{"path": "f.go", "line": i + 1, "content": strings.Repeat("x", 40) + "MARK" + string(rune('a'+i%26))})
	}
	raw, err := json.Marshal(map[string]any{"total_count": len(matches), "matches": matches,
		"matches_text": strings.Repeat("é long text of one string value ", 300)})
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(results, "s1_call1_00000000.txt")
	other := filepath.Join(results, "s2_call1_11111111.txt")
	fakeWriteFile(t, mine, string(raw))
	fakeWriteFile(t, other, string(raw))
	se := newSavedEnv(env, map[string]string{mine: mine})

	got := se.read(t, map[string]any{"path": mine, "offset": 1, "limit": 2000})
	content, _ := got["content"].(string)
	if got["error"] != nil || !strings.Contains(content, `"total_count": 300`) || strings.Count(content, "MARK") != 300 {
		t.Fatalf("read_file(saved) = %.400v; want every match of the saved result", got)
	}
	if strings.Contains(content, "[truncated]") {
		t.Errorf("read_file(saved) cut a line: %.400s", content)
	}
	// The rows, joined, are the whole value: compacted, the saved file.
	var joined strings.Builder
	for _, row := range strings.Split(content, "\n") {
		_, text, _ := strings.Cut(row, "|")
		if utf8.RuneCountInString(text) > readFileMaxLineChars {
			t.Errorf("row of %d characters, want at most %d", utf8.RuneCountInString(text), readFileMaxLineChars)
		}
		joined.WriteString(text)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(joined.String())); err != nil || compact.String() != string(raw) {
		t.Errorf("the rows read back, joined and compacted, differ from the saved result (err %v)", err)
	}
	// Paging: the indented form has one member a line.
	page := se.read(t, map[string]any{"path": mine, "offset": 10, "limit": 5})
	if c, _ := page["content"].(string); strings.Count(c, "\n") != 4 || !strings.HasPrefix(c, "10|") || page["truncated"] != true {
		t.Errorf("read_file(saved, offset 10, limit 5) = %v; want lines 10-14 and truncated", page)
	}

	for name, path := range map[string]string{
		"another session's result": other,
		"the results folder":       results,
		"a sibling path":           mine + ".bak",
	} {
		got := se.read(t, map[string]any{"path": path})
		if msg, _ := got["error"].(string); !strings.Contains(msg, "outside the workspace") {
			t.Errorf("read_file(%s %s) = %.300v; want refused as outside the workspace", name, path, got)
		}
	}

	// A symbolic link put in place of the saved file is not followed.
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, mine); err != nil {
		t.Fatal(err)
	}
	if got := se.read(t, map[string]any{"path": mine}); got["error"] == nil {
		t.Errorf("read_file(saved file replaced by a symlink) = %.300v; want an error", got)
	}
}
