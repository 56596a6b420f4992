package wsync

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// memTransport is a remote copy in memory: it records what was sent.
type memTransport struct {
	files   map[string]string
	deleted []string
}

func (m *memTransport) Delete(_ context.Context, rels []string) error {
	for _, r := range rels {
		delete(m.files, r)
	}
	m.deleted = append(m.deleted, rels...)
	return nil
}

func (m *memTransport) Extract(_ context.Context, r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(tr)
		m.files[h.Name[2:]] = string(b)
	}
}

func archive(t *testing.T, files map[string]string, pad int) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: 0o644}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(data))
	}
	tw.Close()
	buf.Write(make([]byte, pad))
	return buf.Bytes()
}

func TestPushSendsOnlyChangesAndUnpackReadsConcatenatedArchives(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(root, ".env"), []byte("SECRET"), 0o644)
	tree := NewTree(root, nil, "test sync")
	mt := &memTransport{files: map[string]string{}}
	st, err := tree.Push(context.Background(), mt)
	if err != nil || st.Sent != 2 || mt.files[".env"] != "" || mt.files["a.txt"] != "a" {
		t.Fatalf("first push: %+v %v, remote %v", st, err, mt.files)
	}
	if st, _ := tree.Push(context.Background(), mt); st.Sent != 0 {
		t.Errorf("a push with nothing changed sent %d files", st.Sent)
	}
	os.Remove(filepath.Join(root, "b.txt"))
	if st, _ := tree.Push(context.Background(), mt); st.Deleted != 1 || len(mt.deleted) != 1 || mt.deleted[0] != "b.txt" {
		t.Errorf("push after a deletion: %+v, deleted %v", st, mt.deleted)
	}

	// Two archives, the first padded as GNU tar pads, then a third; a
	// path outside the workspace and .env are refused.
	var stream bytes.Buffer
	stream.Write(archive(t, map[string]string{"./new.txt": "new"}, 9216))
	stream.Write(archive(t, map[string]string{"./../escape.txt": "x", "./.env": "REMOTE"}, 0))
	stream.Write(archive(t, map[string]string{"./a.txt": "changed remotely"}, 0))
	st, err = tree.Unpack(&stream)
	if err != nil || st.Back != 2 {
		t.Fatalf("unpack: %+v %v", st, err)
	}
	for name, want := range map[string]string{"new.txt": "new", "a.txt": "changed remotely", ".env": "SECRET"} {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escape.txt")); err == nil {
		t.Error("a path outside the workspace was written")
	}
}

func TestRemoveGoneKeepsFilesChangedHere(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "gone.txt"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(root, "edited.txt"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(root, "stays.txt"), []byte("1"), 0o644)
	tree := NewTree(root, nil, "test sync")
	if _, err := tree.Push(context.Background(), &memTransport{files: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "edited.txt"), []byte("changed here"), 0o644)
	st, err := tree.RemoveGone(map[string]bool{"stays.txt": true}, tree.Gen())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "gone.txt")); err == nil || st.Removed != 1 {
		t.Errorf("gone.txt, deleted remotely, is still here (%+v)", st)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "edited.txt")); string(b) != "changed here" || len(st.Kept) != 1 {
		t.Errorf("edited.txt = %q, kept %v: a file changed here was deleted", b, st.Kept)
	}
	if _, err := os.Stat(filepath.Join(root, "stays.txt")); err != nil {
		t.Error("stays.txt was deleted")
	}
	// The kept file is sent again so the remote copy has it.
	mt := &memTransport{files: map[string]string{}}
	if _, err := tree.Push(context.Background(), mt); err != nil || mt.files["edited.txt"] != "changed here" {
		t.Errorf("the kept file was not sent again: %v %v", mt.files, err)
	}
}

// A file another command's push sent while a command ran may have reached
// the remote copy after that command listed it: the command's pull must
// not take its absence for a deletion.
func TestRemoveGoneLeavesFilesPushedAfterTheCommandStarted(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("1"), 0o644)
	tree := NewTree(root, nil, "test sync")
	mt := &memTransport{files: map[string]string{}}
	if _, err := tree.Push(context.Background(), mt); err != nil {
		t.Fatal(err)
	}
	since := tree.Gen() // a command starts on this copy
	// Meanwhile the user writes a file and another command's push sends it.
	os.WriteFile(filepath.Join(root, "fresh.txt"), []byte("new work"), 0o644)
	if _, err := tree.Push(context.Background(), mt); err != nil {
		t.Fatal(err)
	}
	if tree.Gen() <= since {
		t.Fatalf("a push that sent a file left the generation at %d", tree.Gen())
	}
	// The first command listed the copy before fresh.txt arrived, and it
	// deleted old.txt.
	st, err := tree.RemoveGone(map[string]bool{}, since)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "fresh.txt")); err != nil || string(b) != "new work" {
		t.Errorf("fresh.txt = %q, %v: the user's new file was deleted", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "old.txt")); err == nil || st.Removed != 1 {
		t.Errorf("old.txt, deleted by the command, is still here (%+v)", st)
	}
}
