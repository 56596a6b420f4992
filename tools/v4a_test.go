package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/hermes-acp/hermes-acp/tools/internal/v4a"
)

// The engine's own tests are in tools/internal/v4a; these run it as patch
// mode does, with the fuzzy matcher, and test the diffs patch mode shows.

// memFS is an in-memory v4a.Files.
type memFS map[string]string

func (m memFS) Read(_ context.Context, p string) (string, error) {
	c, ok := m[p]
	if !ok {
		return "", fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return c, nil
}

// applyChanges plays changes onto a copy of files the way the tool layer
// will, checking that every change's OldText is the current content.
func applyChanges(t *testing.T, files memFS, changes []v4a.Change) memFS {
	t.Helper()
	out := maps.Clone(files)
	for _, c := range changes {
		// The tool layer resolves paths; "./f" and "f" are one file.
		c.Path, c.MoveTo = path.Clean(c.Path), path.Clean(c.MoveTo)
		cur, exists := out[c.Path]
		switch {
		case c.Kind == v4a.Add && (exists || c.OldText != nil):
			t.Fatalf("Add %s: file exists=%v, OldText=%v", c.Path, exists, c.OldText)
		case c.Kind != v4a.Add && (c.OldText == nil || !exists || *c.OldText != cur):
			t.Fatalf("%v %s: OldText does not match the current content %q", c.Kind, c.Path, cur)
		}
		switch c.Kind {
		case v4a.Add, v4a.Update:
			out[c.Path] = c.NewText
		case v4a.Delete:
			delete(out, c.Path)
		case v4a.Move:
			delete(out, c.Path)
			out[c.MoveTo] = c.NewText
		}
	}
	return out
}

// TestApplyFixtures runs testdata/v4a through the V4A engine with patch
// mode's fuzzy matcher: each archive has a patch file, the files before the
// patch under before/, and either the files after it under after/ or the
// exact error under error (final newline dropped).
func TestApplyFixtures(t *testing.T) {
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
			ops, err := v4a.Parse(patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			changes, err := v4a.Apply(context.Background(), ops, before, patchMatch)
			if hasErr {
				if err == nil {
					t.Fatalf("Apply succeeded with %d changes, want error %q", len(changes), wantErr)
				}
				if diff := cmp.Diff(wantErr, err.Error()); diff != "" {
					t.Errorf("Apply error mismatch (-want +got):\n%s", diff)
				}
				if changes != nil {
					t.Errorf("Apply returned %d changes with an error, want none", len(changes))
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if diff := cmp.Diff(after, applyChanges(t, before, changes)); diff != "" {
				t.Errorf("files after the patch mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyV4AWithFuzzyMatcher checks the failures of hunks that only the
// fuzzy matcher explains, quoted by the engine.
func TestApplyV4AWithFuzzyMatcher(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, patch string
		files       memFS
		want        string
	}{
		{name: "ambiguous hunk without hint", patch: "*** Update File: f\n-a\n+b\n", files: memFS{"f": "a\na\n"},
			want: "Patch validation failed (no files were modified):\n  • f: hunk 1 (no hint) not found — Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True."},
		{name: "escape drift inside a hunk", patch: "*** Update File: f\n line\n-  x = \\'a\\'\n+  x = \\'b\\'\n line\n",
			files: memFS{"f": "line\n    x = 1\nline"},
			want:  "Patch validation failed (no files were modified):\n  • f: hunk 1 (no hint) not found — Escape-drift detected: old_string and new_string contain the literal sequence \"\\\\'\" but the matched region of the file does not. This is almost always a tool-call serialization artifact where an apostrophe or quote got prefixed with a spurious backslash. Re-read the file with read_file and pass old_string/new_string without backslash-escaping \"'\" characters."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ops, err := v4a.Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			changes, err := v4a.Apply(context.Background(), ops, tt.files, patchMatch)
			var pe *v4a.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Apply = %v, %v; want *v4a.Error", changes, err)
			}
			if diff := cmp.Diff(tt.want, pe.Error()); diff != "" {
				t.Errorf("Apply error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyV4ACancel checks that a cancelled turn stops patch mode's
// matching of a hunk and that nothing is proposed.
func TestApplyV4ACancel(t *testing.T) {
	t.Parallel()
	ops, err := v4a.Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-nothing like this\n+x\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	var content strings.Builder
	for i := range 100 {
		fmt.Fprintf(&content, "x%d = compute(x%d, %d)\n", i%7, i, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	changes, err := v4a.Apply(ctx, ops, memFS{"a.txt": content.String()}, patchMatch)
	if !errors.Is(err, context.Canceled) || changes != nil {
		t.Fatalf("Apply(cancelled ctx) = %v, %v; want no changes and context.Canceled", changes, err)
	}
}

// TestPatchDiff checks the diff patch mode shows for each kind of change.
func TestPatchDiff(t *testing.T) {
	t.Parallel()
	files := memFS{"old/stuff.py": "def old_func():\n    return 42\n", "empty.py": "", "a.py": "x = 1\n"}
	ops, err := v4a.Parse("*** Begin Patch\n*** Delete File: old/stuff.py\n*** Delete File: empty.py\n*** Update File: a.py\n-x = 1\n+x = 2\n*** Add File: n.py\n+y\n*** Move File: a.py -> b.py\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := v4a.Apply(context.Background(), ops, files, patchMatch)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"--- a/old/stuff.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def old_func():\n-    return 42\n",
		"# Deleted: empty.py",
		"--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
		"--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+y\n\\ No newline at end of file\n",
		"# Moved: a.py -> b.py",
	}
	var got []string
	for _, c := range changes {
		got = append(got, patchDiff(c))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patchDiff mismatch (-want +got):\n%s", diff)
	}
}

func TestPathDiff(t *testing.T) {
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
			if diff := cmp.Diff(tt.want, pathDiff(tt.path, tt.old, tt.new)); diff != "" {
				t.Errorf("pathDiff(%q, %q, %q) mismatch (-want +got):\n%s", tt.path, tt.old, tt.new, diff)
			}
		})
	}
}

// BenchmarkApplyV4A5000 is the V4A engine with patch mode's fuzzy matcher
// on a 5000-function file.
func BenchmarkApplyV4A5000(b *testing.B) {
	content := benchFile(5000)
	patch := "*** Begin Patch\n*** Update File: big.go\n@@ func handler4900 @@\n" +
		" func handler4900(ctx context.Context, req *Request) error {\n" +
		"-\tvalue4901 := compute(req.Field" + fmt.Sprint(4901%13) + ", 4901)\n" +
		"+\tvalue4901 := 0\n*** End Patch\n"
	files := memFS{"big.go": content}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		ops, err := v4a.Parse(patch)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v4a.Apply(context.Background(), ops, files, patchMatch); err != nil {
			b.Fatal(err)
		}
	}
}
