package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeEditor serves buffers from memory, as an editor with unsaved changes
// would, and records the calls it receives.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string // abs path → text
	readErr error             // returned for any read when set
	writes  []string          // abs paths written
	reads   []string
}

func (e *fakeEditor) ReadTextFile(ctx context.Context, abs string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads = append(e.reads, abs)
	if e.readErr != nil {
		return "", e.readErr
	}
	text, ok := e.buffers[abs]
	if !ok {
		// What the agent's adapter does with ACP's "resource not found".
		return "", fmt.Errorf("fs/read_text_file: resource not found (-32002): %w", fs.ErrNotExist)
	}
	return text, nil
}

func (e *fakeEditor) WriteTextFile(ctx context.Context, abs, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writes = append(e.writes, abs)
	e.buffers[abs] = content
	return nil
}

func TestFilesReadThroughEditor(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "main.go"), "on disk\n")
	mustWrite(t, filepath.Join(dir, "disk-only.go"), "disk only\n")
	mustWrite(t, filepath.Join(dir, "big.txt"), strings.Repeat("x", 100))
	w := openWS(t, dir, nil, Options{MaxFileBytes: 64})
	ed := &fakeEditor{buffers: map[string]string{
		filepath.Join(dir, "main.go"):     "unsaved buffer\n",
		filepath.Join(dir, "untitled.go"): "new, never saved\n",
		filepath.Join(dir, "big.txt"):     "never asked",
	}}
	files := NewFiles(w, ed, true, true)
	ctx := t.Context()

	for _, tc := range []struct {
		path    string
		want    string
		wantErr error
	}{
		{"main.go", "unsaved buffer\n", nil},
		{"untitled.go", "new, never saved\n", nil},
		{"disk-only.go", "", ErrEditorRefused}, // editor says not found, disk has it: neither missing nor read from disk
		{"missing.go", "", fs.ErrNotExist},
		{"big.txt", "", ErrTooLarge},
	} {
		got, err := files.Read(ctx, mustResolve(t, w, tc.path))
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Read(%q) = %q, %v; want %v", tc.path, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("Read(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	if _, err := files.Read(ctx, mustResolve(t, w, "disk-only.go")); errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(disk-only.go) = %v: a file on disk reported missing (a write would take it for new)", err)
	}
	if strings.Contains(strings.Join(ed.reads, "|"), "big.txt") {
		t.Errorf("the editor was asked for a file over the limit: %v", ed.reads)
	}
}

func TestFilesReadEditorFailure(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "a.txt"), "disk\n")
	w := openWS(t, dir, nil, Options{})
	ed := &fakeEditor{buffers: map[string]string{}, readErr: errors.New("connection reset")}
	files := NewFiles(w, ed, true, false)

	got, err := files.Read(t.Context(), mustResolve(t, w, "a.txt"))
	if !errors.Is(err, ErrEditorRefused) || !strings.Contains(fmt.Sprint(err), "connection reset") || got != nil {
		t.Errorf("Read with a failing editor = %q, %v; want ErrEditorRefused with the editor's reason, and not the disk content", got, err)
	}
	if _, err := files.Read(t.Context(), mustResolve(t, w, "nope.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(missing) with a failing editor = %v, want fs.ErrNotExist", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ed.readErr = context.Canceled
	if _, err := files.Read(ctx, mustResolve(t, w, "a.txt")); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context = %v, want context.Canceled (no disk fallback)", err)
	}
}

func TestFilesReadFromDisk(t *testing.T) {
	dir := realTempDir(t)
	mustWrite(t, filepath.Join(dir, "a.txt"), "disk\n")
	w := openWS(t, dir, nil, Options{})
	ed := &fakeEditor{buffers: map[string]string{filepath.Join(dir, "a.txt"): "buffer\n"}}
	for _, files := range []*Files{NewFiles(w, ed, false, true), NewFiles(w, nil, true, true)} {
		got, err := files.Read(t.Context(), mustResolve(t, w, "a.txt"))
		if err != nil || string(got) != "disk\n" {
			t.Errorf("Read without the read capability = %q, %v; want the disk content", got, err)
		}
	}
	if len(ed.reads) != 0 {
		t.Errorf("editor asked %v without the capability", ed.reads)
	}
}

func TestFilesWriteThroughEditor(t *testing.T) {
	dir := realTempDir(t)
	crlf := filepath.Join(dir, "win.txt")
	mustWrite(t, crlf, "disk\r\n")
	w := openWS(t, dir, nil, Options{})
	ed := &fakeEditor{buffers: map[string]string{crlf: "a\r\nb\r\n"}}
	files := NewFiles(w, ed, true, true)

	info, err := files.Write(t.Context(), mustResolve(t, w, "win.txt"), []byte("x\ny\n"))
	if err != nil {
		t.Fatalf("Write = %v", err)
	}
	if got := ed.buffers[crlf]; got != "x\r\ny\r\n" {
		t.Errorf("editor received %q, want CRLF-normalised %q", got, "x\r\ny\r\n")
	}
	if disk, _ := os.ReadFile(crlf); string(disk) != "disk\r\n" {
		t.Errorf("disk = %q, want untouched: the editor writes, not us", disk)
	}
	if !info.ViaEditor || string(info.Before) != "a\r\nb\r\n" || string(info.After) != "x\r\ny\r\n" || info.Created {
		t.Errorf("WriteInfo = %+v, want ViaEditor with the buffer as Before", info)
	}

	info, err = files.Write(t.Context(), mustResolve(t, w, "new/dir/file.go"), []byte("package x\n"))
	if err != nil {
		t.Fatalf("Write(new file) = %v", err)
	}
	if !info.Created || len(info.DirsCreated) != 2 {
		t.Errorf("WriteInfo = %+v, want Created with two directories", info)
	}
	if fi, err := os.Stat(filepath.Join(dir, "new", "dir")); err != nil || !fi.IsDir() {
		t.Errorf("parent directory not created for the editor: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "dir", "file.go")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file itself was written to disk: %v", err)
	}

	if _, err := files.Write(t.Context(), mustResolve(t, w, "."), []byte("x")); err == nil {
		t.Error("Write(root) succeeded, want an error")
	}
}

func TestFilesWriteToDisk(t *testing.T) {
	dir := realTempDir(t)
	bom := filepath.Join(dir, "bom.txt")
	mustWrite(t, bom, "\xef\xbb\xbfold\n")
	w := openWS(t, dir, nil, Options{})
	ed := &fakeEditor{buffers: map[string]string{}}
	files := NewFiles(w, ed, true, false)
	info, err := files.Write(t.Context(), mustResolve(t, w, "bom.txt"), []byte("new\n"))
	if err != nil {
		t.Fatalf("Write = %v", err)
	}
	if got, _ := os.ReadFile(bom); string(got) != "\xef\xbb\xbfnew\n" {
		t.Errorf("disk = %q, want the BOM kept", got)
	}
	if info.ViaEditor || len(ed.writes) != 0 {
		t.Errorf("WriteInfo.ViaEditor = %v, editor writes %v; want a disk write", info.ViaEditor, ed.writes)
	}
}

func TestFilesWriteDenied(t *testing.T) {
	home := realTempDir(t)
	w := openWS(t, home, nil, Options{Home: home})
	ed := &fakeEditor{buffers: map[string]string{}}
	for _, canWrite := range []bool{true, false} {
		files := NewFiles(w, ed, true, canWrite)
		_, err := files.Write(t.Context(), mustResolve(t, w, "~/.aws/credentials"), []byte("x"))
		if !errors.Is(err, ErrWriteDenied) {
			t.Errorf("Write(~/.aws/credentials) canWrite=%v = %v, want ErrWriteDenied", canWrite, err)
		}
	}
	if len(ed.writes) != 0 {
		t.Errorf("denied writes reached the editor: %v", ed.writes)
	}
}
