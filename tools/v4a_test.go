package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// memFS is an in-memory PatchFS.
type memFS map[string]string

func (m memFS) ReadFile(p string) (string, error) {
	c, ok := m[p]
	if !ok {
		return "", fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return c, nil
}

func (m memFS) Exists(p string) bool { _, ok := m[p]; return ok }

// applyChanges plays changes onto a copy of files the way the tool layer
// will, checking that every change's OldText is the current content.
func applyChanges(t *testing.T, files memFS, changes []FileChange) memFS {
	t.Helper()
	out := maps.Clone(files)
	for _, c := range changes {
		// The tool layer resolves paths; "./f" and "f" are one file.
		c.Path, c.MoveTo = path.Clean(c.Path), path.Clean(c.MoveTo)
		cur, exists := out[c.Path]
		switch {
		case c.Kind == OpAdd && (exists || c.OldText != nil):
			t.Fatalf("Add %s: file exists=%v, OldText=%v", c.Path, exists, c.OldText)
		case c.Kind != OpAdd && (c.OldText == nil || !exists || *c.OldText != cur):
			t.Fatalf("%v %s: OldText does not match the current content %q", c.Kind, c.Path, cur)
		}
		switch c.Kind {
		case OpAdd, OpUpdate:
			out[c.Path] = c.NewText
		case OpDelete:
			delete(out, c.Path)
		case OpMove:
			delete(out, c.Path)
			out[c.MoveTo] = c.NewText
		}
	}
	return out
}

// TestApplyV4AFixtures runs testdata/v4a: each archive has a patch file,
// the files before the patch under before/, and either the files after it
// under after/ or the exact error under error (final newline dropped).
func TestApplyV4AFixtures(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "v4a", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/v4a: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			before, after := memFS{}, memFS{}
			var patch, wantErr string
			hasErr := false
			for _, f := range ar.Files {
				switch {
				case f.Name == "patch":
					patch = string(f.Data)
				case f.Name == "error":
					wantErr, hasErr = strings.TrimSuffix(string(f.Data), "\n"), true
				case strings.HasPrefix(f.Name, "before/"):
					before[strings.TrimPrefix(f.Name, "before/")] = string(f.Data)
				case strings.HasPrefix(f.Name, "after/"):
					after[strings.TrimPrefix(f.Name, "after/")] = string(f.Data)
				default:
					t.Fatalf("unexpected fixture file %s", f.Name)
				}
			}
			ops, err := ParseV4A(patch)
			if err != nil {
				t.Fatalf("ParseV4A: %v", err)
			}
			changes, err := ApplyV4A(context.Background(), ops, before)
			if hasErr {
				if err == nil {
					t.Fatalf("ApplyV4A succeeded with %d changes, want error %q", len(changes), wantErr)
				}
				if diff := cmp.Diff(wantErr, err.Error()); diff != "" {
					t.Errorf("ApplyV4A error mismatch (-want +got):\n%s", diff)
				}
				if changes != nil {
					t.Errorf("ApplyV4A returned %d changes with an error, want none", len(changes))
				}
				return
			}
			if err != nil {
				t.Fatalf("ApplyV4A: %v", err)
			}
			if diff := cmp.Diff(after, applyChanges(t, before, changes)); diff != "" {
				t.Errorf("files after the patch mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseV4A(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		patch string
		want  []PatchOp
	}{
		{name: "empty patch", patch: "", want: nil},
		{name: "markers only", patch: "*** Begin Patch\n*** End Patch\n", want: nil},
		{name: "update with hint", patch: "*** Begin Patch\n*** Update File: src/main.py\n@@ def greet @@\n def greet():\n-    print(\"hello\")\n+    print(\"hi\")\n*** End Patch",
			want: []PatchOp{{Kind: OpUpdate, Path: "src/main.py", Hunks: []Hunk{{Hint: "def greet", Lines: []HunkLine{
				{' ', "def greet():"}, {'-', `    print("hello")`}, {'+', `    print("hi")`}}}}}}},
		{name: "two hints", patch: "*** Update File: f.py\n@@ first @@\n a\n-b\n+c\n@@ second @@\n x\n-y\n+z\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "f.py", Hunks: []Hunk{
				{Hint: "first", Lines: []HunkLine{{' ', "a"}, {'-', "b"}, {'+', "c"}}},
				{Hint: "second", Lines: []HunkLine{{' ', "x"}, {'-', "y"}, {'+', "z"}}}}}}},
		{name: "bare, open and empty hunk headers", patch: "*** Update File: f\n@@\n-a\n+b\n@@ func f() {\n-c\n+d\n@@ @@\n-e\n+f\n@@@@\n-g\n+h\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{
				{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}},
				{Hint: "func f() {", Lines: []HunkLine{{'-', "c"}, {'+', "d"}}},
				{Lines: []HunkLine{{'-', "e"}, {'+', "f"}}},
				{Lines: []HunkLine{{'-', "g"}, {'+', "h"}}}}}}},
		{name: "add file", patch: "*** Begin Patch\n*** Add File: new/module.py\n+import os\n+\n+print(\"hello\")\n*** End Patch",
			want: []PatchOp{{Kind: OpAdd, Path: "new/module.py", AddContent: "import os\n\nprint(\"hello\")"}}},
		{name: "add file ignores other lines", patch: "*** Add File: a\n+x\nstray\n\n+y\n\\ No newline at end of file\n",
			want: []PatchOp{{Kind: OpAdd, Path: "a", AddContent: "x\ny"}}},
		{name: "empty add", patch: "*** Add File: empty.txt\n*** End Patch", want: []PatchOp{{Kind: OpAdd, Path: "empty.txt"}}},
		{name: "delete", patch: "*** Begin Patch\n*** Delete File: old/stuff.py\n*** End Patch",
			want: []PatchOp{{Kind: OpDelete, Path: "old/stuff.py"}}},
		{name: "move", patch: "*** Begin Patch\n*** Move File: old/path.py -> new/path.py\n*** End Patch",
			want: []PatchOp{{Kind: OpMove, Path: "old/path.py", MoveTo: "new/path.py"}}},
		{name: "multiple operations", patch: "*** Begin Patch\n*** Add File: a.py\n+content_a\n*** Delete File: b.py\n*** Update File: c.py\n keep\n-remove\n+add\n*** End Patch",
			want: []PatchOp{{Kind: OpAdd, Path: "a.py", AddContent: "content_a"}, {Kind: OpDelete, Path: "b.py"},
				{Kind: OpUpdate, Path: "c.py", Hunks: []Hunk{{Lines: []HunkLine{{' ', "keep"}, {'-', "remove"}, {'+', "add"}}}}}}},
		{name: "no-space markers", patch: "***Begin Patch\n***Update File:x.go\n-a\n+b\n***Delete File: y.go\n***End Patch",
			want: []PatchOp{{Kind: OpUpdate, Path: "x.go", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}, {Kind: OpDelete, Path: "y.go"}}},
		{name: "CRLF patch", patch: "*** Begin Patch\r\n*** Update File: f.py\r\n@@\r\n-    x = 1\r\n+    x = 2\r\n*** End Patch\r\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "f.py", Hunks: []Hunk{{Lines: []HunkLine{{'-', "    x = 1"}, {'+', "    x = 2"}}}}}}},
		{name: "unprefixed lines are context, no-newline marker skipped", patch: "*** Update File: f\nplain\n-old\n\\ No newline at end of file\n+new\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{' ', "plain"}, {'-', "old"}, {'+', "new"}}}}}}},
		{name: "interior empty line is context, trailing ones dropped", patch: "*** Update File: f\n a\n\n-b\n+c\n\n\n*** Delete File: g\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{' ', "a"}, {' ', ""}, {'-', "b"}, {'+', "c"}}}}}, {Kind: OpDelete, Path: "g"}}},
		{name: "markers inside content", patch: "*** Begin Patch\n*** Add File: notes.md\n+doc line one\n+*** End Patch\n+after\n*** Add File: b.md\n+*** Begin Patch\n*** End Patch",
			want: []PatchOp{{Kind: OpAdd, Path: "notes.md", AddContent: "doc line one\n*** End Patch\nafter"}, {Kind: OpAdd, Path: "b.md", AddContent: "*** Begin Patch"}}},
		{name: "text outside the markers ignored", patch: "Here is the patch:\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n",
			want: []PatchOp{{Kind: OpDelete, Path: "a"}}},
		{name: "lines before any header ignored", patch: "-stray\n+stray\n*** Delete File: a\n",
			want: []PatchOp{{Kind: OpDelete, Path: "a"}}},
		{name: "context lines after a move are ignored", patch: "*** Move File: a -> b\n keep\n\n*** Delete File: c\n",
			want: []PatchOp{{Kind: OpMove, Path: "a", MoveTo: "b"}, {Kind: OpDelete, Path: "c"}}},
		{name: "end of file marker skipped", patch: "*** Update File: f\n-a\n+b\n*** End of File\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}}},
		{name: "paths with spaces and arrows", patch: "*** Update File:   my dir/a b.txt  \n-a\n+b\n*** Move File: x y.txt   ->   z -> w.txt\n",
			want: []PatchOp{{Kind: OpUpdate, Path: "my dir/a b.txt", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}, {Kind: OpMove, Path: "x y.txt", MoveTo: "z -> w.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseV4A(tt.patch)
			if err != nil {
				t.Fatalf("ParseV4A(%q) error: %v", tt.patch, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseV4A(%q) mismatch (-want +got):\n%s", tt.patch, diff)
			}
		})
	}
}

func TestParseV4AErrors(t *testing.T) {
	t.Parallel()
	traversal := func(repr string) string {
		return "V4A patch header contains '..' traversal: " + repr + ". Use the agent's cwd-relative path (no '..') or an absolute path in '*** Update File:' / '*** Add File:' / '*** Delete File:' / '*** Move File:' headers."
	}
	tests := []struct {
		name  string
		patch string
		want  string
	}{
		{name: "update without hunks", patch: "*** Begin Patch\n*** Update File: foo.py\n*** End Patch",
			want: "Parse error: UPDATE 'foo.py': no hunks found"},
		{name: "update with only a hunk header", patch: "*** Update File: foo.py\n@@ x @@\n",
			want: "Parse error: UPDATE 'foo.py': no hunks found"},
		{name: "move without arrow", patch: "*** Move File: a.py\n",
			want: "Parse error: MOVE 'a.py': missing destination path (expected 'src -> dst')"},
		{name: "move with empty destination", patch: "*** Move File: a.py ->   \n",
			want: "Parse error: MOVE 'a.py': missing destination path (expected 'src -> dst')"},
		{name: "empty path", patch: "*** Delete File:   \n",
			want: "Parse error: Operation with empty file path"},
		{name: "problems joined", patch: "*** Update File: a\n*** Delete File:\n*** Move File: b\n",
			want: "Parse error: UPDATE 'a': no hunks found; Operation with empty file path; MOVE 'b': missing destination path (expected 'src -> dst')"},
		{name: "codex move to", patch: "*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n",
			want: "Parse error: '*** Move to: new.py' is not supported; rename with '*** Move File: old.py -> new.py' and put any edits in their own '*** Update File:' block"},
		{name: "edits after a move", patch: "*** Move File: a.go -> b.go\n@@\n-x\n+y\n",
			want: "Parse error: MOVE 'a.go': edit lines after a '*** Move File:' header are not supported; put them in their own '*** Update File: b.go' block"},
		{name: "traversal in update", patch: "*** Update File: ../etc/passwd\n-a\n+b\n", want: traversal("'../etc/passwd'")},
		{name: "traversal in add", patch: "*** Add File: a/../../b\n+x\n", want: traversal("'a/../../b'")},
		{name: "traversal in delete", patch: "*** Delete File: x/..\n", want: traversal("'x/..'")},
		{name: "traversal in move source", patch: "*** Move File: ../a -> b\n", want: traversal("'../a'")},
		{name: "traversal in move destination", patch: "*** Move File: a -> sub/../../b\n", want: traversal("'sub/../../b'")},
		{name: "traversal with backslashes", patch: "*** Delete File: ..\\win\n", want: traversal(`'..\\win'`)},
		{name: "traversal checked before parse errors", patch: "*** Update File: ../x\n", want: traversal("'../x'")},
		{name: "traversal header outside the markers", patch: "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: ../b\n", want: traversal("'../b'")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ops, err := ParseV4A(tt.patch)
			var pe *PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseV4A(%q) = %v, %v; want *PatchError", tt.patch, ops, err)
			}
			if pe.Msg != tt.want {
				t.Errorf("ParseV4A(%q) error:\n got %q\nwant %q", tt.patch, pe.Msg, tt.want)
			}
			if ops != nil {
				t.Errorf("ParseV4A(%q) returned %d ops with an error", tt.patch, len(ops))
			}
		})
	}
	// Names that merely contain dots are fine.
	if _, err := ParseV4A("*** Delete File: a..b/...c/.hidden\n"); err != nil {
		t.Errorf("ParseV4A(dotted names) error: %v", err)
	}
}

func TestV4APaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		patch string
		want  []string
	}{
		{name: "all header kinds", patch: "*** Begin Patch\n*** Update File: a.go\n-x\n+y\n*** Add File: b.go\n+z\n*** Delete File: c.go\n*** Move File: d.go -> e/f.go\n*** End Patch",
			want: []string{"a.go", "b.go", "c.go", "d.go", "e/f.go"}},
		{name: "no-space headers and CRLF", patch: "***Update File:a\r\n***Delete File: b\r\n", want: []string{"a", "b"}},
		{name: "duplicates once", patch: "*** Update File: a\n-x\n+y\n*** Update File: a\n-y\n+z\n", want: []string{"a"}},
		{name: "malformed patch still named", patch: "*** Update File: a\n*** Move File: b\n*** Add File: ../c\n", want: []string{"a", "b", "../c"}},
		{name: "content lines are not headers", patch: "*** Add File: a\n+*** Delete File: b\n *** Update File: c\n", want: []string{"a"}},
		{name: "nothing", patch: "hello\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, V4APaths(tt.patch)); diff != "" {
				t.Errorf("V4APaths(%q) mismatch (-want +got):\n%s", tt.patch, diff)
			}
		})
	}
}

func TestApplyV4A(t *testing.T) {
	t.Parallel()
	big := make([]string, 2500)
	for i := range big {
		big[i] = fmt.Sprintf("line_%d", i+1)
	}
	big[2199], big[2200] = "line_2200", "old_value"
	bigContent := strings.Join(big, "\n")
	longLine := strings.Repeat("x", 3000)
	tests := []struct {
		name  string
		patch string
		files memFS
		want  memFS
	}{
		{name: "file over 2000 lines", patch: "*** Begin Patch\n*** Update File: big.py\n@@ marker_at_2200 @@\n line_2200\n-old_value\n+new_value\n*** End Patch",
			files: memFS{"big.py": bigContent},
			want:  memFS{"big.py": strings.Replace(bigContent, "old_value", "new_value", 1)}},
		{name: "long line preserved", patch: "*** Begin Patch\n*** Update File: wide.py\n@@ short_func @@\n def short_func():\n-    return 1\n+    return 2\n*** End Patch",
			files: memFS{"wide.py": "def short_func():\n    return 1\n" + longLine + "\n"},
			want:  memFS{"wide.py": "def short_func():\n    return 2\n" + longLine + "\n"}},
		{name: "edit next to a long line", patch: "*** Update File: w\n " + longLine + "\n-a\n+b\n",
			files: memFS{"w": "head\n" + longLine + "\na\n"},
			want:  memFS{"w": "head\n" + longLine + "\nb\n"}},
		{name: "CRLF patch on an LF file", patch: "*** Begin Patch\r\n*** Update File: f.py\r\n@@\r\n-    x = 1\r\n+    x = 2\r\n*** End Patch\r\n",
			files: memFS{"f.py": "def f():\n    x = 1\n    return x\n"},
			want:  memFS{"f.py": "def f():\n    x = 2\n    return x\n"}},
		{name: "add writes the + lines without a final newline", patch: "*** Add File: rewrite.py\n+fresh = True\n",
			files: memFS{}, want: memFS{"rewrite.py": "fresh = True"}},
		{name: "add then update the new file", patch: "*** Add File: n.txt\n+a\n+b\n*** Update File: n.txt\n-b\n+c\n",
			files: memFS{}, want: memFS{"n.txt": "a\nc"}},
		{name: "two updates of one file in one patch", patch: "*** Update File: f\n-1\n+2\n*** Update File: ./f\n-2\n+3\n",
			files: memFS{"f": "1\n"}, want: memFS{"f": "3\n"}},
		{name: "addition-only hunk on the last line without newline", patch: "*** Update File: f\n@@ last @@\n+added\n",
			files: memFS{"f": "first\nlast"}, want: memFS{"f": "first\nlast\nadded"}},
		{name: "addition-only hunk into an empty file", patch: "*** Update File: f\n+only\n",
			files: memFS{"f": ""}, want: memFS{"f": "only\n"}},
		{name: "identical -/+ pair is a no-op change", patch: "*** Update File: f\n-same\n+same\n",
			files: memFS{"f": "same\n"}, want: memFS{"f": "same\n"}},
		{name: "hunks see earlier hunks", patch: "*** Update File: f\n-a\n+b\n@@\n-b\n+c\n",
			files: memFS{"f": "a\n"}, want: memFS{"f": "c\n"}},
		{name: "move a file", patch: "*** Move File: a.py -> lib/b.py\n",
			files: memFS{"a.py": "x = 1\n"}, want: memFS{"lib/b.py": "x = 1\n"}},
		{name: "update then move", patch: "*** Update File: a\n-1\n+2\n*** Move File: a -> b\n",
			files: memFS{"a": "1\n"}, want: memFS{"b": "2\n"}},
		{name: "non-ASCII hint window", patch: "*** Update File: u\n@@ ζ @@\n-x = 1\n+x = 2\n",
			files: memFS{"u": strings.Repeat("é", 900) + "\nα\nx = 1\n" + strings.Repeat("ü", 3000) + "\nζ\nx = 1\n" + strings.Repeat("ö", 3000) + "\n"},
			want:  memFS{"u": strings.Repeat("é", 900) + "\nα\nx = 1\n" + strings.Repeat("ü", 3000) + "\nζ\nx = 2\n" + strings.Repeat("ö", 3000) + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ops, err := ParseV4A(tt.patch)
			if err != nil {
				t.Fatalf("ParseV4A: %v", err)
			}
			changes, err := ApplyV4A(context.Background(), ops, tt.files)
			if err != nil {
				t.Fatalf("ApplyV4A: %v", err)
			}
			if diff := cmp.Diff(tt.want, applyChanges(t, tt.files, changes)); diff != "" {
				t.Errorf("files after %q mismatch (-want +got):\n%s", tt.patch, diff)
			}
		})
	}
}

func TestApplyV4AChanges(t *testing.T) {
	t.Parallel()
	files := memFS{"old/stuff.py": "def old_func():\n    return 42\n", "empty.py": "", "a.py": "x = 1\n"}
	ops, err := ParseV4A("*** Begin Patch\n*** Delete File: old/stuff.py\n*** Delete File: empty.py\n*** Update File: a.py\n-x = 1\n+x = 2\n*** Add File: n.py\n+y\n*** Move File: a.py -> b.py\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := ApplyV4A(context.Background(), ops, files)
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	want := []FileChange{
		{Kind: OpDelete, Path: "old/stuff.py", OldText: str("def old_func():\n    return 42\n"),
			Diff: "--- a/old/stuff.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def old_func():\n-    return 42\n"},
		{Kind: OpDelete, Path: "empty.py", OldText: str(""), Diff: "# Deleted: empty.py"},
		{Kind: OpUpdate, Path: "a.py", OldText: str("x = 1\n"), NewText: "x = 2\n",
			Diff: "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"},
		{Kind: OpAdd, Path: "n.py", NewText: "y",
			Diff: "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+y\n\\ No newline at end of file\n"},
		{Kind: OpMove, Path: "a.py", MoveTo: "b.py", OldText: str("x = 2\n"), NewText: "x = 2\n", Diff: "# Moved: a.py -> b.py"},
	}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("ApplyV4A changes mismatch (-want +got):\n%s", diff)
	}
	if files["a.py"] != "x = 1\n" || len(files) != 3 {
		t.Errorf("ApplyV4A modified its input: %v", files)
	}
}

// errFS fails every read with a non-"not exist" error.
type errFS struct{}

func (errFS) ReadFile(string) (string, error) { return "", errors.New("permission denied") }
func (errFS) Exists(string) bool              { return true }

func TestApplyV4AErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		ops   []PatchOp
		files PatchFS
		want  string
	}{
		{name: "no operations", ops: nil, files: memFS{},
			want: "Patch validation failed (no files were modified):\n  • Patch contains no changes (only context lines were provided)"},
		{name: "read error reported as is", ops: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}}, files: errFS{},
			want: "Patch validation failed (no files were modified):\n  • f: permission denied"},
		{name: "ambiguous hunk without hint", ops: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}}, files: memFS{"f": "a\na\n"},
			want: "Patch validation failed (no files were modified):\n  • f: hunk 1 (no hint) not found — Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True."},
		{name: "addition-only hint missing", ops: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Hint: "nope", Lines: []HunkLine{{'+', "b"}}}}}}, files: memFS{"f": "a\n"},
			want: "Patch validation failed (no files were modified):\n  • f: addition-only hunk context hint 'nope' not found"},
		{name: "addition-only hint ambiguous", ops: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Hint: "aa", Lines: []HunkLine{{'+', "b"}}}}}}, files: memFS{"f": "aaa\n"},
			want: "Patch validation failed (no files were modified):\n  • f: addition-only hunk context hint 'aa' is ambiguous (2 occurrences)"},
		{name: "move source missing", ops: []PatchOp{{Kind: OpMove, Path: "a", MoveTo: "b"}}, files: memFS{},
			want: "Patch validation failed (no files were modified):\n  • a: source file not found for move"},
		{name: "move without destination", ops: []PatchOp{{Kind: OpMove, Path: "a"}}, files: memFS{"a": ""},
			want: "Patch validation failed (no files were modified):\n  • a: MOVE operation missing destination path"},
		{name: "update after delete", ops: []PatchOp{{Kind: OpDelete, Path: "a"}, {Kind: OpUpdate, Path: "a", Hunks: []Hunk{{Lines: []HunkLine{{'-', "x"}, {'+', "y"}}}}}}, files: memFS{"a": "x\n"},
			want: "Patch validation failed (no files were modified):\n  • a: file not found"},
		{name: "escape drift inside a hunk", ops: []PatchOp{{Kind: OpUpdate, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{' ', "line"}, {'-', `  x = \'a\'`}, {'+', `  x = \'b\'`}, {' ', "line"}}}}}},
			files: memFS{"f": "line\n    x = 1\nline"},
			want:  "Patch validation failed (no files were modified):\n  • f: hunk 1 (no hint) not found — Escape-drift detected: old_string and new_string contain the literal sequence \"\\\\'\" but the matched region of the file does not. This is almost always a tool-call serialization artifact where an apostrophe or quote got prefixed with a spurious backslash. Re-read the file with read_file and pass old_string/new_string without backslash-escaping \"'\" characters."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			changes, err := ApplyV4A(context.Background(), tt.ops, tt.files)
			var pe *PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("ApplyV4A = %v, %v; want *PatchError", changes, err)
			}
			if diff := cmp.Diff(tt.want, pe.Error()); diff != "" {
				t.Errorf("ApplyV4A error mismatch (-want +got):\n%s", diff)
			}
			if changes != nil {
				t.Errorf("ApplyV4A returned changes with an error: %v", changes)
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	lines := func(n int, edit map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := edit[i]; ok {
				b.WriteString(s)
				continue
			}
			fmt.Fprintf(&b, "l%d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, path, old, new, want string
	}{
		{"equal", "a", "x\n", "x\n", ""},
		{"both empty", "a", "", "", ""},
		{"one line", "p.go", "alpha\nbeta\n", "alpha\ngamma\n", "--- a/p.go\n+++ b/p.go\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"},
		{"context and two hunks", "f", lines(20, nil), lines(20, map[int]string{2: "two\n", 18: "eighteen\n"}),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l1\n-l2\n+two\n l3\n l4\n l5\n@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+eighteen\n l19\n l20\n"},
		{"nearby changes share a hunk", "f", lines(10, nil), lines(10, map[int]string{3: "c\n", 8: "h\n"}),
			"--- a/f\n+++ b/f\n@@ -1,10 +1,10 @@\n l1\n l2\n-l3\n+c\n l4\n l5\n l6\n l7\n-l8\n+h\n l9\n l10\n"},
		{"insertion into empty", "n", "", "a\nb\n", "--- a/n\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"missing final newline", "f", "a\nb", "a\nc", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"final newline added", "f", "a", "a\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"CRLF lines", "w", "a\r\nb\r\n", "a\r\nc\r\n", "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, UnifiedDiff(tt.path, tt.old, tt.new)); diff != "" {
				t.Errorf("UnifiedDiff(%q, %q, %q) mismatch (-want +got):\n%s", tt.path, tt.old, tt.new, diff)
			}
		})
	}
}

// FuzzParseV4A checks that the parser never panics, that its errors are
// PatchErrors, and that what it parses names only paths V4APaths reported.
func FuzzParseV4A(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a.py\n@@ def f @@\n def f():\n-    return 1\n+    return 2\n*** End Patch")
	f.Add("*** Add File: b\n+x\n*** Delete File: c\n*** Move File: d -> e\n")
	f.Add("***Update File:x\r\n\r\n-a\r\n\\ No newline\r\n*** End of File\r\n")
	f.Add("*** Update File: a\n*** Move to: b\n")
	f.Add("*** Move File: a\n@@\n+x\n")
	f.Add("*** Delete File: ../x\n")
	f.Fuzz(func(t *testing.T, patch string) {
		ops, err := ParseV4A(patch)
		if err != nil {
			var pe *PatchError
			if !errors.As(err, &pe) || ops != nil {
				t.Fatalf("ParseV4A(%q) = %v, %v; want nil ops and a *PatchError", patch, ops, err)
			}
			return
		}
		named := V4APaths(patch)
		for _, op := range ops {
			if !slices.Contains(named, op.Path) || (op.Kind == OpMove && !slices.Contains(named, op.MoveTo)) {
				t.Fatalf("ParseV4A(%q) op %+v names a path V4APaths(%q) = %q missed", patch, op, patch, named)
			}
			if op.Kind == OpUpdate && len(op.Hunks) == 0 {
				t.Fatalf("ParseV4A(%q) returned an Update without hunks", patch)
			}
		}
		// Applying to an empty tree must not panic either.
		_, _ = ApplyV4A(context.Background(), ops, memFS{})
	})
}

func BenchmarkApplyV4A5000(b *testing.B) {
	content := benchFile(5000)
	patch := "*** Begin Patch\n*** Update File: big.go\n@@ func handler4900 @@\n" +
		" func handler4900(ctx context.Context, req *Request) error {\n" +
		"-\tvalue4901 := compute(req.Field" + fmt.Sprint(4901%13) + ", 4901)\n" +
		"+\tvalue4901 := 0\n*** End Patch\n"
	files := memFS{"big.go": content}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		ops, err := ParseV4A(patch)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ApplyV4A(context.Background(), ops, files); err != nil {
			b.Fatal(err)
		}
	}
}
