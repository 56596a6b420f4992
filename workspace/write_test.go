package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestKeepConventions(t *testing.T) {
	t.Parallel()
	const bom = "\xef\xbb\xbf"
	for _, tc := range []struct {
		name              string
		existing, content string
		want              string
	}{
		{"new file unchanged", "", "a\nb\n", "a\nb\n"},
		{"lf file unchanged", "x\ny\n", "a\r\nb\n", "a\r\nb\n"},
		{"crlf file converts lf", "x\r\ny\r\n", "a\nb\n", "a\r\nb\r\n"},
		{"crlf file keeps crlf", "x\r\ny\r\n", "a\r\nb\r\n", "a\r\nb\r\n"},
		{"crlf file mixed input", "x\r\n", "a\r\nb\nc\rd", "a\r\nb\r\nc\r\nd"},
		{"crlf file no newline", "x\r\n", "single", "single"},
		{"crlf detected in first 4KB only", strings.Repeat("x\n", 3000) + "late\r\n", "a\n", "a\n"},
		{"bom kept", bom + "x\n", "a\n", bom + "a\n"},
		{"bom never doubled", bom + "x\n", bom + "a\n", bom + "a\n"},
		{"bom never doubled twice", bom + "x\n", bom + bom + "a\n", bom + "a\n"},
		{"bom and crlf", bom + "x\r\n", "a\nb\n", bom + "a\r\nb\r\n"},
		{"no bom in file keeps content bom", "x\n", bom + "a\n", bom + "a\n"},
		{"empty content into bom file", bom + "x", "", bom},
		{"crlf file keeps untouched lf line", "a\r\nb\nc\r\n", "a\nb\nc\nd\n", "a\r\nb\nc\r\nd\r\n"},
		{"lf-dominant mixed file gives new lines lf", "a\nb\nc\r\n", "a\nb\nX\nc\n", "a\nb\nX\nc\r\n"},
		{"lone cr file", "a\rb\r", "a\nnew\nb\n", "a\rnew\rb\r"},
		{"last line without ending stays without", "a\r\nb", "a\nb", "a\r\nb"},
		{"last line gains an ending", "a\r\nb", "a\nb\n", "a\r\nb\r\n"},
	} {
		got, err := KeepConventions("f.txt", []byte(tc.existing), []byte(tc.content))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: KeepConventions(%q, %q) = %q, %v, want %q", tc.name, tc.existing, tc.content, got, err, tc.want)
		}
	}
}

func TestStripBOM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"\xef\xbb\xbfhello", "hello"},
		{"\xef\xbb\xbf\xef\xbb\xbfx", "\xef\xbb\xbfx"},
		{"hello", "hello"},
		{"", ""},
	} {
		if got := string(StripBOM([]byte(tc.in))); got != tc.want {
			t.Errorf("StripBOM(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// tempFiles lists WriteFile's temporary files anywhere under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Ported from hermes's atomic write tests.
func TestWriteFileAtomic(t *testing.T) {
	dir := realTempDir(t)
	target := filepath.Join(dir, "script.sh")
	mustWrite(t, target, "old\n")
	if err := os.Chmod(target, 0o751); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil, Options{})
	p := mustResolve(t, w, "script.sh")
	before := inode(t, target)

	info, err := w.WriteFile(p, []byte("new content\n"))
	if err != nil {
		t.Fatalf("WriteFile = %v", err)
	}
	got, _ := os.ReadFile(target)
	if string(got) != "new content\n" {
		t.Errorf("content = %q, want %q", got, "new content\n")
	}
	if inode(t, target) == before {
		t.Error("inode unchanged: the file was rewritten in place, not replaced")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751 kept", fi.Mode().Perm())
	}
	if info.Created || info.Bytes != len("new content\n") || string(info.Before) != "old\n" || string(info.After) != "new content\n" || info.DirsCreated != nil || info.ViaEditor {
		t.Errorf("WriteInfo = %+v, want an overwrite of 12 bytes with Before %q", info, "old\n")
	}
	if left := tempFiles(t, dir); left != nil {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteFileNew(t *testing.T) {
	dir := realTempDir(t)
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil, Options{})
	p := mustResolve(t, w, "a/b/c/new.txt")
	info, err := w.WriteFile(p, []byte("hi"))
	if err != nil {
		t.Fatalf("WriteFile = %v", err)
	}
	wantDirs := []string{filepath.Join(dir, "a", "b"), filepath.Join(dir, "a", "b", "c")}
	if !info.Created || !slices.Equal(info.DirsCreated, wantDirs) || info.Before != nil {
		t.Errorf("WriteInfo = %+v, want Created with DirsCreated %q", info, wantDirs)
	}
	fi, err := os.Stat(filepath.Join(dir, "a", "b", "c", "new.txt"))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file = %v, %v; want mode 0644", fi, err)
	}
	// Writing again creates no directories.
	info, err = w.WriteFile(p, []byte("again"))
	if err != nil || info.DirsCreated != nil || info.Created {
		t.Errorf("second WriteFile = %+v, %v; want no dirs created", info, err)
	}
}

func TestWriteFileConventions(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	for _, tc := range []struct {
		name, existing, content, want string
	}{
		{"crlf preserved", "a\r\nb\r\n", "a\nc\n", "a\r\nc\r\n"},
		{"bom preserved", bom + "a\n", "b\n", bom + "b\n"},
		{"bom not doubled", bom + "a\n", bom + "b\n", bom + "b\n"},
		{"plain", "a\n", "b\n", "b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			mustWrite(t, filepath.Join(dir, "f.txt"), tc.existing)
			w := openWS(t, dir, nil, Options{})
			if _, err := w.WriteFile(mustResolve(t, w, "f.txt"), []byte(tc.content)); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}

// Above the read limit, the conventions still come from the file's head,
// and Before is left out.
func TestWriteFileLargeExisting(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "big.txt"), "\xef\xbb\xbf"+strings.Repeat("line\r\n", 100))
	w := openWS(t, dir, nil, Options{MaxFileBytes: 64})
	info, err := w.WriteFile(mustResolve(t, w, "big.txt"), []byte("a\nb\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "big.txt")); string(got) != "\xef\xbb\xbfa\r\nb\r\n" {
		t.Errorf("file = %q, want BOM and CRLF kept", got)
	}
	if info.Before != nil || info.Created {
		t.Errorf("WriteInfo = %+v, want no Before for a file over the limit", info)
	}
}

// A failure at any step leaves the original intact and no temporary file.
func TestWriteFileFailureLeavesOriginal(t *testing.T) {
	for _, step := range []string{"write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := realTempDir(t)
			target := filepath.Join(dir, "keep.txt")
			mustWrite(t, target, "original\n")
			w := openWS(t, dir, nil, Options{})
			boom := errors.New("injected failure")
			w.failpoint = func(s string) error {
				if s == step {
					return boom
				}
				return nil
			}
			_, err := w.WriteFile(mustResolve(t, w, "keep.txt"), []byte("replacement\n"))
			if !errors.Is(err, boom) {
				t.Fatalf("WriteFile = %v, want the injected failure", err)
			}
			if got, _ := os.ReadFile(target); string(got) != "original\n" {
				t.Errorf("original = %q after failure, want %q", got, "original\n")
			}
			if left := tempFiles(t, dir); left != nil {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestWriteFileRefusals(t *testing.T) {
	dir := realTempDir(t)
	home := filepath.Join(dir, "home")
	mustWrite(t, filepath.Join(dir, "blocker"), "i am a file")
	if err := os.MkdirAll(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil, Options{Home: home})
	fifo := mustResolve(t, w, "blocker") // resolved as a file, then replaced below
	for _, tc := range []struct {
		path string
		want string
	}{
		{".", "is a directory"},
		{"adir", "is a directory"},
		{"blocker/child.txt", "is not a directory"},
		{"home/.ssh/id_rsa", "Write denied: '" + filepath.Join(home, ".ssh", "id_rsa") + "' is a protected system/credential file."},
	} {
		_, err := w.WriteFile(mustResolve(t, w, tc.path), []byte("x"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WriteFile(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := os.Remove(filepath.Join(dir, "blocker")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "fifo"), filepath.Join(dir, "blocker")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteFile(fifo, []byte("x")); !errors.Is(err, ErrSpecialFile) {
		t.Errorf("WriteFile over a FIFO = %v, want ErrSpecialFile", err)
	}
	if left := tempFiles(t, dir); left != nil {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestRemove(t *testing.T) {
	dir := realTempDir(t)
	home := filepath.Join(dir, "home")
	mustWrite(t, filepath.Join(dir, "gone.txt"), "x")
	mustWrite(t, filepath.Join(home, ".ssh", "id_rsa"), "key")
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil, Options{Home: home})
	if err := w.Remove(mustResolve(t, w, "gone.txt")); err != nil {
		t.Fatalf("Remove(gone.txt) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gone.txt still exists: %v", err)
	}
	for _, tc := range []struct{ path, want string }{
		{"gone.txt", "no such file"},
		{"d", "is a directory"},
		{".", "is a workspace root"},
		{"home/.ssh/id_rsa", "Delete denied: '"},
	} {
		if err := w.Remove(mustResolve(t, w, tc.path)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Remove(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "id_rsa")); err != nil {
		t.Errorf("denied delete removed the key: %v", err)
	}
}

func TestRename(t *testing.T) {
	dir := realTempDir(t)
	extra := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "a.txt"), "A")
	mustWrite(t, filepath.Join(dir, "b.txt"), "B")
	mustWrite(t, filepath.Join(dir, "c.sh"), "C")
	if err := os.Chmod(filepath.Join(dir, "c.sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, []string{extra}, Options{})

	info, err := w.Rename(mustResolve(t, w, "a.txt"), mustResolve(t, w, "moved/deep/a.txt"))
	if err != nil {
		t.Fatalf("Rename within root = %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "moved", "deep", "a.txt")); string(got) != "A" {
		t.Errorf("moved content = %q, want A", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("source still exists after Rename: %v", err)
	}
	if want := []string{filepath.Join(dir, "moved"), filepath.Join(dir, "moved", "deep")}; !slices.Equal(info.DirsCreated, want) {
		t.Errorf("DirsCreated = %q, want %q", info.DirsCreated, want)
	}

	if _, err := w.Rename(mustResolve(t, w, "b.txt"), mustResolve(t, w, "c.sh")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Rename onto an existing file = %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "c.sh")); string(got) != "C" {
		t.Errorf("destination clobbered: %q", got)
	}

	if _, err := w.Rename(mustResolve(t, w, "c.sh"), mustResolve(t, w, filepath.Join(extra, "bin", "c.sh"))); err != nil {
		t.Fatalf("Rename across roots = %v", err)
	}
	fi, err := os.Stat(filepath.Join(extra, "bin", "c.sh"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cross-root destination = %v, %v; want mode 0700", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.sh")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cross-root source still exists: %v", err)
	}
	if _, err := w.Rename(mustResolve(t, w, "missing"), mustResolve(t, w, "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Rename(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := w.Rename(mustResolve(t, w, "moved"), mustResolve(t, w, "m2")); err == nil || !strings.Contains(err.Error(), "only files can be moved") {
		t.Errorf("Rename(directory) = %v, want a refusal", err)
	}
}

func BenchmarkWriteFile1MB(b *testing.B) {
	dir := realTempDir(b)
	w := openWS(b, dir, nil, Options{})
	p, err := w.Resolve("bench.txt")
	if err != nil {
		b.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 1<<14)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := w.WriteFile(p, content); err != nil {
			b.Fatal(err)
		}
	}
}

// StripBOM returns b without one leading UTF-8 BOM.
func StripBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte(utf8BOM)) }
