package checkpoint_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/checkpoint"
)

// folder makes a workspace folder with files (slash paths → content), every
// file dated an hour ago (older than the stat cache's racy window).
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		write(t, dir, name, content)
	}
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func manager(t *testing.T, opts checkpoint.Options) *checkpoint.Manager {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "checkpoints")
	}
	return checkpoint.New(opts)
}

func repo(t *testing.T, m *checkpoint.Manager, root string) *checkpoint.Repo {
	t.Helper()
	r, err := m.Repo(root)
	if err != nil {
		t.Fatalf("Repo(%s): %v", root, err)
	}
	return r
}

func mark(session string, turn int) checkpoint.Mark {
	return checkpoint.Mark{Session: session, Turn: turn, Phase: checkpoint.Before, At: time.Date(2026, 12, 2, 18, 0, turn, 0, time.UTC), Prompt: "turn prompt", History: 2 * turn}
}

// contents reads every file of a state back.
func contents(t *testing.T, r *checkpoint.Repo, st *checkpoint.State) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, f := range st.Files {
		b, err := r.Content(context.Background(), f)
		if err != nil {
			t.Fatalf("Content(%s): %v", p, err)
		}
		out[p] = string(b)
	}
	return out
}

func TestRecordAndReadBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	binary := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff"
	crlf := "one\r\ntwo\r\nlf\nthree\r\n"
	root := folder(t, map[string]string{
		"a.go":              "package a\n",
		"sub/c.txt":         "c\n",
		"logo.png":          binary,
		"crlf.txt":          crlf,
		"node_modules/x.js": "ignored by the checkpoint exclusions",
		"app.log":           "ignored (*.log)",
		".gitignore":        "secret/\n*.tmp\n!keep.tmp\n",
		"secret/s.txt":      "ignored by .gitignore",
		"x.tmp":             "ignored by .gitignore",
		"keep.tmp":          "re-included",
		".git/config":       "[core]\n",
		"deep/.git":         "gitdir: elsewhere\n",
	})
	if err := os.Chmod(filepath.Join(root, "a.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := manager(t, checkpoint.Options{})
	r := repo(t, m, root)
	before, err := r.Record(ctx, mark("sess_1", 1))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.go": "package a\n", "sub/c.txt": "c\n", "logo.png": binary, "crlf.txt": crlf, ".gitignore": "secret/\n*.tmp\n!keep.tmp\n", "keep.tmp": "re-included"}
	if diff := cmp.Diff(want, contents(t, r, before)); diff != "" {
		t.Errorf("recorded files (-want +got):\n%s", diff)
	}
	if got := before.Files["a.go"].Mode; got != 0o755 {
		t.Errorf("a.go mode = %v, want 0755", got)
	}

	// The turn changes files the way a turn does.
	write(t, root, "a.go", "package a // patched\n")
	write(t, root, "b.txt", "new\n")
	if err := os.Remove(filepath.Join(root, "sub/c.txt")); err != nil {
		t.Fatal(err)
	}
	changed, err := r.Finish(ctx, mark("sess_1", 1))
	if err != nil || !changed {
		t.Fatalf("Finish = %v, %v; want true", changed, err)
	}
	turns, err := r.Turns(ctx, "sess_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 1 || turns[0].Turn != 1 || turns[0].Prompt != "turn prompt" || turns[0].History != 2 || turns[0].After == "" || !turns[0].At.Equal(mark("", 1).At) {
		t.Fatalf("Turns = %+v, want turn 1 with its mark and an After", turns)
	}
	b, err := r.State(ctx, turns[0].Before)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, contents(t, r, b)); diff != "" {
		t.Errorf("the Before state read back (-want +got):\n%s", diff)
	}
	a, err := r.State(ctx, turns[0].After)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range checkpoint.Changes(b, a) {
		got = append(got, c.Kind+" "+c.Path)
	}
	if diff := cmp.Diff([]string{"modified a.go", "added b.txt", "deleted sub/c.txt"}, got); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
	// The user's .git is never written: only the shadow repository is.
	if b, err := os.ReadFile(filepath.Join(root, ".git/config")); err != nil || string(b) != "[core]\n" {
		t.Errorf(".git/config = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(m.ShadowDir(r.Root()), "HEAD")); err != nil {
		t.Errorf("no shadow repository at %s: %v", m.ShadowDir(r.Root()), err)
	}
}

func TestNoChangeRecordsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := folder(t, map[string]string{"a.txt": "a\n"})
	r := repo(t, manager(t, checkpoint.Options{}), root)
	if _, err := r.Record(ctx, mark("sess_1", 1)); err != nil {
		t.Fatal(err)
	}
	changed, err := r.Finish(ctx, mark("sess_1", 1))
	if err != nil || changed {
		t.Fatalf("Finish = %v, %v; want false", changed, err)
	}
	if turns, err := r.Turns(ctx, "sess_1"); err != nil || len(turns) != 0 {
		t.Errorf("Turns = %v, %v; want none", turns, err)
	}
}

// TestIncremental: a file whose size, time and mode are as the last
// snapshot saw them is not read again (the stat cache), and one whose stat
// changed is.
func TestIncremental(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := folder(t, map[string]string{"same.txt": "aaaa\n", "other.txt": "x\n"})
	r := repo(t, manager(t, checkpoint.Options{}), root)
	first, err := r.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "same.txt")
	fi, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte("bbbb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	write(t, root, "other.txt", "changed\n")
	second, err := r.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second.Files["same.txt"] != first.Files["same.txt"] {
		t.Error("same.txt was hashed again though its size, time and mode did not change")
	}
	if b, _ := r.Content(ctx, second.Files["other.txt"]); string(b) != "changed\n" {
		t.Errorf("other.txt = %q, want its new content", b)
	}
}

func TestSizeAndCountLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := folder(t, map[string]string{"small.txt": "s\n", "big.bin": strings.Repeat("x", 2048)})
	r := repo(t, manager(t, checkpoint.Options{MaxFileBytes: 1024}), root)
	st, err := r.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Files["big.bin"]; ok || st.Skipped["big.bin"] != 2048 {
		t.Errorf("big.bin: recorded %v, skipped %d; want skipped at 2048 bytes", ok, st.Skipped["big.bin"])
	}
	if _, ok := st.Files["small.txt"]; !ok {
		t.Error("small.txt not recorded")
	}
	r2 := repo(t, manager(t, checkpoint.Options{MaxFiles: 1}), root)
	if _, err := r2.Record(ctx, mark("sess_1", 1)); !errors.Is(err, checkpoint.ErrTooManyFiles) {
		t.Errorf("Record of 2 files with max_files 1 = %v, want ErrTooManyFiles", err)
	}
	if _, err := manager(t, checkpoint.Options{Home: root}).Repo(root); !errors.Is(err, checkpoint.ErrTooBroad) {
		t.Errorf("Repo(home) = %v, want ErrTooBroad", err)
	}
	if _, err := manager(t, checkpoint.Options{}).Repo("/"); !errors.Is(err, checkpoint.ErrTooBroad) {
		t.Errorf("Repo(/) = %v, want ErrTooBroad", err)
	}
}

// TestCorruptRepositoryMovedAside: a damaged shadow repository fails one
// operation with a *CorruptError naming where it went, and the next
// operation works on a new one.
func TestCorruptRepositoryMovedAside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := folder(t, map[string]string{"a.txt": "a\n"})
	m := manager(t, checkpoint.Options{})
	r := repo(t, m, root)
	if _, err := r.Record(ctx, mark("sess_1", 1)); err != nil {
		t.Fatal(err)
	}
	// Damage it: delete every object.
	objects := filepath.Join(m.ShadowDir(r.Root()), "objects")
	_ = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			os.Remove(p)
		}
		return nil
	})
	_, err := r.Turns(ctx, "sess_1")
	var ce *checkpoint.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Turns of a damaged repository = %v, want a *CorruptError", err)
	}
	if _, err := os.Stat(filepath.Join(ce.MovedTo, "HEAD")); err != nil {
		t.Errorf("the damaged repository is not at %s: %v", ce.MovedTo, err)
	}
	if _, err := r.Record(ctx, mark("sess_1", 2)); err != nil {
		t.Fatalf("Record after the move: %v", err)
	}
	if turns, err := r.Turns(ctx, "sess_1"); err != nil || len(turns) != 1 || turns[0].Turn != 2 {
		t.Errorf("Turns after the move = %+v, %v; want turn 2 only", turns, err)
	}
}

// TestEnforceDropsOldestSessionsFirst: over the bound, the session whose
// checkpoints are oldest goes first, and the recording session keeps its
// newest turn.
func TestEnforceDropsOldestSessionsFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := folder(t, map[string]string{"a.txt": strings.Repeat("a", 4000)})
	m := manager(t, checkpoint.Options{MaxTotalBytes: 1})
	r := repo(t, m, root)
	for i, s := range []string{"sess_old", "sess_new"} {
		mk := mark(s, 1)
		mk.At = mk.At.Add(time.Duration(i) * time.Hour)
		if _, err := r.Record(ctx, mk); err != nil {
			t.Fatal(err)
		}
		write(t, root, "a.txt", strings.Repeat(string(rune('b'+i)), 4000))
		if _, err := r.Finish(ctx, mk); err != nil {
			t.Fatal(err)
		}
	}
	dropped, err := r.Enforce(ctx, "sess_new")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sess_old"}, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if turns, _ := r.Turns(ctx, "sess_old"); len(turns) != 0 {
		t.Errorf("sess_old still has %d turns", len(turns))
	}
	turns, err := r.Turns(ctx, "sess_new")
	if err != nil || len(turns) != 1 {
		t.Fatalf("sess_new turns = %v, %v; want its newest kept", turns, err)
	}
	// The kept turn's content survived the pruning.
	st, err := r.State(ctx, turns[0].Before)
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(t, r, st)["a.txt"]; got != strings.Repeat("b", 4000) {
		t.Errorf("kept turn's a.txt = %.10q…, want the b's", got)
	}
}

func TestDeleteSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := folder(t, map[string]string{"a.txt": "a\n"})
	m := manager(t, checkpoint.Options{})
	r := repo(t, m, root)
	for _, s := range []string{"sess_a", "sess_b"} {
		if _, err := r.Record(ctx, mark(s, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.DeleteSession(ctx, "sess_a"); err != nil {
		t.Fatal(err)
	}
	if turns, _ := r.Turns(ctx, "sess_a"); len(turns) != 0 {
		t.Errorf("sess_a has %d turns after DeleteSession", len(turns))
	}
	if turns, _ := r.Turns(ctx, "sess_b"); len(turns) != 1 {
		t.Errorf("sess_b has %d turns, want 1", len(turns))
	}
	if err := r.DropTurns(ctx, "sess_b", 1); err != nil {
		t.Fatal(err)
	}
	if turns, _ := r.Turns(ctx, "sess_b"); len(turns) != 0 {
		t.Errorf("sess_b has %d turns after DropTurns(1)", len(turns))
	}
}

func TestLineCounts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b           string
		added, removed int
		binary         bool
	}{
		{"a\nb\nc\n", "a\nB\nc\nd\n", 2, 1, false},
		{"", "x\ny", 2, 0, false},
		{"x\n", "", 0, 1, false},
		{"a\x00b", "a", 0, 0, true},
	} {
		added, removed, binary := checkpoint.LineCounts([]byte(c.a), []byte(c.b))
		if added != c.added || removed != c.removed || binary != c.binary {
			t.Errorf("LineCounts(%q, %q) = %d, %d, %v; want %d, %d, %v", c.a, c.b, added, removed, binary, c.added, c.removed, c.binary)
		}
	}
}
