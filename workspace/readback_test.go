package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// ReadBack reads what a Files.Write wrote from where it went: the disk for
// a disk write even when the editor can read (its buffer is stale), the
// editor for an editor write (the disk is stale), nothing for an editor
// that cannot read.
func TestFilesReadBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		canRead, canWrite bool
		want              string
		wantOK            bool
	}{
		{"no fs", false, false, "written\n", true},
		{"editor reads only", true, false, "written\n", true},
		{"editor writes only", false, true, "", false},
		{"editor reads and writes", true, true, "written\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			abs := filepath.Join(dir, "f.txt")
			mustWrite(t, abs, "old\n")
			w := openWS(t, dir, nil, Options{})
			ed := &fakeEditor{buffers: map[string]string{abs: "old\n"}}
			files := NewFiles(w, ed, tc.canRead, tc.canWrite)
			p, err := w.Resolve("f.txt")
			if err != nil {
				t.Fatal(err)
			}
			info, err := files.Write(t.Context(), p, []byte("written\n"))
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			if info.ViaEditor != tc.canWrite {
				t.Errorf("ViaEditor = %v, want %v", info.ViaEditor, tc.canWrite)
			}
			got, ok, err := files.ReadBack(t.Context(), info)
			if err != nil || ok != tc.wantOK || string(got) != tc.want {
				t.Errorf("ReadBack = %q, %v, %v; want %q, %v, nil", got, ok, err, tc.want, tc.wantOK)
			}
		})
	}
}

// A disk write read back after someone changed the disk reports the disk's
// content; an editor read-back that fails is an error, not the disk's text.
func TestFilesReadBackMismatchAndFailure(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	abs := filepath.Join(dir, "f.txt")
	mustWrite(t, abs, "old\n")
	w := openWS(t, dir, nil, Options{})
	ed := &fakeEditor{buffers: map[string]string{abs: "written\n"}}
	p, err := w.Resolve("f.txt")
	if err != nil {
		t.Fatal(err)
	}

	files := NewFiles(w, ed, true, false)
	info, err := files.Write(t.Context(), p, []byte("written\n"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, abs, "changed behind our back\n")
	if got, ok, err := files.ReadBack(t.Context(), info); err != nil || !ok || string(got) != "changed behind our back\n" {
		t.Errorf("ReadBack of a disk write = %q, %v, %v; want the disk's content", got, ok, err)
	}

	ed.readErr = errors.New("editor went away")
	files = NewFiles(w, ed, true, true)
	if got, _, err := files.ReadBack(t.Context(), WriteInfo{Path: p, ViaEditor: true}); err == nil {
		t.Errorf("ReadBack with a failing editor = %q, nil; want an error", got)
	}
	if err := os.Remove(abs); err != nil {
		t.Fatal(err)
	}
	if _, _, err := files.ReadBack(t.Context(), WriteInfo{Path: p}); err == nil {
		t.Errorf("ReadBack of a removed disk file: want an error")
	}
}
