package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), Prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteReplacesWithMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := Write(path, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("ReadFile = %q, %v; want two", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if l := leftovers(t, dir); l != nil {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestWriteMissingFolder(t *testing.T) {
	t.Parallel()
	err := Write(filepath.Join(t.TempDir(), "no", "f.txt"), []byte("x"), 0o644)
	var e *Error
	if !errors.As(err, &e) || e.Step != "create temporary file" || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Write into a missing folder = %v, want a create-temporary-file error wrapping ErrNotExist", err)
	}
}

// A failure at any step leaves the original intact and no temporary file.
func TestWriteInFailureLeavesOriginal(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("original"), 0o644); err != nil {
				t.Fatal(err)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			boom := errors.New("injected failure")
			err = WriteIn(root, "keep.txt", []byte("replacement"), 0o644, Options{Failpoint: func(s string) error {
				if s == step {
					return boom
				}
				return nil
			}})
			if !errors.Is(err, boom) {
				t.Fatalf("WriteIn = %v, want the injected failure", err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(got) != "original" {
				t.Errorf("original = %q after failure", got)
			}
			if l := leftovers(t, dir); l != nil {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
}

// WriteIn never leaves its root: a name through a symbolic link out of it
// is refused and nothing is written outside.
func TestWriteInStaysInRoot(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteIn(root, filepath.Join("out", "x.txt"), []byte("x"), 0o644, Options{}); err == nil {
		t.Error("WriteIn through a link out of the root succeeded")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files written outside the root: %v", ents)
	}
}

// TestCreateStreams: a File written in pieces replaces the target only on
// Commit, with its mode; Abort, and a Commit that fails, leave the old
// content and no temporary file.
func TestCreateStreams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	write := func(o Options) *File {
		t.Helper()
		f, err := Create(root, "big.bin", 0o750, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{"new ", "content ", "in parts"} {
			if _, err := f.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := root.ReadFile(f.TempName()); err != nil || string(got) != "new content in parts" {
			t.Fatalf("temporary file = %q, %v", got, err)
		}
		if got, _ := os.ReadFile(target); string(got) != "old" {
			t.Fatalf("target = %q before Commit, want it untouched", got)
		}
		return f
	}

	write(Options{}).Abort()
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Errorf("target = %q after Abort, want the old content", got)
	}
	if l := leftovers(t, dir); l != nil {
		t.Errorf("temporary files left after Abort: %v", l)
	}

	boom := errors.New("injected failure")
	f := write(Options{Failpoint: func(s string) error {
		if s == "rename" {
			return boom
		}
		return nil
	}})
	if err := f.Commit(); !errors.Is(err, boom) {
		t.Fatalf("Commit = %v, want the injected failure", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Errorf("target = %q after a failed Commit", got)
	}
	if l := leftovers(t, dir); l != nil {
		t.Errorf("temporary files left after a failed Commit: %v", l)
	}

	f = write(Options{})
	if err := f.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	f.Abort() // after Commit: nothing
	got, err := os.ReadFile(target)
	if err != nil || string(got) != "new content in parts" {
		t.Errorf("target = %q, %v after Commit", got, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("target mode = %v, %v; want 0750", fi.Mode().Perm(), err)
	}
	if l := leftovers(t, dir); l != nil {
		t.Errorf("temporary files left after Commit: %v", l)
	}
}
