package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestOpenErrors(t *testing.T) {
	dir := realTempDir(t)
	file := filepath.Join(dir, "f.txt")
	mustWrite(t, file, "x")
	for _, tc := range []struct {
		name  string
		cwd   string
		extra []string
		want  string
	}{
		{"empty cwd", "", nil, "cwd is empty"},
		{"relative cwd", "proj", nil, `cwd "proj" is not an absolute path`},
		{"missing cwd", filepath.Join(dir, "nope"), nil, "no such file or directory"},
		{"cwd is a file", file, nil, "is not a directory"},
		{"nul", dir + "/\x00", nil, "NUL byte"},
		{"relative extra", dir, []string{"other"}, `additional directory "other" is not an absolute path`},
		{"missing extra", dir, []string{filepath.Join(dir, "gone")}, "additional directory " + filepath.Join(dir, "gone")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Open(tc.cwd, tc.extra, Options{Home: dir})
			if err == nil {
				w.Close()
				t.Fatalf("Open(%q, %q) succeeded, want an error containing %q", tc.cwd, tc.extra, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open(%q, %q) = %v, want it to contain %q", tc.cwd, tc.extra, err, tc.want)
			}
		})
	}
}

func TestOpenRoots(t *testing.T) {
	a := realTempDir(t)
	b := realTempDir(t)
	link := filepath.Join(realTempDir(t), "a-link")
	mustSymlink(t, a, link)
	w := openWS(t, a+"/", []string{b, a, link, b + "/./"}, Options{})
	if got, want := w.Roots(), []string{a, b}; !slices.Equal(got, want) {
		t.Errorf("Roots() = %q, want %q (duplicates merged)", got, want)
	}
	if w.Cwd() != a {
		t.Errorf("Cwd() = %q, want %q", w.Cwd(), a)
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
}

func TestOpenDefaults(t *testing.T) {
	home := realTempDir(t)
	hh := filepath.Join(home, "custom-hermes")
	t.Setenv("HERMES_HOME", hh)
	w, err := Open(realTempDir(t), nil, Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.hermesHome.lit != hh {
		t.Errorf("HERMES_HOME default = %q, want %q from the environment", w.hermesHome.lit, hh)
	}
	if w.maxBytes != DefaultMaxFileBytes {
		t.Errorf("MaxFileBytes default = %d, want %d", w.maxBytes, DefaultMaxFileBytes)
	}
	if w.tempDir.lit != filepath.Clean(os.TempDir()) {
		t.Errorf("TempDir default = %q, want %q", w.tempDir.lit, os.TempDir())
	}
	t.Setenv("HERMES_HOME", "")
	w2, err := Open(realTempDir(t), nil, Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if want := filepath.Join(home, ".hermes"); w2.hermesHome.lit != want {
		t.Errorf("HermesHome without $HERMES_HOME = %q, want %q", w2.hermesHome.lit, want)
	}
}

func TestReadFile(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "small.txt"), "hello\n")
	mustWrite(t, filepath.Join(dir, "big.txt"), strings.Repeat("x", 2048))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil, Options{MaxFileBytes: 1024})

	got, err := w.ReadFile(mustResolve(t, w, "small.txt"))
	if err != nil || string(got) != "hello\n" {
		t.Errorf("ReadFile(small.txt) = %q, %v; want %q", got, err, "hello\n")
	}
	_, err = w.ReadFile(mustResolve(t, w, "big.txt"))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2.0 KB, larger than the 1.0 KB read limit") {
		t.Errorf("ReadFile(big.txt) = %v, want ErrTooLarge with sizes", err)
	}
	if _, err := w.ReadFile(mustResolve(t, w, "missing.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing.txt) = %v, want fs.ErrNotExist", err)
	}
	if _, err := w.ReadFile(mustResolve(t, w, "sub")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("ReadFile(sub) = %v, want 'is a directory'", err)
	}
	fi, err := w.Stat(mustResolve(t, w, "small.txt"))
	if err != nil || fi.Size() != 6 {
		t.Errorf("Stat(small.txt) = %v, %v; want size 6", fi, err)
	}

	unlimited := openWS(t, dir, nil, Options{MaxFileBytes: -1})
	if got, err := unlimited.ReadFile(mustResolve(t, unlimited, "big.txt")); err != nil || len(got) != 2048 {
		t.Errorf("ReadFile(big.txt) without a limit = %d bytes, %v; want 2048", len(got), err)
	}
}

// A FIFO swapped in after Resolve must neither block ReadFile nor be read.
func TestReadFileFIFOSwappedIn(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "f"), "text")
	w := openWS(t, dir, nil, Options{})
	p := mustResolve(t, w, "f")
	if err := os.Remove(filepath.Join(dir, "f")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "f"), 0o644); err != nil {
		t.Skipf("mkfifo unavailable: %v", err)
	}
	if _, err := w.ReadFile(p); !errors.Is(err, ErrSpecialFile) {
		t.Errorf("ReadFile(fifo) = %v, want ErrSpecialFile", err)
	}
}

func TestClosedWorkspace(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "a"), "a")
	w, err := Open(dir, nil, Options{Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := mustResolve(t, w, "a")
	w.Close()
	if _, err := w.ReadFile(p); err == nil {
		t.Error("ReadFile after Close succeeded, want an error")
	}
}
