package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// TestPatchFixtures runs testdata/patch: replace and V4A cases, with the
// result, the files afterwards and the approvals asked.
func TestPatchFixtures(t *testing.T) {
	t.Parallel()
	runEditFixtures(t, "patch")
}

// Ported from hermes's test_edit_approval.py: replace mode proposes the
// whole file, old and new.
func TestPatchReplaceApproval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		deny     string
		wantFile string
	}{
		{"denied", editDenial, "alpha\nbeta\n"},
		{"approved", "", "alpha\ngamma\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{deny: tc.deny != ""})
			editWriteTree(t, env.root, map[string]string{"greek.txt": "alpha\nbeta\n"})

			got := env.run(t, "patch", map[string]any{"path": "greek.txt", "old_string": "beta", "new_string": "gamma"})

			if tc.deny != "" {
				if d := cmp.Diff(map[string]any{"error": tc.deny}, got); d != "" {
					t.Errorf("result mismatch (-want +got):\n%s", d)
				}
			} else if got["success"] != true {
				t.Errorf("result = %s, want success", editJSON(got))
			}
			approvals, reports := env.recorded()
			if len(approvals) != 1 || len(approvals[0].changes) != 1 {
				t.Fatalf("ApproveEdit calls = %+v, want one with one change", approvals)
			}
			c := approvals[0].changes[0]
			if c.Kind != workspace.ChangeEdit || c.Path.Abs() != env.abs("greek.txt") || c.Old == nil || *c.Old != "alpha\nbeta\n" || c.New != "alpha\ngamma\n" {
				t.Errorf("proposal = %v %s %v → %q, want edit of greek.txt \"alpha\\nbeta\\n\" → \"alpha\\ngamma\\n\"", c.Kind, c.Path, c.Old, c.New)
			}
			if b, _ := os.ReadFile(env.abs("greek.txt")); string(b) != tc.wantFile {
				t.Errorf("greek.txt = %q, want %q", b, tc.wantFile)
			}
			if wantReports := map[bool]int{true: 0, false: 1}[tc.deny != ""]; len(reports) != wantReports {
				t.Errorf("ReportLint calls = %d, want %d", len(reports), wantReports)
			}
		})
	}
}

func TestPatchArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"replace without path", map[string]any{"old_string": "a", "new_string": "b"}, "path required"},
		{"replace with empty path", map[string]any{"mode": "replace", "path": "", "old_string": "a", "new_string": "b"}, "path required"},
		{"replace without old_string", map[string]any{"path": "a.txt", "new_string": "b"}, "old_string and new_string required"},
		{"replace without new_string", map[string]any{"path": "a.txt", "old_string": "a"}, "old_string and new_string required"},
		{"replace with null new_string", map[string]any{"path": "a.txt", "old_string": "a", "new_string": nil}, "old_string and new_string required"},
		{"unknown mode", map[string]any{"mode": "rewrite", "path": "a.txt"}, "Unknown mode: rewrite"},
		{"mode not a string", map[string]any{"mode": 3}, "Unknown mode: 3"},
		{"patch mode without patch", map[string]any{"mode": "patch"}, "patch content required"},
		{"patch mode with empty patch", map[string]any{"mode": "patch", "patch": ""}, "patch content required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"a.txt": "a\n"})
			got := env.run(t, "patch", tc.args)
			if d := cmp.Diff(map[string]any{"error": tc.want}, got); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
			if approvals, _ := env.recorded(); len(approvals) != 0 {
				t.Errorf("ApproveEdit called %d times, want 0", len(approvals))
			}
			if b, _ := os.ReadFile(env.abs("a.txt")); string(b) != "a\n" {
				t.Errorf("a.txt = %q, want it unchanged", b)
			}
		})
	}
}

// Every target, both ends of a move included, is checked before the user
// is asked; a refused target stops the whole call.
func TestPatchRefusedBeforeApproval(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	editWriteTree(t, outside, map[string]string{"o.txt": "a\n"})
	v4a := func(body string) map[string]any {
		return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + body + "*** End Patch\n"}
	}
	for _, tc := range []struct {
		name string
		root string // "home" means the fake home, "/" the file system root
		args map[string]any
		want string // the whole error, or a prefix ending in "…"
	}{
		{"replace outside", "", map[string]any{"path": filepath.Join(outside, "o.txt"), "old_string": "a", "new_string": "b"},
			"path '" + filepath.Join(outside, "o.txt") + "' is outside the workspace…"},
		{"replace ssh", "home", map[string]any{"path": ".ssh/config", "old_string": "a", "new_string": "b"},
			"Write denied: '<home>/.ssh/config' is a protected system/credential file."},
		{"replace etc hosts", "/", map[string]any{"path": "/etc/hosts", "old_string": "a", "new_string": "b"},
			"Refusing to write to sensitive system path: /etc/hosts\nUse the terminal tool with sudo if you need to modify system files."},
		{"v4a update outside", "", v4a("*** Update File: " + filepath.Join(outside, "o.txt") + "\n-a\n+b\n"),
			"path '" + filepath.Join(outside, "o.txt") + "' is outside the workspace…"},
		{"v4a delete ssh", "home", v4a("*** Delete File: .ssh/id_rsa\n"),
			"Delete denied: '<home>/.ssh/id_rsa' is a protected system/credential file."},
		{"v4a move into ssh", "home", v4a("*** Move File: notes.txt -> .ssh/authorized_keys\n"),
			"Move denied: '<home>/.ssh/authorized_keys' is a protected system/credential file."},
		{"v4a add aws", "home", v4a("*** Update File: notes.txt\n-a\n+b\n*** Add File: .aws/config\n+[default]\n"),
			"Write denied: '<home>/.aws/config' is a protected system/credential file."},
		{"v4a etc", "/", v4a("*** Add File: /etc/cron.d/job\n+* * * * * true\n"),
			"Refusing to write to sensitive system path: /etc/cron.d/job\nUse the terminal tool with sudo if you need to modify system files."},
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
			if tc.root != "/" {
				editWriteTree(t, env.root, map[string]string{"notes.txt": "a\n"})
			}
			before := editTree(t, home)

			got := env.run(t, "patch", tc.args)

			want := strings.ReplaceAll(tc.want, "<home>", home)
			msg, _ := got["error"].(string)
			if prefix, ok := strings.CutSuffix(want, "…"); ok {
				if !strings.HasPrefix(msg, prefix) || len(got) != 1 {
					t.Errorf("result = %s, want only an error starting %q", editJSON(got), prefix)
				}
			} else if d := cmp.Diff(map[string]any{"error": want}, got); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
			if approvals, _ := env.recorded(); len(approvals) != 0 {
				t.Errorf("ApproveEdit called %d times, want 0 (refusal must come first)", len(approvals))
			}
			if d := cmp.Diff(before, editTree(t, home)); d != "" {
				t.Errorf("home changed (-before +after):\n%s", d)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "o.txt")); string(b) != "a\n" {
				t.Errorf("outside file = %q, want it unchanged", b)
			}
		})
	}
}

// Ported from hermes's patch failure escalation tests: two plain hints,
// the third consecutive failure on a path escalates, a success resets, and
// the counts are per path and per session.
func TestPatchFailureEscalation(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.txt": "alpha\nbeta\n", "b.txt": "one\n"})
	miss := func(path string) map[string]any {
		return map[string]any{"path": path, "old_string": "zzzz qqqq", "new_string": "x"}
	}
	escalated := func(n int, path string) string {
		return fmt.Sprintf("This is failure #%d patching '%s'. Stop retrying with variations of the same old_string. "+
			"Either: (1) re-read the file fresh to verify current content, (2) use a longer / more unique old_string "+
			"with surrounding context lines, or (3) use write_file to replace the entire file if the targeted region "+
			"is hard to anchor.", n, path)
	}
	steps := []struct {
		name string
		env  *editEnv
		args map[string]any
		hint string // "" means success expected
	}{
		{"a fails once", env, miss("a.txt"), patchHintNotFoundText},
		{"a fails twice", env, miss("a.txt"), patchHintNotFoundText},
		{"b fails once", env, miss("b.txt"), patchHintNotFoundText},
		{"a fails a third time", env, miss("a.txt"), escalated(3, "a.txt")},
		{"a fails a fourth time", env, miss("./a.txt"), escalated(4, "./a.txt")},
		{"b still counts separately", env, miss("b.txt"), patchHintNotFoundText},
		{"a succeeds", env, map[string]any{"path": "a.txt", "old_string": "beta", "new_string": "gamma"}, ""},
		{"a fails after the reset", env, miss("a.txt"), patchHintNotFoundText},
		{"b third failure", env, miss("b.txt"), escalated(3, "b.txt")},
		{"another session starts fresh", newEditEnvWithFiles(t, map[string]string{"b.txt": "one\n"}), miss("b.txt"), patchHintNotFoundText},
	}
	for _, s := range steps {
		got := s.env.run(t, "patch", s.args)
		if s.hint == "" {
			if got["success"] != true {
				t.Fatalf("%s: result = %s, want success", s.name, editJSON(got))
			}
			continue
		}
		if got["success"] != false || got["error"] != "Could not find a match for old_string in the file" {
			t.Errorf("%s: result = %s, want the not-found failure", s.name, editJSON(got))
		}
		if got["_hint"] != s.hint {
			t.Errorf("%s: _hint = %q, want %q", s.name, got["_hint"], s.hint)
		}
	}
}

// patchHintNotFoundText is hermes's hint after old_string was not found,
// in a session that enables read_file and search_files.
const patchHintNotFoundText = "old_string not found. Use read_file to verify the current content, or search_files to locate the text."

// A "Did you mean" section replaces the plain hint, but not the escalated
// one.
func TestPatchFailureEscalationWithDidYouMean(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"app.py": "def main():\n    print('goodbye')\n"})
	args := map[string]any{"path": "app.py", "old_string": "print('hello world')", "new_string": "x"}
	for i, want := range []string{"", "", "This is failure #3 patching 'app.py'."} {
		got := env.run(t, "patch", args)
		msg, _ := got["error"].(string)
		if !strings.Contains(msg, "Did you mean one of these sections?") {
			t.Fatalf("failure %d: error = %q, want a Did you mean section", i+1, msg)
		}
		hint, _ := got["_hint"].(string)
		if want == "" && hint != "" || want != "" && !strings.HasPrefix(hint, want) {
			t.Errorf("failure %d: _hint = %q, want %q", i+1, hint, want)
		}
	}
}

func TestPatchFailuresCap(t *testing.T) {
	t.Parallel()
	f := &patchFailures{counts: map[string]int{}}
	f.record("first")
	f.record("first")
	for i := range patchFailurePaths - 1 {
		f.record(fmt.Sprintf("p%d", i))
	}
	if got := f.record("first"); got != 3 {
		t.Fatalf("record(first) with %d paths = %d, want 3", patchFailurePaths, got)
	}
	f.record("one too many") // evicts the oldest, "first"
	if got := f.record("first"); got != 1 {
		t.Errorf("record(first) after eviction = %d, want 1", got)
	}
	if len(f.counts) != patchFailurePaths || len(f.order) != patchFailurePaths {
		t.Errorf("tracked %d paths (%d in order), want %d", len(f.counts), len(f.order), patchFailurePaths)
	}
	f.reset("first", "never counted")
	if _, ok := f.counts["first"]; ok || len(f.order) != patchFailurePaths-1 {
		t.Errorf("reset left %v, %d in order", f.counts["first"], len(f.order))
	}
}

// Ported from hermes's BOM/CRLF tests: replace keeps a file's CRLF line
// endings and BOM, matches through the BOM, and never doubles it.
func TestPatchReplaceConventions(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	for _, tc := range []struct {
		name, before, old, new, want, wantDiff string
	}{
		{"crlf", "one\r\ntwo\r\nthree\r\n", "two", "2\nand a half", "one\r\n2\r\nand a half\r\nthree\r\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\r\n-two\r\n+2\r\n+and a half\r\n three\r\n"},
		{"bom first line", bom + "first\nsecond\n", "first", "1st", bom + "1st\nsecond\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-first\n+1st\n second\n"},
		{"bom and crlf", bom + "a\r\nb\r\n", "a\nb", "x\ny", bom + "x\r\ny\r\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\r\n-b\r\n+x\r\n+y\r\n"},
		{"lf file, crlf in new_string", "a\nb\n", "b", "c\r\nd", "a\nc\nd\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"f.txt": tc.before})
			got := env.run(t, "patch", map[string]any{"path": "f.txt", "old_string": tc.old, "new_string": tc.new})
			if got["success"] != true {
				t.Fatalf("result = %s, want success", editJSON(got))
			}
			if b, _ := os.ReadFile(env.abs("f.txt")); string(b) != tc.want {
				t.Errorf("f.txt = %q, want %q", b, tc.want)
			}
			if d := cmp.Diff(tc.wantDiff, got["diff"]); d != "" {
				t.Errorf("diff mismatch (-want +got):\n%s", d)
			}
			approvals, _ := env.recorded()
			if c := approvals[0].changes[0]; *c.Old != tc.before || c.New != tc.want {
				t.Errorf("proposal %q → %q, want %q → %q (what is on disk before and after)", *c.Old, c.New, tc.before, tc.want)
			}
		})
	}
}

// Ported from hermes's post-write verification: a write that does not
// persist what was meant is reported.
func TestPatchPostWriteVerification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		mangle func(string) string
		want   string // "" means success
	}{
		{"faithful editor", nil, ""},
		{"editor adds CRLF and a BOM", func(s string) string {
			return "\uFEFF" + strings.ReplaceAll(s, "\n", "\r\n")
		}, ""},
		{"editor drops the last line", func(s string) string {
			return strings.TrimSuffix(s, "three\n")
		}, "Post-write verification failed for <p>: on-disk content differs from intended write (wrote 12 chars, read back 6 chars after normalizing line endings). The patch did not persist. Re-read the file and try again."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			ed := newEditEditor(nil)
			ed.mangle = tc.mangle
			env := newEditEnv(t, editEnvOptions{root: root, editor: ed})
			editWriteTree(t, root, map[string]string{"f.txt": "one\ntwo\nthree\n"})

			got := env.run(t, "patch", map[string]any{"path": "f.txt", "old_string": "two", "new_string": "2"})

			if tc.want == "" {
				if got["success"] != true {
					t.Errorf("result = %s, want success", editJSON(got))
				}
				return
			}
			want := map[string]any{"success": false, "error": strings.ReplaceAll(tc.want, "<p>", env.abs("f.txt"))}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
			if _, reports := env.recorded(); len(reports) != 0 {
				t.Errorf("ReportLint called %d times for a write that did not persist, want 0", len(reports))
			}
		})
	}
}

// Ported from hermes's staleness tests ("patch too").
func TestPatchStaleness(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\n"})
	for _, rel := range []string{"a.txt", "b.txt"} {
		p := env.target(t, rel)
		b, _ := os.ReadFile(env.abs(rel))
		env.State.RecordRead(p, b, false)
	}
	if err := os.WriteFile(env.abs("a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(env.abs("a.txt"), future, future); err != nil {
		t.Fatal(err)
	}
	stale := "Warning: " + env.abs("a.txt") + " was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing."

	got := env.run(t, "patch", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"})
	if got["success"] != true || got["_warning"] != stale {
		t.Errorf("replace result = %s, want success with the staleness warning", editJSON(got))
	}
	got = env.run(t, "patch", map[string]any{"path": "a.txt", "old_string": "2", "new_string": "two"})
	if _, ok := got["_warning"]; ok || got["success"] != true {
		t.Errorf("second replace result = %s, want success without warning (the agent's own write is known)", editJSON(got))
	}

	// V4A: only the file that changed is named.
	if err := os.WriteFile(env.abs("b.txt"), []byte("changed elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(env.abs("b.txt"), future, future); err != nil {
		t.Fatal(err)
	}
	got = env.run(t, "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-one\n+1\n*** Update File: b.txt\n-changed elsewhere\n+y\n"})
	wantWarn := strings.ReplaceAll(stale, "a.txt", "b.txt")
	if got["success"] != true || got["_warning"] != wantWarn {
		t.Errorf("V4A result = %s, want success with the warning for b.txt only", editJSON(got))
	}
}

// Ported from hermes's test_edit_approval.py: a denied V4A patch changes
// nothing and the proposal names every path (both ends of a move).
func TestPatchV4AApproval(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n" +
		"*** Update File: src/a.txt\n-a\n+A\n" +
		"*** Add File: src/new.json\n+{\"k\": 1}\n" +
		"*** Delete File: gone.txt\n" +
		"*** Move File: old.txt -> moved/old.txt\n" +
		"*** End Patch\n"
	files := map[string]string{"src/a.txt": "a\n", "gone.txt": "bye\n", "old.txt": "moving\n"}
	for _, tc := range []struct {
		name     string
		deny     string
		wantTree map[string]string
	}{
		{"denied", editDenial, files},
		{"approved", "", map[string]string{"src/a.txt": "A\n", "src/new.json": "{\"k\": 1}", "moved/old.txt": "moving\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{deny: tc.deny != ""})
			editWriteTree(t, env.root, files)

			got := env.run(t, "patch", map[string]any{"mode": "patch", "patch": patch})

			if tc.deny != "" {
				if d := cmp.Diff(map[string]any{"error": tc.deny}, got); d != "" {
					t.Errorf("result mismatch (-want +got):\n%s", d)
				}
			} else if got["success"] != true {
				t.Errorf("result = %s, want success", editJSON(got))
			}
			if d := cmp.Diff(tc.wantTree, editTree(t, env.root)); d != "" {
				t.Errorf("files mismatch (-want +got):\n%s", d)
			}
			approvals, _ := env.recorded()
			if len(approvals) != 1 {
				t.Fatalf("ApproveEdit calls = %d, want 1 for the whole patch", len(approvals))
			}
			type summary struct {
				Kind       workspace.ChangeKind
				Path, To   string
				Old        *string
				New        string
				LintStatus string
			}
			var gotChanges []summary
			for i, c := range approvals[0].changes {
				s := summary{Kind: c.Kind, Path: c.Path.Abs(), Old: c.Old, New: c.New}
				if !c.MoveTo.IsZero() {
					s.To = c.MoveTo.Abs()
				}
				if res := approvals[0].lints[i]; res.Language != 0 || res.Skipped {
					s.LintStatus = res.ModelLint().Status
				}
				gotChanges = append(gotChanges, s)
			}
			wantChanges := []summary{
				{Kind: workspace.ChangeEdit, Path: env.abs("src/a.txt"), Old: new("a\n"), New: "A\n", LintStatus: "skipped"},
				{Kind: workspace.ChangeCreate, Path: env.abs("src/new.json"), New: "{\"k\": 1}", LintStatus: "ok"},
				{Kind: workspace.ChangeDelete, Path: env.abs("gone.txt"), Old: new("bye\n")},
				{Kind: workspace.ChangeMove, Path: env.abs("old.txt"), To: env.abs("moved/old.txt"), Old: new("moving\n"), New: "moving\n"},
			}
			if d := cmp.Diff(wantChanges, gotChanges); d != "" {
				t.Errorf("proposal mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// V4A with an editor: updates and adds go to the editor's buffers; a move of
// a file without unsaved changes is a rename on disk; a move of a file
// with unsaved changes writes the approved text at the destination and
// removes the source; a delete removes the file from disk.
func TestPatchV4AEditor(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ed := newEditEditor(map[string]string{filepath.Join(root, "dirty.txt"): "unsaved text\n"})
	env := newEditEnv(t, editEnvOptions{root: root, editor: ed})
	editWriteTree(t, root, map[string]string{
		"a.txt": "a\n", "clean.sh": "#!/bin/sh\n", "dirty.txt": "saved text\n", "gone.txt": "x\n",
	})
	if err := os.Chmod(filepath.Join(root, "clean.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	patch := "*** Update File: a.txt\n-a\n+b\n" +
		"*** Move File: clean.sh -> bin/clean.sh\n" +
		"*** Move File: dirty.txt -> moved/dirty.txt\n" +
		"*** Delete File: gone.txt\n" +
		"*** Add File: fresh.txt\n+fresh\n"

	got := env.run(t, "patch", map[string]any{"mode": "patch", "patch": patch})
	if got["success"] != true {
		t.Fatalf("result = %s, want success", editJSON(got))
	}
	wantDisk := map[string]string{"a.txt": "a\n", "bin/clean.sh": "#!/bin/sh\n"}
	if d := cmp.Diff(wantDisk, editTree(t, root)); d != "" {
		t.Errorf("disk mismatch (-want +got):\n%s", d)
	}
	if fi, err := os.Stat(filepath.Join(root, "bin/clean.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin/clean.sh mode = %v (%v), want 0755 kept by the rename", fi.Mode(), err)
	}
	for rel, want := range map[string]string{"a.txt": "b\n", "moved/dirty.txt": "unsaved text\n", "fresh.txt": "fresh"} {
		if text, ok := ed.buffer(env.abs(rel)); !ok || text != want {
			t.Errorf("editor buffer of %s = %q, %v; want %q", rel, text, ok, want)
		}
	}
}

// A file changed between validation and application (here while the user
// was being asked) is not overwritten: the apply phase reports it with
// hermes's "state may be inconsistent" error and the other operations go
// ahead.
func TestPatchV4AApplyPhaseFailure(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	env.onApprove = func([]workspace.Change) {
		if err := os.WriteFile(env.abs("a.txt"), []byte("edited meanwhile\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	got := env.run(t, "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n"})
	want := map[string]any{
		"success": false,
		"error": "Apply phase failed (state may be inconsistent — run `git diff` to assess):\n" +
			"  • Failed to update a.txt: a.txt: file changed after the patch was validated; re-read it and retry",
		"diff":           "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n",
		"files_modified": []any{env.abs("b.txt")},
		"lint":           map[string]any{"b.txt": map[string]any{"status": "skipped", "message": "No linter for .txt files"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("result mismatch (-want +got):\n%s", d)
	}
	wantTree := map[string]string{"a.txt": "edited meanwhile\n", "b.txt": "B\n"}
	if d := cmp.Diff(wantTree, editTree(t, env.root)); d != "" {
		t.Errorf("files mismatch (-want +got):\n%s", d)
	}
}

// Every written file's lint is reported to the editor; deletes report
// nothing and a moved file is reported at its destination.
func TestPatchV4AReportsLint(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.json": "{\"a\": 1}\n", "m.yaml": "k: v\n", "d.txt": "x\n"})
	got := env.run(t, "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.json\n-{\"a\": 1}\n+{\"a\": 1,}\n" +
		"*** Move File: m.yaml -> n.yaml\n*** Delete File: d.txt\n"})
	if got["success"] != true {
		t.Fatalf("result = %s, want success", editJSON(got))
	}
	_, reports := env.recorded()
	var paths []string
	for _, r := range reports {
		paths = append(paths, r.path)
	}
	if d := cmp.Diff([]string{env.abs("a.json"), env.abs("n.yaml")}, paths); d != "" {
		t.Fatalf("ReportLint paths mismatch (-want +got):\n%s", d)
	}
	if s := reports[0].res.ModelLint().Status; s != "error" || reports[0].content != "{\"a\": 1,}\n" {
		t.Errorf("a.json report = %q, %s; want the new content with status error", reports[0].content, s)
	}
	if s := reports[1].res.ModelLint().Status; s != "ok" || reports[1].content != "k: v\n" {
		t.Errorf("n.yaml report = %q, %s; want the moved content with status ok", reports[1].content, s)
	}
}

func TestPatchLineEndings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, target, want string }{
		{"a\r\nb\rc\n", "\n", "a\nb\nc\n"},
		{"a\r\nb\rc\n", "\r\n", "a\r\nb\r\nc\r\n"},
		{"a\r\n", "\r\n", "a\r\n"},
	} {
		if got := patchNormalizeEndings(tc.in, tc.target); got != tc.want {
			t.Errorf("patchNormalizeEndings(%q, %q) = %q, want %q", tc.in, tc.target, got, tc.want)
		}
	}
}

// newEditEnvWithFiles is newEditEnv with files written into the root.
func newEditEnvWithFiles(t *testing.T, files map[string]string) *editEnv {
	t.Helper()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, files)
	return env
}

// V4A keeps CRLF line endings and a BOM too, and its hunks match through
// them.
func TestPatchV4AConventions(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	for _, tc := range []struct {
		name, before, patch, want string
	}{
		{"crlf single line", "one\r\ntwo\r\n", "-two\n+2\n", "one\r\n2\r\n"},
		{"crlf with context", "one\r\ntwo\r\nthree\r\n", " one\n-two\n+2\n+2.5\n three\n", "one\r\n2\r\n2.5\r\nthree\r\n"},
		{"bom first line", bom + "alpha\nbeta\n", "-alpha\n+ALPHA\n", bom + "ALPHA\nbeta\n"},
		{"bom and crlf", bom + "a\r\nb\r\n", " a\n-b\n+c\n", bom + "a\r\nc\r\n"},
		{"crlf updated twice", "one\r\ntwo\r\nthree\r\n", " one\n-two\n+2\n*** Update File: f.txt\n-three\n+3\n+4\n", "one\r\n2\r\n3\r\n4\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"f.txt": tc.before})
			got := env.run(t, "patch", map[string]any{"mode": "patch", "patch": "*** Update File: f.txt\n" + tc.patch})
			if got["success"] != true {
				t.Fatalf("result = %s, want success", editJSON(got))
			}
			if b, _ := os.ReadFile(env.abs("f.txt")); string(b) != tc.want {
				t.Errorf("f.txt = %q, want %q", b, tc.want)
			}
			approvals, _ := env.recorded()
			changes := approvals[0].changes
			if first, last := changes[0], changes[len(changes)-1]; *first.Old != tc.before || last.New != tc.want {
				t.Errorf("proposal %q → … → %q, want %q → %q", *first.Old, last.New, tc.before, tc.want)
			}
		})
	}
}

// editBenchFile is the body of a Go function of n statements.
func editBenchFile(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d, \"item %d\")\n", i, i, i)
	}
	return b.String()
}

// BenchmarkPatchReplace5000 measures one replace-mode patch of a 5,000-line
// file end to end: read, fuzzy match (exact), lint, approval, atomic write,
// post-write verification and diff.
func BenchmarkPatchReplace5000(b *testing.B) {
	env := newEditEnv(b, editEnvOptions{})
	editWriteTree(b, env.root, map[string]string{"big.go": "package big\n\nfunc f() {\n" + editBenchFile(5000) + "}\n"})
	args := []map[string]any{
		{"path": "big.go", "old_string": "value2500 := compute(2500,", "new_string": "value2500 := recompute(2500,"},
		{"path": "big.go", "old_string": "value2500 := recompute(2500,", "new_string": "value2500 := compute(2500,"},
	}
	for i := 0; b.Loop(); i++ {
		if out := env.bench(b, "patch", args[i%2]); !strings.Contains(out, `"success":true`) {
			b.Fatalf("patch failed: %.300s", out)
		}
	}
}

// BenchmarkPatchV4A5000 measures a two-hunk V4A update of a 5,000-line file.
func BenchmarkPatchV4A5000(b *testing.B) {
	env := newEditEnv(b, editEnvOptions{})
	editWriteTree(b, env.root, map[string]string{"big.go": "package big\n\nfunc f() {\n" + editBenchFile(5000) + "}\n"})
	patches := []string{
		"*** Update File: big.go\n-\tvalue100 := compute(100, \"item 100\")\n+\tvalue100 := compute(101, \"item 100\")\n" +
			"@@ value4000 @@\n-\tvalue4000 := compute(4000, \"item 4000\")\n+\tvalue4000 := compute(4001, \"item 4000\")\n",
		"*** Update File: big.go\n-\tvalue100 := compute(101, \"item 100\")\n+\tvalue100 := compute(100, \"item 100\")\n" +
			"@@ value4000 @@\n-\tvalue4000 := compute(4001, \"item 4000\")\n+\tvalue4000 := compute(4000, \"item 4000\")\n",
	}
	for i := 0; b.Loop(); i++ {
		if out := env.bench(b, "patch", map[string]any{"mode": "patch", "patch": patches[i%2]}); !strings.Contains(out, `"success":true`) {
			b.Fatalf("patch failed: %.300s", out)
		}
	}
}
