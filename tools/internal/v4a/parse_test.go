package v4a

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		patch string
		want  []Op
	}{
		{name: "empty patch", patch: "", want: nil},
		{name: "markers only", patch: "*** Begin Patch\n*** End Patch\n", want: nil},
		{name: "update with hint", patch: "*** Begin Patch\n*** Update File: src/main.py\n@@ def greet @@\n def greet():\n-    print(\"hello\")\n+    print(\"hi\")\n*** End Patch",
			want: []Op{{Kind: Update, Path: "src/main.py", Hunks: []Hunk{{Hint: "def greet", Lines: []HunkLine{
				{' ', "def greet():"}, {'-', `    print("hello")`}, {'+', `    print("hi")`}}}}}}},
		{name: "two hints", patch: "*** Update File: f.py\n@@ first @@\n a\n-b\n+c\n@@ second @@\n x\n-y\n+z\n",
			want: []Op{{Kind: Update, Path: "f.py", Hunks: []Hunk{
				{Hint: "first", Lines: []HunkLine{{' ', "a"}, {'-', "b"}, {'+', "c"}}},
				{Hint: "second", Lines: []HunkLine{{' ', "x"}, {'-', "y"}, {'+', "z"}}}}}}},
		{name: "bare, open and empty hunk headers", patch: "*** Update File: f\n@@\n-a\n+b\n@@ func f() {\n-c\n+d\n@@ @@\n-e\n+f\n@@@@\n-g\n+h\n",
			want: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{
				{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}},
				{Hint: "func f() {", Lines: []HunkLine{{'-', "c"}, {'+', "d"}}},
				{Lines: []HunkLine{{'-', "e"}, {'+', "f"}}},
				{Lines: []HunkLine{{'-', "g"}, {'+', "h"}}}}}}},
		{name: "add file", patch: "*** Begin Patch\n*** Add File: new/module.py\n+import os\n+\n+print(\"hello\")\n*** End Patch",
			want: []Op{{Kind: Add, Path: "new/module.py", AddContent: "import os\n\nprint(\"hello\")"}}},
		{name: "add file ignores other lines", patch: "*** Add File: a\n+x\nstray\n\n+y\n\\ No newline at end of file\n",
			want: []Op{{Kind: Add, Path: "a", AddContent: "x\ny"}}},
		{name: "empty add", patch: "*** Add File: empty.txt\n*** End Patch", want: []Op{{Kind: Add, Path: "empty.txt"}}},
		{name: "delete", patch: "*** Begin Patch\n*** Delete File: old/stuff.py\n*** End Patch",
			want: []Op{{Kind: Delete, Path: "old/stuff.py"}}},
		{name: "move", patch: "*** Begin Patch\n*** Move File: old/path.py -> new/path.py\n*** End Patch",
			want: []Op{{Kind: Move, Path: "old/path.py", MoveTo: "new/path.py"}}},
		{name: "multiple operations", patch: "*** Begin Patch\n*** Add File: a.py\n+content_a\n*** Delete File: b.py\n*** Update File: c.py\n keep\n-remove\n+add\n*** End Patch",
			want: []Op{{Kind: Add, Path: "a.py", AddContent: "content_a"}, {Kind: Delete, Path: "b.py"},
				{Kind: Update, Path: "c.py", Hunks: []Hunk{{Lines: []HunkLine{{' ', "keep"}, {'-', "remove"}, {'+', "add"}}}}}}},
		{name: "no-space markers", patch: "***Begin Patch\n***Update File:x.go\n-a\n+b\n***Delete File: y.go\n***End Patch",
			want: []Op{{Kind: Update, Path: "x.go", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}, {Kind: Delete, Path: "y.go"}}},
		{name: "CRLF patch", patch: "*** Begin Patch\r\n*** Update File: f.py\r\n@@\r\n-    x = 1\r\n+    x = 2\r\n*** End Patch\r\n",
			want: []Op{{Kind: Update, Path: "f.py", Hunks: []Hunk{{Lines: []HunkLine{{'-', "    x = 1"}, {'+', "    x = 2"}}}}}}},
		{name: "unprefixed lines are context, no-newline marker skipped", patch: "*** Update File: f\nplain\n-old\n\\ No newline at end of file\n+new\n",
			want: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{' ', "plain"}, {'-', "old"}, {'+', "new"}}}}}}},
		{name: "interior empty line is context, trailing ones dropped", patch: "*** Update File: f\n a\n\n-b\n+c\n\n\n*** Delete File: g\n",
			want: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{' ', "a"}, {' ', ""}, {'-', "b"}, {'+', "c"}}}}}, {Kind: Delete, Path: "g"}}},
		{name: "markers inside content", patch: "*** Begin Patch\n*** Add File: notes.md\n+doc line one\n+*** End Patch\n+after\n*** Add File: b.md\n+*** Begin Patch\n*** End Patch",
			want: []Op{{Kind: Add, Path: "notes.md", AddContent: "doc line one\n*** End Patch\nafter"}, {Kind: Add, Path: "b.md", AddContent: "*** Begin Patch"}}},
		{name: "text outside the markers ignored", patch: "Here is the patch:\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n",
			want: []Op{{Kind: Delete, Path: "a"}}},
		{name: "lines before any header ignored", patch: "-stray\n+stray\n*** Delete File: a\n",
			want: []Op{{Kind: Delete, Path: "a"}}},
		{name: "context lines after a move are ignored", patch: "*** Move File: a -> b\n keep\n\n*** Delete File: c\n",
			want: []Op{{Kind: Move, Path: "a", MoveTo: "b"}, {Kind: Delete, Path: "c"}}},
		{name: "end of file marker skipped", patch: "*** Update File: f\n-a\n+b\n*** End of File\n",
			want: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}}},
		{name: "paths with spaces and arrows", patch: "*** Update File:   my dir/a b.txt  \n-a\n+b\n*** Move File: x y.txt   ->   z -> w.txt\n",
			want: []Op{{Kind: Update, Path: "my dir/a b.txt", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}, {Kind: Move, Path: "x y.txt", MoveTo: "z -> w.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.patch, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.patch, diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
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
			ops, err := Parse(tt.patch)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, %v; want *Error", tt.patch, ops, err)
			}
			if pe.Msg != tt.want {
				t.Errorf("Parse(%q) error:\n got %q\nwant %q", tt.patch, pe.Msg, tt.want)
			}
			if ops != nil {
				t.Errorf("Parse(%q) returned %d ops with an error", tt.patch, len(ops))
			}
		})
	}
	// Names that merely contain dots are fine.
	if _, err := Parse("*** Delete File: a..b/...c/.hidden\n"); err != nil {
		t.Errorf("Parse(dotted names) error: %v", err)
	}
}

func TestPaths(t *testing.T) {
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
			if diff := cmp.Diff(tt.want, Paths(tt.patch)); diff != "" {
				t.Errorf("Paths(%q) mismatch (-want +got):\n%s", tt.patch, diff)
			}
		})
	}
}

// FuzzParse checks that the parser never panics, that its errors are
// *Error values, and that what it parses names only paths Paths reported.
func FuzzParse(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a.py\n@@ def f @@\n def f():\n-    return 1\n+    return 2\n*** End Patch")
	f.Add("*** Add File: b\n+x\n*** Delete File: c\n*** Move File: d -> e\n")
	f.Add("***Update File:x\r\n\r\n-a\r\n\\ No newline\r\n*** End of File\r\n")
	f.Add("*** Update File: a\n*** Move to: b\n")
	f.Add("*** Move File: a\n@@\n+x\n")
	f.Add("*** Delete File: ../x\n")
	f.Fuzz(func(t *testing.T, patch string) {
		ops, err := Parse(patch)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || ops != nil {
				t.Fatalf("Parse(%q) = %v, %v; want nil ops and a *Error", patch, ops, err)
			}
			return
		}
		named := Paths(patch)
		for _, op := range ops {
			if !slices.Contains(named, op.Path) || (op.Kind == Move && !slices.Contains(named, op.MoveTo)) {
				t.Fatalf("Parse(%q) op %+v names a path Paths(%q) = %q missed", patch, op, patch, named)
			}
			if op.Kind == Update && len(op.Hunks) == 0 {
				t.Fatalf("Parse(%q) returned an Update without hunks", patch)
			}
		}
		// Applying to an empty tree must not panic either.
		_, _ = Apply(context.Background(), ops, memFS{}, nil)
	})
}
