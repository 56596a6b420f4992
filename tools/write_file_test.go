package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// TestWriteFileFixtures runs testdata/write_file: the syntax gate (refuse and
// report modes, JSON/YAML/YML/TOML refused, other files written) and the
// result shape.
func TestWriteFileFixtures(t *testing.T) {
	t.Parallel()
	runEditFixtures(t, "write_file")
}

// Ported from hermes's test_edit_approval.py: the proposal and the decision.
func TestWriteFileApproval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		existing *string // the file's content before, nil for none
		deny     string
		wantKind workspace.ChangeKind
		wantFile *string // the file after, nil for absent
	}{
		{"denied existing", new("old\n"), editDenial, workspace.ChangeEdit, new("old\n")},
		{"denied new", nil, editDenial, workspace.ChangeCreate, nil},
		{"approved existing", new("old\n"), "", workspace.ChangeEdit, new("new\n")},
		{"approved new", nil, "", workspace.ChangeCreate, new("new\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{deny: tc.deny != ""})
			if tc.existing != nil {
				editWriteTree(t, env.root, map[string]string{"notes.txt": *tc.existing})
			}

			got := env.run(t, "write_file", map[string]any{"path": "notes.txt", "content": "new\n"})

			if tc.deny != "" {
				if d := cmp.Diff(map[string]any{"error": tc.deny}, got); d != "" {
					t.Errorf("result mismatch (-want +got):\n%s", d)
				}
			} else if got["bytes_written"] != float64(4) {
				t.Errorf("result = %s, want bytes_written 4", editJSON(got))
			}
			approvals, reports := env.recorded()
			if len(approvals) != 1 || len(approvals[0].changes) != 1 {
				t.Fatalf("ApproveEdit calls = %d, want 1 with one change", len(approvals))
			}
			a := approvals[0]
			c := a.changes[0]
			if a.callID != "call-1" || c.Kind != tc.wantKind || c.Path.Abs() != env.abs("notes.txt") || c.New != "new\n" {
				t.Errorf("proposal = %q %v %s new %q, want call-1 %v %s new %q", a.callID, c.Kind, c.Path, c.New, tc.wantKind, env.abs("notes.txt"), "new\n")
			}
			if d := cmp.Diff(tc.existing, c.Old); d != "" {
				t.Errorf("proposal Old mismatch (-want +got):\n%s", d)
			}
			if len(a.lints) != 1 || a.lints[0].SkipReason != "No linter for .txt files" {
				t.Errorf("proposal lints = %+v, want the skipped .txt lint", a.lints)
			}
			b, err := os.ReadFile(env.abs("notes.txt"))
			switch {
			case tc.wantFile == nil && err == nil:
				t.Errorf("notes.txt exists with %q, want it absent", b)
			case tc.wantFile != nil && string(b) != *tc.wantFile:
				t.Errorf("notes.txt = %q (%v), want %q", b, err, *tc.wantFile)
			}
			if tc.deny != "" && len(reports) != 0 {
				t.Errorf("ReportLint called %d times after a denial, want 0", len(reports))
			}
			if tc.deny == "" && (len(reports) != 1 || reports[0].path != env.abs("notes.txt") || reports[0].content != "new\n") {
				t.Errorf("ReportLint calls = %+v, want one for notes.txt with the new content", reports)
			}
		})
	}
}

func TestWriteFileArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no path", map[string]any{"content": "x"}, writeFileMsgNoPath},
		{"empty path", map[string]any{"path": "", "content": "x"}, writeFileMsgNoPath},
		{"path not a string", map[string]any{"path": 3, "content": "x"}, "write_file: 'path' must be a string, got int."},
		{"no content", map[string]any{"path": "a.txt"}, "write_file: missing required field 'content'. The tool call included a " +
			"path but no content argument — this is almost always a dropped-arg bug under context pressure. Re-emit the " +
			"tool call with the full content payload, or use execute_code with hermes_tools.write_file() for very large files."},
		{"content null", map[string]any{"path": "a.txt", "content": nil}, "write_file: 'content' must be a string, got NoneType."},
		{"content number", map[string]any{"path": "a.txt", "content": 12}, "write_file: 'content' must be a string, got int."},
		{"content list", map[string]any{"path": "a.txt", "content": []any{"a"}}, "write_file: 'content' must be a string, got list."},
		{"content object", map[string]any{"path": "a.txt", "content": map[string]any{"a": 1}}, "write_file: 'content' must be a string, got dict."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			got := env.run(t, "write_file", tc.args)
			if d := cmp.Diff(map[string]any{"error": tc.want}, got); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
			if approvals, _ := env.recorded(); len(approvals) != 0 {
				t.Errorf("ApproveEdit called %d times, want 0", len(approvals))
			}
			if tree := editTree(t, env.root); len(tree) != 0 {
				t.Errorf("files written: %v", tree)
			}
		})
	}
}

// Paths outside the workspace and sensitive paths are refused before the
// user is asked, and nothing is written.
func TestWriteFileRefusedBeforeApproval(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	for _, tc := range []struct {
		name string
		root string // "home" means the fake home itself
		path string
		want string // the whole error, or a prefix ending in "…"
	}{
		{"absolute outside", "", filepath.Join(outside, "x.txt"), "path '" + filepath.Join(outside, "x.txt") + "' is outside the workspace…"},
		{"dotdot outside", "", "../escape.txt", "path '../escape.txt' resolves to '…"},
		{"ssh under home", "home", "~/.ssh/authorized_keys", "Write denied: '<home>/.ssh/authorized_keys' is a protected system/credential file."},
		{"aws credentials", "home", ".aws/credentials", "Write denied: '<home>/.aws/credentials' is a protected system/credential file."},
		{"etc hosts", "/", "/etc/hosts", "Refusing to write to sensitive system path: /etc/hosts\nUse the terminal tool with sudo if you need to modify system files."},
		{"boot", "/", "/boot/x", "Refusing to write to sensitive system path: /boot/x\nUse the terminal tool with sudo if you need to modify system files."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			o := editEnvOptions{home: home}
			switch tc.root {
			case "home":
				o.root = home
			case "/":
				o.root = "/"
			}
			env := newEditEnv(t, o)
			before := editTree(t, outside)

			got := env.run(t, "write_file", map[string]any{"path": tc.path, "content": "x\n"})

			want := strings.ReplaceAll(tc.want, "<home>", home)
			msg, _ := got["error"].(string)
			if prefix, ok := strings.CutSuffix(want, "…"); ok {
				if !strings.HasPrefix(msg, prefix) || len(got) != 1 {
					t.Errorf("result = %s, want an error starting %q", editJSON(got), prefix)
				}
			} else if d := cmp.Diff(map[string]any{"error": want}, got); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
			if approvals, _ := env.recorded(); len(approvals) != 0 {
				t.Errorf("ApproveEdit called %d times, want 0 (refusal must come first)", len(approvals))
			}
			if tc.root == "home" {
				if tree := editTree(t, home); len(tree) != 0 {
					t.Errorf("files written under home: %v", tree)
				}
			}
			if d := cmp.Diff(before, editTree(t, outside)); d != "" {
				t.Errorf("outside folder changed (-before +after):\n%s", d)
			}
			if tc.root == "" {
				if _, err := os.Stat(filepath.Join(filepath.Dir(env.root), "escape.txt")); err == nil {
					t.Errorf("escape.txt written next to the workspace root")
				}
			}
		})
	}
}

// Ported from hermes's atomic-write tests: CRLF and a BOM survive a
// rewrite with bare-LF content, and the BOM is never doubled.
func TestWriteFileConventions(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	for _, tc := range []struct {
		name, before, content, want string
	}{
		{"crlf kept", "a\r\nb\r\n", "x\ny\n", "x\r\ny\r\n"},
		{"bom kept", bom + "a\n", "x\n", bom + "x\n"},
		{"bom not doubled", bom + "a\n", bom + "x\n", bom + "x\n"},
		{"bom and crlf", bom + "a\r\nb\r\n", "x\ny", bom + "x\r\ny"},
		{"lf file stays lf", "a\nb\n", "x\r\ny\n", "x\r\ny\n"},
		{"new file as given", "", "x\r\ny\n", "x\r\ny\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			if tc.before != "" {
				editWriteTree(t, env.root, map[string]string{"f.txt": tc.before})
			}
			got := env.run(t, "write_file", map[string]any{"path": "f.txt", "content": tc.content})
			if got["bytes_written"] != float64(len(tc.want)) {
				t.Errorf("bytes_written = %v, want %d (%s)", got["bytes_written"], len(tc.want), editJSON(got))
			}
			if b, _ := os.ReadFile(env.abs("f.txt")); string(b) != tc.want {
				t.Errorf("f.txt = %q, want %q", b, tc.want)
			}
			approvals, _ := env.recorded()
			if len(approvals) != 1 || approvals[0].changes[0].New != tc.want {
				t.Errorf("proposal New = %+v, want %q (the diff must show what is written)", approvals, tc.want)
			}
		})
	}
}

func TestWriteFileResult(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	got := env.run(t, "write_file", map[string]any{"path": "deep/er/cfg.json", "content": "{\"a\": 1}\n"})
	want := map[string]any{
		"bytes_written":  float64(9),
		"dirs_created":   true,
		"lint":           map[string]any{"status": "ok", "output": ""},
		"resolved_path":  env.abs("deep/er/cfg.json"),
		"files_modified": []any{env.abs("deep/er/cfg.json")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("result mismatch (-want +got):\n%s", d)
	}
	got = env.run(t, "write_file", map[string]any{"path": env.abs("deep/er/cfg.json"), "content": "{\"a\": 2}\n"})
	if got["dirs_created"] != false {
		t.Errorf("second write dirs_created = %v, want false", got["dirs_created"])
	}
}

// Ported from hermes's staleness tests: a warning (never a block) when the
// file changed on disk after the agent read it; none when never read or new.
func TestWriteFileStaleness(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		read    bool // the agent read the file first
		change  bool // the file then changed on disk
		partial bool // the read was partial
		want    string
	}{
		{"changed after read", true, true, false, "Warning: <p> was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing."},
		{"unchanged after read", true, false, false, ""},
		{"never read", false, true, false, ""},
		{"partial read", true, false, true, "<p> was last read with offset/limit pagination (partial view). Re-read the whole file before overwriting it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"a.txt": "one\n"})
			p := env.target(t, "a.txt")
			if tc.read {
				env.State.RecordRead(p, []byte("one\n"), tc.partial)
			}
			if tc.change {
				if err := os.WriteFile(env.abs("a.txt"), []byte("external edit\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				future := time.Now().Add(time.Hour)
				if err := os.Chtimes(env.abs("a.txt"), future, future); err != nil {
					t.Fatal(err)
				}
			}
			got := env.run(t, "write_file", map[string]any{"path": "a.txt", "content": "mine\n"})
			want := strings.ReplaceAll(tc.want, "<p>", env.abs("a.txt"))
			if w, _ := got["_warning"].(string); w != want {
				t.Errorf("_warning = %q, want %q", w, want)
			}
			if b, _ := os.ReadFile(env.abs("a.txt")); string(b) != "mine\n" {
				t.Errorf("a.txt = %q, want the write to go ahead", b)
			}
			// The agent's own write is not a change: the next write is quiet.
			again := env.run(t, "write_file", map[string]any{"path": "a.txt", "content": "mine again\n"})
			if w, ok := again["_warning"]; ok {
				t.Errorf("second write _warning = %q, want none", w)
			}
		})
	}
}

// Ported from hermes's read-guard tests: read_file's dedup status text and
// its line-numbered rendering are refused as file content.
func TestWriteFileDisplayText(t *testing.T) {
	t.Parallel()
	long := "# Notes\n\n" + strings.Repeat("Some real documentation text. ", 20) + "\n\nread_file may say: " + readFileMsgUnchanged + "\n"
	for _, tc := range []struct {
		name    string
		content string
		refused bool
	}{
		{"status verbatim", readFileMsgUnchanged, true},
		{"status with whitespace", "\n  " + readFileMsgUnchanged + "\n", true},
		{"status wrapped", "Note: " + readFileMsgUnchanged + "\n(see above)", true},
		{"status quoted in a long document", long, false},
		{"line numbered", "1|package main\n2|\n3|func main() {}\n", true},
		{"line numbered from an offset", "41|a\n42|b\n43|c", true},
		{"line numbered indented", "  7|x\n  8|y\n", true},
		{"single numbered line", "1|value\n", false},
		{"numbers not consecutive", "1|a\n3|b\n", false},
		{"mostly plain pipes", "a|b\nc|d\n1|x\n", false},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n", false},
		{"sixty percent numbered", "1|a\n2|b\n3|c\nplain\nplain\n", true},
		{"below sixty percent", "1|a\n2|b\nplain\nplain\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			got := env.run(t, "write_file", map[string]any{"path": "out.txt", "content": tc.content})
			b, err := os.ReadFile(env.abs("out.txt"))
			approvals, _ := env.recorded()
			if tc.refused {
				if d := cmp.Diff(map[string]any{"error": writeFileMsgDisplayText}, got); d != "" {
					t.Errorf("result mismatch (-want +got):\n%s", d)
				}
				if err == nil || len(approvals) != 0 {
					t.Errorf("out.txt written (%q) or approval asked (%d), want neither", b, len(approvals))
				}
				return
			}
			if _, failed := got["error"]; failed || string(b) != tc.content {
				t.Errorf("result %s, file %q; want the content written", editJSON(got), b)
			}
		})
	}
}

// With an editor that can read and write, the current content comes from
// its buffer (unsaved changes included) and the write goes to the editor,
// not the disk.
func TestWriteFileEditor(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ed := newEditEditor(map[string]string{filepath.Join(root, "a.txt"): "unsaved buffer\n"})
	env := newEditEnv(t, editEnvOptions{root: root, editor: ed})
	editWriteTree(t, root, map[string]string{"a.txt": "on disk\n"})

	got := env.run(t, "write_file", map[string]any{"path": "a.txt", "content": "new\n"})
	if got["bytes_written"] != float64(4) {
		t.Fatalf("result = %s, want success", editJSON(got))
	}
	if text, _ := ed.buffer(env.abs("a.txt")); text != "new\n" {
		t.Errorf("editor buffer = %q, want %q", text, "new\n")
	}
	if b, _ := os.ReadFile(env.abs("a.txt")); string(b) != "on disk\n" {
		t.Errorf("disk = %q, want it untouched", b)
	}
	approvals, _ := env.recorded()
	if old := approvals[0].changes[0].Old; old == nil || *old != "unsaved buffer\n" {
		t.Errorf("proposal Old = %v, want the editor's buffer", old)
	}

	// A new file is created in the editor; the disk only gets its folder.
	got = env.run(t, "write_file", map[string]any{"path": "sub/b.txt", "content": "b\n"})
	if got["dirs_created"] != true {
		t.Errorf("result = %s, want dirs_created", editJSON(got))
	}
	if text, ok := ed.buffer(env.abs("sub/b.txt")); !ok || text != "b\n" {
		t.Errorf("editor buffer of sub/b.txt = %q, %v; want %q", text, ok, "b\n")
	}
	if _, err := os.Stat(env.abs("sub/b.txt")); err == nil {
		t.Errorf("sub/b.txt exists on disk, want it only in the editor")
	}
}

// The lint of the written content is reported for the editor, and what the
// model sees is its ModelLint.
func TestWriteFileReportsLint(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	got := env.run(t, "write_file", map[string]any{"path": "main.go", "content": "package main\n\nfunc main() {\n"})
	_, reports := env.recorded()
	if len(reports) != 1 {
		t.Fatalf("ReportLint calls = %d, want 1", len(reports))
	}
	r := reports[0]
	if r.callID != "call-1" || r.path != env.abs("main.go") || r.res.Language != lint.LanguageGo || len(r.res.Introduced) == 0 {
		t.Errorf("ReportLint(%q, %q, …, %+v), want call-1, main.go, Go errors introduced", r.callID, r.path, r.res)
	}
	ml := r.res.ModelLint()
	want := map[string]any{"status": ml.Status, "output": ml.Output}
	if d := cmp.Diff(want, got["lint"]); d != "" || ml.Status != lint.StatusError {
		t.Errorf("lint in result mismatch (-want +got):\n%s", d)
	}
}

func TestWriteFileIsDisplayText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", false},
		{"   \n", false},
		{"1|a\n2|b", true},
		{"99999999999999999999999|a\n99999999999999999999999|b", false},
		{"10|a\n\n11|b\n", true},
		{"x|a\ny|b", false},
		{"|a\n|b", false},
	} {
		if got := writeFileIsDisplayText(tc.in); got != tc.want {
			t.Errorf("writeFileIsDisplayText(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// Ported from hermes's read-guard tests: a write evicts read_file's dedup
// for that path only, even when the bytes end up the same, so the next read
// returns the content instead of the "unchanged" stub.
func TestEditToolsForgetReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"write_file same bytes", "write_file", map[string]any{"path": "a.txt", "content": "same\n"}},
		// line_trimmed matches "same" and writes it back unchanged.
		{"patch replace same bytes", "patch", map[string]any{"path": "a.txt", "old_string": "  same", "new_string": "same"}},
		{"patch v4a", "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-same\n+other\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"a.txt": "same\n", "b.txt": "b\n"})
			for _, rel := range []string{"a.txt", "b.txt"} {
				if got := env.run(t, "read_file", map[string]any{"path": rel}); got["content"] == nil {
					t.Fatalf("first read_file(%s) = %s, want content", rel, editJSON(got))
				}
			}
			if got := env.run(t, "read_file", map[string]any{"path": "a.txt"}); got["status"] != "unchanged" {
				t.Fatalf("second read_file = %s, want the unchanged stub (dedup active)", editJSON(got))
			}
			if got := env.run(t, tc.tool, tc.args); got["error"] != nil {
				t.Fatalf("%s = %s, want success", tc.tool, editJSON(got))
			}
			if got := env.run(t, "read_file", map[string]any{"path": "a.txt"}); got["content"] == nil {
				t.Errorf("read_file after %s = %s, want the content again", tc.tool, editJSON(got))
			}
			if got := env.run(t, "read_file", map[string]any{"path": "b.txt"}); got["status"] != "unchanged" {
				t.Errorf("read_file(b.txt) = %s, want b.txt still deduplicated", editJSON(got))
			}
		})
	}
}

// BenchmarkWriteFile5000 measures write_file replacing a 5,000-line Go file:
// read, conventions, delta lint, approval, atomic write and lint report.
func BenchmarkWriteFile5000(b *testing.B) {
	env := newEditEnv(b, editEnvOptions{})
	contents := []string{
		"package big\n\nfunc f() {\n" + editBenchFile(5000) + "}\n",
		"package big\n\nfunc g() {\n" + editBenchFile(5000) + "}\n",
	}
	for i := 0; b.Loop(); i++ {
		if out := env.bench(b, "write_file", map[string]any{"path": "big.go", "content": contents[i%2]}); !strings.Contains(out, `"bytes_written"`) {
			b.Fatalf("write_file failed: %.300s", out)
		}
	}
}

// A write the editor fails is reported to the model; nothing is recorded
// as written.
func TestEditToolsWriteFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"write_file", "write_file", map[string]any{"path": "a.txt", "content": "new\n"}, `{"error":"Failed to write file: write <p>: editor: disk full"}`},
		{"patch replace", "patch", map[string]any{"path": "a.txt", "old_string": "old", "new_string": "new"}, `{"success":false,"error":"Failed to write changes: write <p>: editor: disk full"}`},
		{"patch v4a", "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-old\n+new\n"},
			`{"success":false,"error":"Apply phase failed (state may be inconsistent — run ` + "`git diff`" + ` to assess):\n  • Failed to update a.txt: write <p>: editor: disk full"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			ed := newEditEditor(nil)
			ed.writeErr = errors.New("disk full")
			env := newEditEnv(t, editEnvOptions{root: root, editor: ed})
			editWriteTree(t, root, map[string]string{"a.txt": "old\n"})
			got := env.runRaw(t, tc.tool, tc.args)
			if want := strings.ReplaceAll(tc.want, "<p>", env.abs("a.txt")); got != want {
				t.Errorf("result = %s\nwant     %s", got, want)
			}
			if _, reports := env.recorded(); len(reports) != 0 {
				t.Errorf("ReportLint called %d times, want 0", len(reports))
			}
			if b, _ := os.ReadFile(env.abs("a.txt")); string(b) != "old\n" {
				t.Errorf("a.txt = %q, want it unchanged", b)
			}
		})
	}
}
