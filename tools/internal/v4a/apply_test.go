package v4a

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// memFS is an in-memory Files.
type memFS map[string]string

func (m memFS) Read(_ context.Context, p string) (string, error) {
	c, ok := m[p]
	if !ok {
		return "", fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return c, nil
}

// errFS fails every read with a non-"not exist" error.
type errFS struct{}

func (errFS) Read(context.Context, string) (string, error) {
	return "", errors.New("permission denied")
}

// applyChanges plays changes onto a copy of files the way the patch tool
// does, checking that every change's OldText is the current content.
func applyChanges(t *testing.T, files memFS, changes []Change) memFS {
	t.Helper()
	out := maps.Clone(files)
	for _, c := range changes {
		// The tool resolves paths; "./f" and "f" are one file.
		c.Path, c.MoveTo = path.Clean(c.Path), path.Clean(c.MoveTo)
		cur, exists := out[c.Path]
		switch {
		case c.Kind == Add && (exists || c.OldText != nil):
			t.Fatalf("Add %s: file exists=%v, OldText=%v", c.Path, exists, c.OldText)
		case c.Kind != Add && (c.OldText == nil || !exists || *c.OldText != cur):
			t.Fatalf("%v %s: OldText does not match the current content %q", c.Kind, c.Path, cur)
		}
		switch c.Kind {
		case Add, Update:
			out[c.Path] = c.NewText
		case Delete:
			delete(out, c.Path)
		case Move:
			delete(out, c.Path)
			out[c.MoveTo] = c.NewText
		}
	}
	return out
}

func TestApply(t *testing.T) {
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
			ops, err := Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			changes, err := Apply(context.Background(), ops, tt.files, nil)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if diff := cmp.Diff(tt.want, applyChanges(t, tt.files, changes)); diff != "" {
				t.Errorf("files after %q mismatch (-want +got):\n%s", tt.patch, diff)
			}
		})
	}
}

func TestApplyChanges(t *testing.T) {
	t.Parallel()
	files := memFS{"old/stuff.py": "def old_func():\n    return 42\n", "empty.py": "", "a.py": "x = 1\n"}
	ops, err := Parse("*** Begin Patch\n*** Delete File: old/stuff.py\n*** Delete File: empty.py\n*** Update File: a.py\n-x = 1\n+x = 2\n*** Add File: n.py\n+y\n*** Move File: a.py -> b.py\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := Apply(context.Background(), ops, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	want := []Change{
		{Kind: Delete, Path: "old/stuff.py", OldText: str("def old_func():\n    return 42\n")},
		{Kind: Delete, Path: "empty.py", OldText: str("")},
		{Kind: Update, Path: "a.py", OldText: str("x = 1\n"), NewText: "x = 2\n"},
		{Kind: Add, Path: "n.py", NewText: "y"},
		{Kind: Move, Path: "a.py", MoveTo: "b.py", OldText: str("x = 2\n"), NewText: "x = 2\n"},
	}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("Apply changes mismatch (-want +got):\n%s", diff)
	}
	if files["a.py"] != "x = 1\n" || len(files) != 3 {
		t.Errorf("Apply modified its input: %v", files)
	}
}

func TestApplyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		ops   []Op
		files Files
		want  string
	}{
		{name: "no operations", ops: nil, files: memFS{},
			want: "Patch validation failed (no files were modified):\n  • Patch contains no changes (only context lines were provided)"},
		{name: "read error reported as is", ops: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}}, files: errFS{},
			want: "Patch validation failed (no files were modified):\n  • f: permission denied"},
		{name: "ambiguous hunk without hint", ops: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}}}, files: memFS{"f": "a\na\n"},
			want: "Patch validation failed (no files were modified):\n  • f: hunk 1 (no hint) not found — search text is ambiguous (2 occurrences)"},
		{name: "addition-only hint missing", ops: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Hint: "nope", Lines: []HunkLine{{'+', "b"}}}}}}, files: memFS{"f": "a\n"},
			want: "Patch validation failed (no files were modified):\n  • f: addition-only hunk context hint 'nope' not found"},
		{name: "addition-only hint ambiguous", ops: []Op{{Kind: Update, Path: "f", Hunks: []Hunk{{Hint: "aa", Lines: []HunkLine{{'+', "b"}}}}}}, files: memFS{"f": "aaa\n"},
			want: "Patch validation failed (no files were modified):\n  • f: addition-only hunk context hint 'aa' is ambiguous (2 occurrences)"},
		{name: "move source missing", ops: []Op{{Kind: Move, Path: "a", MoveTo: "b"}}, files: memFS{},
			want: "Patch validation failed (no files were modified):\n  • a: source file not found for move"},
		{name: "move without destination", ops: []Op{{Kind: Move, Path: "a"}}, files: memFS{"a": ""},
			want: "Patch validation failed (no files were modified):\n  • a: MOVE operation missing destination path"},
		{name: "update after delete", ops: []Op{{Kind: Delete, Path: "a"}, {Kind: Update, Path: "a", Hunks: []Hunk{{Lines: []HunkLine{{'-', "x"}, {'+', "y"}}}}}}, files: memFS{"a": "x\n"},
			want: "Patch validation failed (no files were modified):\n  • a: file not found"},
		{name: "add over an unreadable path", ops: []Op{{Kind: Add, Path: "f", AddContent: "x"}}, files: errFS{},
			want: "Patch validation failed (no files were modified):\n  • f: file already exists — use Update File, not Add File"},
		{name: "move onto an unreadable path", ops: []Op{{Kind: Move, Path: "a", MoveTo: "b"}}, files: errFS{},
			want: "Patch validation failed (no files were modified):\n  • a: source file not found for move\n  • b: destination already exists — move would overwrite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			changes, err := Apply(context.Background(), tt.ops, tt.files, nil)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Apply = %v, %v; want *Error", changes, err)
			}
			if diff := cmp.Diff(tt.want, pe.Error()); diff != "" {
				t.Errorf("Apply error mismatch (-want +got):\n%s", diff)
			}
			if changes != nil {
				t.Errorf("Apply returned changes with an error: %v", changes)
			}
		})
	}
}

// ctxKey marks the context a test passes to Apply.
type ctxKey struct{}

// ctxFS is a Files that records the marker of the context of each read.
type ctxFS struct {
	memFS
	seen *[]any
}

func (f ctxFS) Read(ctx context.Context, p string) (string, error) {
	*f.seen = append(*f.seen, ctx.Value(ctxKey{}))
	return f.memFS.Read(ctx, p)
}

// TestApplyContextReachesFilesAndMatcher checks that every file read and
// every hunk match runs with the context of the Apply call itself, so that
// a caller's cancellation and values reach them (nothing keeps a context
// from an earlier call).
func TestApplyContextReachesFilesAndMatcher(t *testing.T) {
	t.Parallel()
	ops, err := Parse("*** Update File: a\n-1\n+2\n*** Add File: b\n+x\n*** Move File: c -> d\n*** Delete File: e\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, mark := range []string{"first", "second"} {
		var reads, matches []any
		files := ctxFS{memFS{"a": "1\n", "c": "c", "e": "e"}, &reads}
		match := func(ctx context.Context, content, search, replace string) (string, error) {
			matches = append(matches, ctx.Value(ctxKey{}))
			return Exact(ctx, content, search, replace)
		}
		ctx := context.WithValue(context.Background(), ctxKey{}, mark)
		if _, err := Apply(ctx, ops, files, match); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if len(reads) == 0 || len(matches) != 1 {
			t.Fatalf("Apply made %d reads and %d matches, want some reads and 1 match", len(reads), len(matches))
		}
		for _, got := range append(reads, matches...) {
			if got != mark {
				t.Errorf("call %q: a read or match ran with context marked %v", mark, got)
			}
		}
	}
}

// TestApplyMatcher checks that hunks are placed by the caller's matcher, in
// the whole file first and then in the window around the hunk's hint, and
// that its failure is quoted with the file and hunk.
func TestApplyMatcher(t *testing.T) {
	t.Parallel()
	// upper matches search case-insensitively, so it finds what Exact cannot.
	upper := func(ctx context.Context, content, search, replace string) (string, error) {
		return Exact(ctx, strings.ToUpper(content), strings.ToUpper(search), replace)
	}
	ops, err := Parse("*** Update File: f\n-B\n+c\n")
	if err != nil {
		t.Fatal(err)
	}
	files := memFS{"f": "a\nb\n"}
	changes, err := Apply(context.Background(), ops, files, upper)
	if err != nil {
		t.Fatalf("Apply with a case-insensitive matcher: %v", err)
	}
	if got, want := changes[0].NewText, "A\nc\n"; got != want {
		t.Errorf("Apply with a case-insensitive matcher: NewText = %q, want %q", got, want)
	}
	if _, err := Apply(context.Background(), ops, files, nil); err == nil || !strings.Contains(err.Error(), "f: hunk 1 (no hint) not found — search text not found") {
		t.Errorf("Apply with Exact = %v, want the hunk not found", err)
	}

	refuse := func(context.Context, string, string, string) (string, error) {
		return "", errors.New("no such text here")
	}
	_, err = Apply(context.Background(), ops, files, refuse)
	want := "Patch validation failed (no files were modified):\n  • f: hunk 1 (no hint) not found — no such text here"
	if err == nil || err.Error() != want {
		t.Errorf("Apply with a refusing matcher = %v, want %q", err, want)
	}
}

func TestApplyCancelled(t *testing.T) {
	t.Parallel()
	ops, err := Parse("*** Update File: a\n-1\n+2\n*** Update File: b\n-1\n+2\n")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	match := func(ctx context.Context, content, search, replace string) (string, error) {
		calls++
		cancel() // the turn is cancelled while the first hunk is matched
		return "", ctx.Err()
	}
	changes, err := Apply(ctx, ops, memFS{"a": "1\n", "b": "1\n"}, match)
	if !errors.Is(err, context.Canceled) || changes != nil {
		t.Errorf("Apply cancelled = %v, %v; want no changes and context.Canceled", changes, err)
	}
	if calls != 1 {
		t.Errorf("Apply went on matching after the cancel: %d matches, want 1", calls)
	}
}

func TestExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content, search, want, wantErr string
	}{
		{"a\nb\n", "b", "a\nX\n", ""},
		{"a\nb\n", "c", "", "search text not found"},
		{"b\nb\n", "b", "", "search text is ambiguous (2 occurrences)"},
		{"b\n", "", "", "empty search text"},
	}
	for _, tt := range tests {
		got, err := Exact(context.Background(), tt.content, tt.search, "X")
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Exact(%q, %q) = %q, %v; want error %q", tt.content, tt.search, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Exact(%q, %q) = %q, %v; want %q", tt.content, tt.search, got, err, tt.want)
		}
	}
}

func BenchmarkApply5000(b *testing.B) {
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "func handler%d(ctx context.Context) error {\n\treturn compute(%d)\n}\n", i, i)
	}
	content := sb.String()
	patch := "*** Begin Patch\n*** Update File: big.go\n@@ func handler4900 @@\n" +
		" func handler4900(ctx context.Context) error {\n-\treturn compute(4900)\n+\treturn 0\n*** End Patch\n"
	files := memFS{"big.go": content}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		ops, err := Parse(patch)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Apply(context.Background(), ops, files, nil); err != nil {
			b.Fatal(err)
		}
	}
}
