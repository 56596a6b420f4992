package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools/internal/search"
)

// searchTreeEnv returns a session whose workspace holds
// testdata/search_files/tree.txtar plus a binary file, with distinct
// modification times (older first, in archive order).
func searchTreeEnv(t *testing.T) *fakeEnv {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "search_files", "tree.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	env := newFakeEnv(t, fakeEnvOptions{})
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range ar.Files {
		env.WriteFile(t, f.Name, string(f.Data))
		mt := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(env.Abs(f.Name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	env.WriteFile(t, "bin/blob.dat", "hello\x00\x01\x02binary")
	return env
}

// searchCall calls search_files and returns its value and its hint, the
// trailer the model reads on a line of its own after the JSON.
func searchCall(t *testing.T, env *fakeEnv, args map[string]any) (map[string]any, string) {
	t.Helper()
	r := env.Run(t, "search_files", args)
	return resultObject(t, r), searchTrailer(t, r)
}

// searchTrailer returns r's hint, checking that the model reads it after the
// value, separated by a blank line.
func searchTrailer(t *testing.T, r registry.Result) string {
	t.Helper()
	value := registry.Result{Value: r.Value}.Encode()
	want := value
	if r.Hint != "" {
		want += "\n\n" + r.Hint
	}
	if got := r.Encode(); got != want {
		t.Errorf("search_files result reads %q, want the value then the hint %q", got, want)
	}
	return r.Hint
}

func searchMatches(rows ...string) []any {
	out := []any{}
	for _, r := range rows {
		parts := strings.SplitN(r, ":", 3)
		var n float64
		fmt.Sscan(parts[1], &n)
		out = append(out, map[string]any{"path": parts[0], "line": n, "content": parts[2]})
	}
	return out
}

const searchOmitted1 = "1 result(s) omitted because they target credential, token, cache, or secret-bearing environment files."

func TestSearchFiles(t *testing.T) {
	t.Parallel()
	env := searchTreeEnv(t)
	tests := []struct {
		name        string
		args        map[string]any
		want        map[string]any
		wantTrailer string
	}{
		{"content, gitignore and hidden rules, .env omitted", map[string]any{"pattern": "hello"}, map[string]any{
			"total_count": 4.0,
			"matches": searchMatches("keep.log:1:hello keep", `src/main.go:4:	println("hello world")`,
				`src/sub/real.go:1:func helloReal() {}`, `src/util.go:4:func Hello() string { return "hello" }`),
			"_omitted": searchOmitted1}, ""},
		{"legacy grep target", map[string]any{"pattern": "hello world", "target": "grep"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches(`src/main.go:4:	println("hello world")`)}, ""},
		{"regex", map[string]any{"pattern": `func \w+\(\)`}, map[string]any{
			"total_count": 3.0, "matches": searchMatches("src/main.go:3:func main() {",
				`src/sub/real.go:1:func helloReal() {}`, `src/util.go:4:func Hello() string { return "hello" }`)}, ""},
		{"case-insensitive regex", map[string]any{"pattern": "(?i)HELLO docs"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches("docs/readme.md:1:Hello docs")}, ""},
		{"files_only", map[string]any{"pattern": "hello", "output_mode": "files_only"}, map[string]any{
			"total_count": 4.0, "files": []any{"keep.log", "src/main.go", "src/sub/real.go", "src/util.go"},
			"_omitted": searchOmitted1}, ""},
		{"count", map[string]any{"pattern": "(?i)hello", "output_mode": "count"}, map[string]any{
			"total_count": 6.0, "counts": map[string]any{"docs/readme.md": 1.0, "keep.log": 1.0, "src/main.go": 1.0,
				"src/sub/real.go": 1.0, "src/util.go": 2.0}, "_omitted": searchOmitted1}, ""},
		{"file_glob", map[string]any{"pattern": "hello", "file_glob": "*.go"}, map[string]any{
			"total_count": 3.0, "matches": searchMatches(`src/main.go:4:	println("hello world")`,
				`src/sub/real.go:1:func helloReal() {}`, `src/util.go:4:func Hello() string { return "hello" }`)}, ""},
		{"file_glob with a path and braces", map[string]any{"pattern": "hello", "file_glob": "src/*.{go,md}"}, map[string]any{
			"total_count": 2.0, "matches": searchMatches(`src/main.go:4:	println("hello world")`,
				`src/util.go:4:func Hello() string { return "hello" }`)}, ""},
		{"negated file_glob", map[string]any{"pattern": "hello", "file_glob": "!*.go"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches("keep.log:1:hello keep"), "_omitted": searchOmitted1}, ""},
		{"context lines merged", map[string]any{"pattern": "println|^}", "context": 1}, map[string]any{
			"total_count": 3.0, "matches": searchMatches("src/main.go:3:func main() {", `src/main.go:4:	println("hello world")`,
				"src/main.go:5:}")}, ""},
		{"subdirectory with its own .gitignore", map[string]any{"pattern": "hello", "path": "src/sub"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches("src/sub/real.go:1:func helloReal() {}")}, ""},
		{"an ignored directory searched explicitly", map[string]any{"pattern": "hello", "path": "build"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches("build/out.go:1:hello from build")}, ""},
		{"a hidden directory searched explicitly", map[string]any{"pattern": "hello", "path": ".hidden"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches(".hidden/secret.go:1:hello hidden")}, ""},
		{"node_modules searched explicitly", map[string]any{"pattern": "hello", "path": "node_modules/pkg"}, map[string]any{
			"total_count": 1.0, "matches": searchMatches("node_modules/pkg/index.js:1:hello node")}, ""},
		{"a single file", map[string]any{"pattern": "main", "path": "src/main.go"}, map[string]any{
			"total_count": 2.0, "matches": searchMatches("src/main.go:1:package main", "src/main.go:3:func main() {")}, ""},
		{"absolute path shows absolute results", map[string]any{"pattern": "helloReal", "path": env.Abs("src")}, map[string]any{
			"total_count": 1.0, "matches": searchMatches("src/sub/real.go:1:func helloReal() {}")}, ""},
		{"pagination", map[string]any{"pattern": "hello", "limit": 2, "offset": 1}, map[string]any{
			"total_count": 4.0, "truncated": true, "_omitted": searchOmitted1,
			"matches": searchMatches(`src/main.go:4:	println("hello world")`, "src/sub/real.go:1:func helloReal() {}")},
			"[Hint: Results truncated. Use offset=3 to see more, or narrow with a more specific pattern or file_glob.]"},
		{"pagination clamp", map[string]any{"pattern": "hello", "limit": -2, "offset": -4}, map[string]any{
			"total_count": 4.0, "truncated": true, "_omitted": searchOmitted1,
			"matches": searchMatches("keep.log:1:hello keep")},
			"[Hint: Results truncated. Use offset=1 to see more, or narrow with a more specific pattern or file_glob.]"},
		{"no match", map[string]any{"pattern": "zebra"}, map[string]any{"total_count": 0.0}, ""},
		{"multi-line pattern warns", map[string]any{"pattern": `hello\nworld`}, map[string]any{"total_count": 0.0,
			"warning": "0 results found. Note: search_files content search is line-oriented (no -U/--multiline mode), so " +
				"`\\n` in the regex does not match line breaks. Use context=N to inspect neighboring lines, or escape as " +
				"`\\\\n` when searching for a literal backslash+n."}, ""},
		{"escaped backslash-n does not warn", map[string]any{"pattern": `hello\\nworld`}, map[string]any{"total_count": 0.0}, ""},
		{"invalid regex", map[string]any{"pattern": "func (("}, map[string]any{"total_count": 0.0,
			"error": "Search failed: invalid regex \"func ((\": missing closing ): `func ((`"}, ""},
		{"path not found", map[string]any{"pattern": "x", "path": "srcc"}, map[string]any{"total_count": 0.0,
			"error": "Path not found: srcc. Similar paths: src"}, ""},
		{"path not found without suggestions", map[string]any{"pattern": "x", "path": "qqq/zzz"}, map[string]any{
			"total_count": 0.0, "error": "Path not found: qqq/zzz"}, ""},
		{"outside the workspace", map[string]any{"pattern": "x", "path": "/etc"}, map[string]any{
			"error": "path '/etc' is outside the workspace (roots: " + env.Root + "); use a path inside one of the roots"}, ""},
		{"read-denied root", map[string]any{"pattern": "x", "path": ".env"}, map[string]any{
			"error": "Access denied: " + env.Abs(".env") + " is a secret-bearing environment file and cannot be read to " +
				"prevent credential leakage. If you need to check the file structure, read .env.example instead. " +
				"(Defense-in-depth — not a security boundary; the terminal tool can still bypass.)"}, ""},
		{"files by glob, newest first", map[string]any{"pattern": "*.go", "target": "files"}, map[string]any{
			"total_count": 3.0, "files": []any{"src/sub/real.go", "src/util.go", "src/main.go"}}, ""},
		{"legacy find target", map[string]any{"pattern": "*.md", "target": "find"}, map[string]any{
			"total_count": 1.0, "files": []any{"docs/readme.md"}}, ""},
		{"bare name matches inside names, any case", map[string]any{"pattern": "UTIL", "target": "files"}, map[string]any{
			"total_count": 1.0, "files": []any{"src/util.go"}}, ""},
		{"double star", map[string]any{"pattern": "src/**/*.go", "target": "files"}, map[string]any{
			"total_count": 3.0, "files": []any{"src/sub/real.go", "src/util.go", "src/main.go"}}, ""},
		{"files with .env omitted", map[string]any{"pattern": "*env*", "target": "files"}, map[string]any{
			"total_count": 0.0, "_omitted": searchOmitted1}, ""},
		{"files paginated", map[string]any{"pattern": "*", "target": "files", "limit": 2}, map[string]any{
			"total_count": 8.0, "files": []any{"bin/blob.dat", "src/sub/real.go"}, "truncated": true, "_omitted": searchOmitted1},
			"[Hint: Results truncated. Use offset=2 to see more, or narrow with a more specific pattern or file_glob.]"},
		{"invalid glob", map[string]any{"pattern": "[", "target": "files"}, map[string]any{
			"total_count": 0.0, "error": "Search failed: invalid glob pattern \"[\": syntax error in pattern"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env.noteToolCall("test")
			got, trailer := searchCall(t, env, tc.args)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("search_files(%v) mismatch (-want +got):\n%s", tc.args, diff)
			}
			if trailer != tc.wantTrailer {
				t.Errorf("search_files(%v) trailer = %q, want %q", tc.args, trailer, tc.wantTrailer)
			}
		})
	}
}

func TestSearchFilesDensified(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 3 {
		files[fmt.Sprintf("f%d.txt", i)] = "alpha one\nbeta\nalpha two   \n"
	}
	env := newFakeEnv(t, fakeEnvOptions{Files: files})
	got, _ := searchCall(t, env, map[string]any{"pattern": "alpha"})
	want := map[string]any{
		"total_count":    6.0,
		"matches_format": searchMatchesFormat,
		"matches_text": "f0.txt\n  1: alpha one\n  3: alpha two\n" +
			"f1.txt\n  1: alpha one\n  3: alpha two\n" +
			"f2.txt\n  1: alpha one\n  3: alpha two",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search_files(alpha) mismatch (-want +got):\n%s", diff)
	}
}

func TestSearchFilesLongLinesAndBinary(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{
		"long.txt":   "needle " + strings.Repeat("é", 900) + "\r\n",
		"late.bin":   "needle\n" + strings.Repeat("x", 9000) + "\x00",
		"early.bin":  "\x00needle\n",
		"ctrl.txt":   strings.Repeat("\x01\x02\x03", 100) + "needle",
		"huge.txt":   "",
		"sym.target": "needle\n",
	}})
	if err := os.Symlink(env.Abs("sym.target"), env.Abs("sym.link")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(env.Abs("huge.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(search.MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ := searchCall(t, env, map[string]any{"pattern": "needle"})
	want := map[string]any{"total_count": 3.0, "matches": searchMatches(
		"late.bin:1:needle",
		"long.txt:1:needle "+strings.Repeat("é", search.MaxLineChars-len("needle ")),
		"sym.target:1:needle",
	)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search_files(needle) mismatch (-want +got):\n%s", diff)
	}
}

func TestSearchFilesLoopGuard(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "x\n"}})
	warn := "You have run this exact search 3 times consecutively. The results have not changed. Use the information you already have."
	blocked := func(n int) map[string]any {
		return map[string]any{"error": fmt.Sprintf("BLOCKED: You have run this exact search %d times in a row. The "+
			"results have NOT changed. You already have this information. STOP re-searching and proceed with your task.", n),
			"pattern": "x", "already_searched": float64(n)}
	}
	normal := map[string]any{"total_count": 1.0, "matches": searchMatches("a.txt:1:x")}
	withWarn := map[string]any{"total_count": 1.0, "matches": searchMatches("a.txt:1:x"), "_warning": warn}
	steps := []struct {
		name   string
		before func()
		args   map[string]any
		want   map[string]any
	}{
		{"1st", nil, map[string]any{"pattern": "x"}, normal},
		{"2nd", nil, map[string]any{"pattern": "x"}, normal},
		{"3rd warns", nil, map[string]any{"pattern": "x"}, withWarn},
		{"4th blocks", nil, map[string]any{"pattern": "x"}, blocked(4)},
		{"5th blocks", nil, map[string]any{"pattern": "x"}, blocked(5)},
		{"another page is not a repeat", nil, map[string]any{"pattern": "x", "offset": 0, "limit": 10}, normal},
		{"the same page again", nil, map[string]any{"pattern": "x", "offset": 0, "limit": 10}, normal},
		{"output_mode is not part of the key", nil, map[string]any{"pattern": "x", "limit": 10, "output_mode": "content"}, withWarn},
		{"another tool resets", func() { env.noteToolCall("patch") }, map[string]any{"pattern": "x", "limit": 10}, normal},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		got, _ := searchCall(t, env, st.args)
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s: search_files(%v) mismatch (-want +got):\n%s", st.name, st.args, diff)
		}
	}
}

func TestSearchFilesTimeout(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "x\n", "b.txt": "x\n", "c/d.txt": "x\n"}})
	synctest.Test(t, func(t *testing.T) {
		// Every file takes longer than the search may: the first files
		// block until the 60-second deadline passes.
		opts := search.Options{Workers: 2, BeforeFile: func(ctx context.Context) { <-ctx.Done() }}
		start := time.Now()
		out, err := searchFilesRun(t.Context(), env.services(), &searchFilesParams{Pattern: "x"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != search.DefaultTimeout {
			t.Errorf("search took %v of fake time, want exactly the %v timeout", took, search.DefaultTimeout)
		}
		checkIsError(t, "search_files", out)
		if out.IsError {
			t.Errorf("timed-out search IsError = true, want the partial result as a success")
		}
		got := resultObject(t, out)
		if hint := searchTrailer(t, out); hint != "[Hint: Results truncated. Use offset=50 to see more, or narrow with a more specific pattern or file_glob.]" {
			t.Errorf("timed-out search hint = %q, want the truncation hint", hint)
		}
		want := map[string]any{"total_count": 0.0, "truncated": true, "total_count_is_lower_bound": true, "limit_reason": "search_timeout"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("timed-out search mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestSearchFilesCancelled(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "x\n"}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if out, err := env.RunCtx(ctx, "search_files", map[string]any{"pattern": "x"}); err == nil {
		t.Errorf("search_files with a cancelled context = %q, want an error", out.Encode())
	}
}

func TestSearchFilesManyMatchesKeepsOnePage(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = strings.Repeat("hit\n", 30)
	}
	env := newFakeEnv(t, fakeEnvOptions{Files: files})
	got, _ := searchCall(t, env, map[string]any{"pattern": "hit", "offset": 595, "limit": 10})
	if got["total_count"] != 1200.0 || got["truncated"] != true {
		t.Errorf("search_files(hit) total_count %v truncated %v, want 1200 and true", got["total_count"], got["truncated"])
	}
	// Rows 595-604 in path order: lines 26-30 of d19, then 1-5 of d20.
	want := "d19/f.txt\n  26: hit\n  27: hit\n  28: hit\n  29: hit\n  30: hit\n" +
		"d20/f.txt\n  1: hit\n  2: hit\n  3: hit\n  4: hit\n  5: hit"
	if got["matches_text"] != want {
		t.Errorf("search_files(hit, offset 595) matches_text = %q, want %q", got["matches_text"], want)
	}
}

func TestSearchWantsNewline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    bool
	}{
		{`a\nb`, true}, {`a\\nb`, false}, {`a\\\nb`, true}, {"a\nb", true}, {`a\tb`, false}, {`\\`, false}, {`n`, false},
	}
	for _, tc := range tests {
		if got := searchWantsNewline(tc.pattern); got != tc.want {
			t.Errorf("searchWantsNewline(%q) = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}
