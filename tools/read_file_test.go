package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/hermes-acp/hermes-acp/registry"
)

// readFileDecode decodes a tool result into a generic JSON object.
func readFileDecode(t testing.TB, r registry.Result) map[string]any {
	t.Helper()
	return resultObject(t, r)
}

// readFileMsgImage is hermes's answer for an image file in a session that
// enables vision_analyze.
const readFileMsgImage = "Image file detected. read_file cannot show images; use vision_analyze with this file path to inspect the image contents."

// readFileLines returns n numbered lines "line 1\n" ... "line n\n".
func readFileLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// readFileFixture loads a txtar archive of testdata/read_file.
func readFileFixture(t *testing.T, name string) *txtar.Archive {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "read_file", name))
	if err != nil {
		t.Fatal(err)
	}
	return ar
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 2500)
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{
		"hello.txt":      "hello\nworld\n",
		"ten.txt":        readFileLines(10),
		"bom.txt":        "\ufeffhello\nsecond\n",
		"crlf.txt":       "a\r\nb\r\n",
		"long.txt":       long + "\nshort\n",
		"nonl.txt":       "a\nb",
		"empty.txt":      "",
		"dir/inner.txt":  "inner\n",
		"archive.zip":    "PK",
		"report.docx":    "PK",
		"data.weird":     strings.Repeat("\x01\x02\x03 ", 100),
		".env":           "TOKEN=secret\n",
		"sub/.env.local": "TOKEN=secret\n",
		"unicode.txt":    "héllo wörld\n",
	}})
	env.WriteFile(t, "pic.png", "\x89PNG\r\n\x1a\n0123456789")

	tests := []struct {
		name string
		args map[string]any
		want map[string]any
	}{
		{"whole file", map[string]any{"path": "hello.txt"}, map[string]any{
			"content": "1|hello\n2|world", "total_lines": 2.0, "file_size": 12.0, "truncated": false}},
		{"absolute path", map[string]any{"path": env.Abs("hello.txt")}, map[string]any{
			"content": "1|hello\n2|world", "total_lines": 2.0, "file_size": 12.0, "truncated": false}},
		{"file URI", map[string]any{"path": "file://" + env.Abs("hello.txt")}, map[string]any{
			"content": "1|hello\n2|world", "total_lines": 2.0, "file_size": 12.0, "truncated": false}},
		{"window with hint", map[string]any{"path": "ten.txt", "offset": 3, "limit": 2}, map[string]any{
			"content": "3|line 3\n4|line 4", "total_lines": 10.0, "file_size": 71.0, "truncated": true,
			"hint": "Use offset=5 to continue reading (showing 3-4 of 10 lines)"}},
		{"last window", map[string]any{"path": "ten.txt", "offset": 9, "limit": 5}, map[string]any{
			"content": "9|line 9\n10|line 10", "total_lines": 10.0, "file_size": 71.0, "truncated": false}},
		{"offset 0 and limit 0 clamp to one line", map[string]any{"path": "ten.txt", "offset": 0, "limit": 0}, map[string]any{
			"content": "1|line 1", "total_lines": 10.0, "file_size": 71.0, "truncated": true,
			"hint": "Use offset=2 to continue reading (showing 1-1 of 10 lines)"}},
		{"negative values clamp", map[string]any{"path": "ten.txt", "offset": -4, "limit": -2}, map[string]any{
			"content": "1|line 1", "total_lines": 10.0, "file_size": 71.0, "truncated": true,
			"hint": "Use offset=2 to continue reading (showing 1-1 of 10 lines)"}},
		{"non-integers get defaults", map[string]any{"path": "ten.txt", "offset": "abc", "limit": []any{1}}, map[string]any{
			"content": strings.TrimSuffix(numbered(readFileLines(10), 1), "\n"), "total_lines": 10.0, "file_size": 71.0, "truncated": false}},
		{"numeric strings and floats truncate", map[string]any{"path": "ten.txt", "offset": "2", "limit": 1.9}, map[string]any{
			"content": "2|line 2", "total_lines": 10.0, "file_size": 71.0, "truncated": true,
			"hint": "Use offset=3 to continue reading (showing 2-2 of 10 lines)"}},
		{"BOM stripped on page 1", map[string]any{"path": "bom.txt"}, map[string]any{
			"content": "1|hello\n2|second", "total_lines": 2.0, "file_size": 16.0, "truncated": false}},
		{"CRLF shown without CR", map[string]any{"path": "crlf.txt"}, map[string]any{
			"content": "1|a\n2|b", "total_lines": 2.0, "file_size": 6.0, "truncated": false}},
		{"long line cut", map[string]any{"path": "long.txt"}, map[string]any{
			"content": "1|" + long[:2000] + "... [truncated]\n2|short", "total_lines": 2.0, "file_size": 2507.0, "truncated": false}},
		{"last line without newline counts", map[string]any{"path": "nonl.txt"}, map[string]any{
			"content": "1|a\n2|b", "total_lines": 2.0, "file_size": 3.0, "truncated": false}},
		{"unicode", map[string]any{"path": "unicode.txt"}, map[string]any{
			"content": "1|héllo wörld", "total_lines": 1.0, "file_size": 14.0, "truncated": false}},
		{"empty file", map[string]any{"path": "empty.txt"}, map[string]any{
			"content": "", "total_lines": 0.0, "file_size": 0.0, "truncated": false, "hint": "File is empty (0 bytes)."}},
		{"offset past the end", map[string]any{"path": "hello.txt", "offset": 7}, map[string]any{
			"content": "", "total_lines": 2.0, "file_size": 12.0, "truncated": false,
			"hint": "Note: offset 7 is beyond the end of the file (2 lines total). Retry with offset <= 2."}},
		{"missing file", map[string]any{"path": "nope.qq"}, map[string]any{
			"error": "File not found: nope.qq", "similar_files": []any{}}},
		{"missing file with similar names", map[string]any{"path": "hello.md"}, map[string]any{
			"error": "File not found: hello.md", "similar_files": []any{"hello.txt"}}},
		{"missing directory", map[string]any{"path": "nodir/x.txt"}, map[string]any{
			"error": "File not found: nodir/x.txt", "similar_files": []any{}}},
		{"path through a file", map[string]any{"path": "hello.txt/x"}, map[string]any{
			"error": "File not found: hello.txt/x", "similar_files": []any{}}},
		{"directory", map[string]any{"path": "dir"}, map[string]any{
			"error": "Cannot read 'dir': it is a directory, not a regular file. Use search_files with target='files' to list its contents."}},
		{"device path", map[string]any{"path": "/dev/zero"}, map[string]any{
			"error": "Cannot read '/dev/zero': this is a device file that would block or produce infinite output."}},
		{"proc environ", map[string]any{"path": "/proc/self/environ"}, map[string]any{
			"error": "Cannot read '/proc/self/environ': this is a device file that would block or produce infinite output."}},
		{"stdin alias", map[string]any{"path": "/dev/fd/0"}, map[string]any{
			"error": "Cannot read '/dev/fd/0': this is a device file that would block or produce infinite output."}},
		{"binary extension", map[string]any{"path": "archive.zip"}, map[string]any{
			"error": "Cannot read binary file 'archive.zip' (.zip). Use vision_analyze for images, or terminal to inspect binary files."}},
		{"image", map[string]any{"path": "pic.png"}, map[string]any{
			"is_image": true, "is_binary": true, "file_size": 18.0, "hint": readFileMsgImage}},
		{"missing image", map[string]any{"path": "gone.png"}, map[string]any{
			"error": "File not found: gone.png", "similar_files": []any{"pic.png"}}},
		{"office document", map[string]any{"path": "report.docx"}, map[string]any{
			"error": "Cannot read 'report.docx': extracting text from .docx files is not supported yet. Use the terminal to " +
				"convert it to text (for example with pandoc or a short script) and read the result."}},
		{"binary content", map[string]any{"path": "data.weird"}, map[string]any{
			"error": readFileMsgBinary, "is_binary": true, "file_size": 400.0}},
		{".env denied", map[string]any{"path": ".env"}, map[string]any{
			"error": "Access denied: " + env.Abs(".env") + " is a secret-bearing environment file and cannot be read to prevent " +
				"credential leakage. If you need to check the file structure, read .env.example instead. (Defense-in-depth — " +
				"not a security boundary; the terminal tool can still bypass.)"}},
		{"empty path", map[string]any{}, map[string]any{
			"error": "path is empty; give a file path relative to " + env.Root + " or an absolute path inside the workspace"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env.reads = newReadTracker() // every case starts afresh
			got := readFileDecode(t, env.Run(t, "read_file", tc.args))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("read_file(%v) mismatch (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

// numbered renders text as read_file rows starting at first.
func numbered(text string, first int) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%d|%s\n", first+i, l)
	}
	return b.String()
}

func TestReadFileRefusals(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "a\n", "sub/.envrc": "x\n"}})
	outside := t.TempDir()
	fakeWriteFile(t, filepath.Join(outside, "secret.txt"), "secret\n")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), env.Abs("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", env.Abs("zero")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // substring of the error
	}{
		{"absolute outside", filepath.Join(outside, "secret.txt"), "is outside the workspace"},
		{"dot-dot escape", "../" + filepath.Base(outside) + "/secret.txt", "outside the workspace"},
		{"symlink leading out", "link.txt", "leads through the symbolic link"},
		{"symlink to a device", "zero", "Cannot read 'zero': this is a device file that would block or produce infinite output."},
		{"envrc in a subdirectory", "sub/.envrc", "is a secret-bearing environment file"},
		{"home outside workspace", "~/notes.txt", "outside the workspace"},
		{"unsupported scheme", "http://example.com/x", "unsupported URI scheme"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": tc.path}))
			msg, _ := got["error"].(string)
			if !strings.Contains(msg, tc.want) || len(got) != 1 {
				t.Errorf("read_file(%q) = %v, want only an error containing %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestReadFileFIFO(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{})
	if err := syscall.Mkfifo(env.Abs("pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "pipe"}))
	want := map[string]any{"error": "Cannot read 'pipe': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read_file(pipe) mismatch (-want +got):\n%s", diff)
	}
}

func TestReadFileSimilarFiles(t *testing.T) {
	t.Parallel()
	ar := readFileFixture(t, "similar.txtar")
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	env := newFakeEnv(t, fakeEnvOptions{Files: files})
	tests := []struct {
		path string
		want []any
	}{
		{"config.yml", []any{"config.json", "config.yaml"}},
		{"CONFIG.JSON", []any{"config.json", "config.yaml"}},
		{"app", []any{"app.py"}},
		{"settings.yml", []any{"settings.yaml"}},
		{"notes/todo.md", []any{"notes/todo.txt"}},
		{env.Abs("config.yml"), []any{env.Abs("config.json"), env.Abs("config.yaml")}},
		{"zzz.qq", []any{}},
		{"ttings", []any{"settings.yaml"}},
		{"pp.py", []any{"app.py"}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": tc.path}))
			want := map[string]any{"error": "File not found: " + tc.path, "similar_files": tc.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("read_file(%q) mismatch (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}

func TestReadFileNotebook(t *testing.T) {
	t.Parallel()
	ar := readFileFixture(t, "notebook.txtar")
	var nb, want string
	for _, f := range ar.Files {
		switch f.Name {
		case "analysis.ipynb":
			nb = string(f.Data)
		case "want":
			want = strings.TrimSuffix(string(f.Data), "\n")
		}
	}
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"analysis.ipynb": nb, "broken.ipynb": "{not json\n"}})
	got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "analysis.ipynb"}))
	wantRes := map[string]any{"content": want, "total_lines": 13.0, "file_size": float64(len(nb)),
		"truncated": false, "extracted_document": true}
	if diff := cmp.Diff(wantRes, got); diff != "" {
		t.Errorf("read_file(analysis.ipynb) mismatch (-want +got):\n%s", diff)
	}
	// A notebook that does not parse is shown as the text it is.
	got = readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "broken.ipynb"}))
	if got["content"] != "1|{not json" {
		t.Errorf("read_file(broken.ipynb) = %v, want its raw text", got)
	}
}

func TestReadFileEditorBuffers(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{
		Files:   map[string]string{"main.go": "on disk\n", "disk.go": "disk only\n"},
		Buffers: map[string]string{"main.go": "unsaved\nbuffer\n", "untitled.go": "never saved\n"},
	})
	tests := []struct {
		path string
		want map[string]any
	}{
		{"main.go", map[string]any{"content": "1|unsaved\n2|buffer", "total_lines": 2.0, "file_size": 15.0, "truncated": false}},
		{"untitled.go", map[string]any{"content": "1|never saved", "total_lines": 1.0, "file_size": 12.0, "truncated": false}},
		{"disk.go", map[string]any{"content": "1|disk only", "total_lines": 1.0, "file_size": 10.0, "truncated": false}},
		{"missing.go", map[string]any{"error": "File not found: missing.go", "similar_files": []any{"disk.go", "main.go"}}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": tc.path}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("read_file(%q) through the editor mismatch (-want +got):\n%s", tc.path, diff)
			}
		})
	}
	// A change to the unsaved buffer is a change: the next read is not
	// deduplicated.
	env.Editor.SetBuffer(env.Abs("main.go"), "edited\n")
	got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "main.go"}))
	if got["content"] != "1|edited" {
		t.Errorf("read_file(main.go) after a buffer edit = %v, want the edited buffer", got)
	}
}

func TestReadFileDedup(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": readFileLines(20), "b.txt": "b\n"}})
	read := func(path string, offset int) map[string]any {
		t.Helper()
		return readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": path, "offset": offset, "limit": 5}))
	}
	stub := map[string]any{"status": "unchanged", "message": readFileMsgUnchanged, "path": "a.txt",
		"dedup": true, "content_returned": false}
	blocked := func(n int) map[string]any {
		return map[string]any{"error": fmt.Sprintf("BLOCKED: You have called read_file on this exact region %d times and "+
			"the file has NOT changed. STOP calling read_file for this path — the content from your earlier read_file "+
			"result in this conversation is still current. Proceed with your task using the information you already have.", n),
			"path": "a.txt", "already_read": float64(n)}
	}
	content := func(m map[string]any) bool { _, ok := m["content"]; return ok }

	steps := []struct {
		name   string
		before func()
		path   string
		offset int
		want   map[string]any // nil: the content
	}{
		{"first read", nil, "a.txt", 1, nil},
		{"first repeat is a stub", nil, "a.txt", 1, stub},
		{"second repeat is blocked", nil, "a.txt", 1, blocked(3)},
		{"third repeat stays blocked", nil, "a.txt", 1, blocked(4)},
		{"another region is not deduplicated", nil, "a.txt", 6, nil},
		{"another file is not deduplicated", nil, "b.txt", 1, nil},
		{"another tool resets the block to a stub", func() { env.noteToolCall("terminal") }, "a.txt", 1, stub},
		{"a write invalidates every region of the path", func() {
			env.reads.forget(env.Resolve(t, "a.txt"))
		}, "a.txt", 1, nil},
		{"region 6 is forgotten too", nil, "a.txt", 6, nil},
		{"other paths keep their dedup", nil, "b.txt", 1, map[string]any{"status": "unchanged",
			"message": readFileMsgUnchanged, "path": "b.txt", "dedup": true, "content_returned": false}},
		{"then deduplicated again", nil, "a.txt", 1, stub},
		{"a changed file is read again", func() { env.WriteFile(t, "a.txt", readFileLines(21)) }, "a.txt", 1, nil},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		got := read(st.path, st.offset)
		if st.want == nil {
			if !content(got) {
				t.Errorf("%s: read_file(%s, offset %d) = %v, want the content", st.name, st.path, st.offset, got)
			}
			continue
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s: read_file(%s, offset %d) mismatch (-want +got):\n%s", st.name, st.path, st.offset, diff)
		}
	}
}

func TestReadFileLoopGuard(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "v0\n", "b.txt": "b\n"}})
	version := 0
	// Each read sees a changed file, so the dedup never answers and only
	// the consecutive-read guard is exercised.
	read := func(path string) map[string]any {
		t.Helper()
		version++
		env.WriteFile(t, "a.txt", fmt.Sprintf("v%d\n", version))
		return readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": path}))
	}
	warning := "You have read this exact file region 3 times consecutively. The content has not changed since your " +
		"last read. Use the information you already have. If you are stuck in a loop, stop reading and proceed with " +
		"writing or responding."
	blocked := func(n int) string {
		return fmt.Sprintf("BLOCKED: You have read this exact file region %d times in a row. The content has NOT "+
			"changed. You already have this information. STOP re-reading and proceed with your task.", n)
	}
	steps := []struct {
		name        string
		before      func()
		path        string
		wantWarning string
		wantError   string
	}{
		{"1st", nil, "a.txt", "", ""},
		{"2nd", nil, "a.txt", "", ""},
		{"3rd warns", nil, "a.txt", warning, ""},
		{"4th blocks", nil, "a.txt", "", blocked(4)},
		{"5th blocks", nil, "a.txt", "", blocked(5)},
		{"another tool resets", func() { env.noteToolCall("write_file") }, "a.txt", "", ""},
		{"2nd after reset", nil, "a.txt", "", ""},
		{"a read of another file breaks the run", nil, "b.txt", "", ""},
		{"back to 1", nil, "a.txt", "", ""},
		{"2", nil, "a.txt", "", ""},
		{"a search breaks the run", func() {
			env.Run(t, "search_files", map[string]any{"pattern": "zzz"})
		}, "a.txt", "", ""},
		{"read_file and search_files do not reset", func() {
			env.noteToolCall("read_file")
			env.noteToolCall("search_files")
		}, "a.txt", "", ""},
		{"3 again warns", nil, "a.txt", warning, ""},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		got := read(st.path)
		w, _ := got["_warning"].(string)
		e, _ := got["error"].(string)
		if w != st.wantWarning || e != st.wantError {
			t.Errorf("%s: read_file(%s) = %v, want _warning %q and error %q", st.name, st.path, got, st.wantWarning, st.wantError)
		}
		if st.wantError != "" && got["already_read"] == nil {
			t.Errorf("%s: blocked result %v lacks already_read", st.name, got)
		}
	}
}

func TestReadFilePagination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		offset, limit         any
		wantOffset, wantLimit int
	}{
		{nil, nil, 1, 500},
		{0, 0, 1, 1},
		{-4, -2, 1, 1},
		{5, 5000, 5, 2000},
		{3.7, 10.2, 3, 10},
		{"7", " 8 ", 7, 8},
		{"x", true, 1, 500},
		{1e300, 1e300, 1_000_000_000, 2000},
		{json.Number("12"), json.Number("nan"), 12, 500},
	}
	for _, tc := range tests {
		o, l := readFilePagination(tc.offset, tc.limit)
		if o != tc.wantOffset || l != tc.wantLimit {
			t.Errorf("readFilePagination(%v, %v) = %d, %d, want %d, %d", tc.offset, tc.limit, o, l, tc.wantOffset, tc.wantLimit)
		}
	}
}

func TestReadFileBudget(t *testing.T) {
	t.Parallel()
	// 2000 lines of 120 characters: the window is cut at the last whole line
	// under 100 000 characters.
	line := strings.Repeat("y", 120)
	var b strings.Builder
	for range 2000 {
		b.WriteString(line + "\n")
	}
	huge := strings.Repeat("z", 1<<20)
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"wide.txt": b.String(), "huge.txt": huge + "\nnext\n"}})

	got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "wide.txt", "limit": 2000}))
	content, _ := got["content"].(string)
	rows := strings.Split(content, "\n")
	kept := len(rows)
	if len([]rune(content)) > readFileMaxChars || kept == 0 || kept >= 2000 {
		t.Fatalf("read_file(wide.txt) kept %d rows, %d characters; want a cut under %d", kept, len(content), readFileMaxChars)
	}
	if want := fmt.Sprintf("%d|%s", kept, line); rows[kept-1] != want {
		t.Errorf("last row = %.40q, want a whole line %.40q", rows[kept-1], want)
	}
	want := map[string]any{
		"content": content, "total_lines": 2000.0, "file_size": float64(b.Len()), "truncated": true,
		"truncated_by": "bytes", "next_offset": float64(kept + 1),
		"hint": fmt.Sprintf("Output truncated at the 100,000-char read budget after %d line(s) (showing lines 1-%d of 2000). "+
			"Use offset=%d to continue.", kept, kept, kept+1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read_file(wide.txt) mismatch (-want +got):\n%s", diff)
	}
	// Continuing at next_offset shows the following lines.
	next := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "wide.txt", "offset": kept + 1, "limit": 3}))
	if want := numbered(line+"\n"+line+"\n"+line, kept+1); next["content"] != strings.TrimSuffix(want, "\n") {
		t.Errorf("read_file(wide.txt, offset %d) = %.80v, want rows from %d", kept+1, next["content"], kept+1)
	}

	// A single huge line is clamped, never returned empty.
	got = readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "huge.txt"}))
	if want := "1|" + huge[:readFileMaxLineChars] + "... [truncated]\n2|next"; got["content"] != want {
		t.Errorf("read_file(huge.txt) content = %.60q..., want the clamped line and the next one", got["content"])
	}
	if got["_hint"] != nil || got["truncated"] != false {
		t.Errorf("read_file(huge.txt) = truncated %v, _hint %v; want neither", got["truncated"], got["_hint"])
	}
}

func TestReadFileScanBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		text         string
		budget       int
		want         []string
		wantHit      bool
		wantClamped  bool
		wantTotal    int
		offset, lim  int
		wantShownLen int
	}{
		{"fits", "ab\ncd\n", 100, []string{"1|ab", "2|cd"}, false, false, 2, 1, 10, 6},
		{"cut at a whole line", "abcd\nefgh\nijkl\n", 13, []string{"1|abcd", "2|efgh"}, true, false, 3, 1, 10, 10},
		{"exact fit", "abcd\nefgh\n", 13, []string{"1|abcd", "2|efgh"}, false, false, 2, 1, 10, 10},
		{"single huge line clamped", strings.Repeat("q", 50) + "\nnext\n", 10, []string{"1|qqqqqqqq"}, true, true, 2, 1, 10, 50},
		{"window in the middle", "a\nb\nc\nd\n", 100, []string{"2|b", "3|c"}, false, false, 4, 2, 2, 4},
		{"multibyte counted as characters", "ééé\nx\n", 6, []string{"1|ééé"}, true, false, 2, 1, 10, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := readFileScan(context.Background(), strings.NewReader(tc.text), tc.offset, tc.lim, tc.budget, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, pg.entries); diff != "" {
				t.Errorf("entries mismatch (-want +got):\n%s", diff)
			}
			if pg.budgetHit != tc.wantHit || pg.clamped != tc.wantClamped || pg.total != tc.wantTotal || len(pg.shownBytes) != tc.wantShownLen {
				t.Errorf("readFileScan(%q) = hit %v clamped %v total %d shown %d, want %v %v %d %d", tc.text,
					pg.budgetHit, pg.clamped, pg.total, len(pg.shownBytes), tc.wantHit, tc.wantClamped, tc.wantTotal, tc.wantShownLen)
			}
		})
	}
}

func TestReadFileStreamsLargeFiles(t *testing.T) {
	t.Parallel()
	// Bigger than readFileStreamBytes, so the disk path streams it.
	text := readFileLines(200_000)
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"big.txt": text}})
	if len(text) <= readFileStreamBytes {
		t.Fatalf("fixture is %d bytes, want more than %d", len(text), readFileStreamBytes)
	}
	tests := []struct {
		offset, limit int
		want          map[string]any
	}{
		{1, 2, map[string]any{"content": "1|line 1\n2|line 2", "total_lines": 200000.0, "file_size": float64(len(text)),
			"truncated": true, "hint": "Use offset=3 to continue reading (showing 1-2 of 200000 lines)"}},
		{199_999, 500, map[string]any{"content": "199999|line 199999\n200000|line 200000", "total_lines": 200000.0,
			"file_size": float64(len(text)), "truncated": false}},
		{100_000, 300, nil},
	}
	for _, tc := range tests {
		got := readFileDecode(t, env.Run(t, "read_file", map[string]any{"path": "big.txt", "offset": tc.offset, "limit": tc.limit}))
		if tc.want == nil {
			if got["_hint"] == nil || !strings.HasPrefix(got["content"].(string), "100000|line 100000\n") {
				t.Errorf("read_file(big.txt, %d, %d) = %.200v, want rows from 100000 and the large-file _hint", tc.offset, tc.limit, got)
			}
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("read_file(big.txt, %d, %d) mismatch (-want +got):\n%s", tc.offset, tc.limit, diff)
		}
	}
}

// TestReadFileLearnsLint checks that every read of text held whole (a file
// up to readFileStreamBytes, or an editor buffer) hands the file's text to
// the linter, as the file is likely to be edited next; a streamed file, a
// notebook and a dedup hit do not.
func TestReadFileLearnsLint(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{
		"main.go":  "package main\n\nfunc main() {}\n",
		"big.txt":  readFileLines(200_000),
		"nb.ipynb": `{"cells": [{"cell_type": "code", "source": ["x = 1"]}]}`,
		"part.go":  readFileLines(10),
	}})
	env.Run(t, "read_file", map[string]any{"path": "main.go"})
	env.Run(t, "read_file", map[string]any{"path": "main.go"}) // unchanged: a dedup hit
	env.Run(t, "read_file", map[string]any{"path": "big.txt", "limit": 2})
	env.Run(t, "read_file", map[string]any{"path": "nb.ipynb"})
	env.Run(t, "read_file", map[string]any{"path": "part.go", "offset": 3, "limit": 2})
	want := []string{env.Abs("main.go"), env.Abs("part.go")}
	if diff := cmp.Diff(want, env.Learned()); diff != "" {
		t.Errorf("LearnLint calls (-want +got):\n%s", diff)
	}
}

func TestReadFileRecordsState(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"full.txt": "a\nb\n", "part.txt": readFileLines(10)}})
	env.Run(t, "read_file", map[string]any{"path": "full.txt"})
	env.Run(t, "read_file", map[string]any{"path": "part.txt", "offset": 2, "limit": 3})
	if got := env.State.CheckStale(env.Resolve(t, "full.txt")); got != "" {
		t.Errorf("CheckStale(full.txt) after a whole read = %q, want none", got)
	}
	if got := env.State.CheckStale(env.Resolve(t, "part.txt")); !strings.Contains(got, "partial view") {
		t.Errorf("CheckStale(part.txt) after a partial read = %q, want the partial-view warning", got)
	}
}

// TestReadFileNoEnv checks that read_file cannot run outside a session: the
// declared entry has no handler, and a registry holding only the declared
// entries answers a call with an error result, having read nothing.
func TestReadFileNoEnv(t *testing.T) {
	t.Parallel()
	reg := registry.New(nil)
	if err := reg.RegisterAll(Entries()...); err != nil {
		t.Fatal(err)
	}
	r := reg.Dispatch(context.Background(), &registry.Call{Name: "read_file", Args: map[string]any{"path": "x"}})
	if want := `{"error":"read_file is not enabled in this session; nothing was run"}`; r.Encode() != want || !r.IsError {
		t.Errorf("read_file without a session = %s (IsError %v), want %s as an error", r.Encode(), r.IsError, want)
	}
}

func TestReadFileCancelled(t *testing.T) {
	t.Parallel()
	text := readFileLines(200_000)
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"big.txt": text}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if out, err := env.RunCtx(ctx, "read_file", map[string]any{"path": "big.txt"}); err == nil {
		t.Errorf("read_file with a cancelled context = %.100q, want an error", out.Encode())
	}
}

// BenchmarkReadFileFirstPage100MB reads the first page (500 lines) of a
// 100 MB file that the editor does not serve: the page plus a newline
// count over the rest of the file.
func BenchmarkReadFileFirstPage100MB(b *testing.B) {
	env := newFakeEnv(b, fakeEnvOptions{})
	f, err := os.Create(env.Abs("big.log"))
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(strings.Repeat("0123456789abcdef", 6) + "\n") // 97 bytes
	for written := 0; written < 100<<20; written += len(line) {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"path": "big.log"}
	b.SetBytes(100 << 20)
	b.ResetTimer()
	for b.Loop() {
		env.reads = newReadTracker()
		r, err := env.RunCtx(b.Context(), "read_file", args)
		if err != nil {
			b.Fatal(err)
		}
		out := r.Encode()
		if !strings.Contains(out, `"truncated":true`) {
			b.Fatalf("unexpected result %.200s", out)
		}
	}
}
