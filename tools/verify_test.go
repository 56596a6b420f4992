package tools

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// newSplitEnv returns an edit env whose client has only some of the fs
// capabilities: ed serves what canRead and canWrite allow, the disk the
// rest.
func newSplitEnv(t *testing.T, ed *editEditor, canRead, canWrite bool) *editEnv {
	t.Helper()
	env := newEditEnv(t, editEnvOptions{})
	env.Files = workspace.NewFiles(env.Workspace, ed, canRead, canWrite)
	return env
}

// A client that can read but not write: the write goes to the disk while
// the editor still shows its old buffer (an editor reloads a changed file
// later, if at all). Verification reads the disk, so the edit succeeds.
func TestPatchVerifyReadOnlyEditorReadsDisk(t *testing.T) {
	t.Parallel()
	ed := newEditEditor(nil)
	env := newSplitEnv(t, ed, true, false)
	editWriteTree(t, env.root, map[string]string{"f.txt": "one\ntwo\nthree\n", "g.txt": "alpha\nbeta\n"})
	ed.buffers[env.abs("f.txt")] = "one\ntwo\nthree\n" // open in the editor, not reloaded after writes
	ed.buffers[env.abs("g.txt")] = "alpha\nbeta\n"

	got := env.run(t, "patch", map[string]any{"path": "f.txt", "old_string": "two", "new_string": "2"})
	if got["success"] != true || got["error"] != nil {
		t.Fatalf("patch (replace) = %s, want success", editJSON(got))
	}
	got = env.run(t, "patch", map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Update File: g.txt\n alpha\n-beta\n+gamma\n*** End Patch"})
	if got["success"] != true || got["error"] != nil {
		t.Fatalf("patch (V4A) = %s, want success", editJSON(got))
	}
	got = env.run(t, "write_file", map[string]any{"path": "h.txt", "content": "new file\n"})
	if got["error"] != nil {
		t.Fatalf("write_file = %s, want success", editJSON(got))
	}
	for rel, want := range map[string]string{"f.txt": "one\n2\nthree\n", "g.txt": "alpha\ngamma\n", "h.txt": "new file\n"} {
		if b, err := os.ReadFile(env.abs(rel)); err != nil || string(b) != want {
			t.Errorf("disk %s = %q, %v; want %q", rel, b, err, want)
		}
	}
	if len(ed.writes) != 0 {
		t.Errorf("the editor was asked to write %v, but the client cannot write", ed.writes)
	}
}

// A client that can write but not read: the editor keeps the edit in an
// unsaved buffer and the disk keeps the old text. There is nothing to read
// the edit back from, so no false verification failure is reported.
func TestPatchVerifyWriteOnlyEditor(t *testing.T) {
	t.Parallel()
	ed := newEditEditor(nil)
	env := newSplitEnv(t, ed, false, true)
	editWriteTree(t, env.root, map[string]string{"f.txt": "one\ntwo\nthree\n"})

	got := env.run(t, "patch", map[string]any{"path": "f.txt", "old_string": "two", "new_string": "2"})
	if got["success"] != true || got["error"] != nil {
		t.Fatalf("patch = %s, want success", editJSON(got))
	}
	if buf, ok := ed.buffer(env.abs("f.txt")); !ok || buf != "one\n2\nthree\n" {
		t.Errorf("editor buffer = %q (%v), want the patched text", buf, ok)
	}
	if b, _ := os.ReadFile(env.abs("f.txt")); string(b) != "one\ntwo\nthree\n" {
		t.Errorf("disk = %q, want it untouched (the editor owns the write)", b)
	}
}

// A client that reads and writes: the edit lives in the editor's buffer and
// the disk is stale; verification reads the editor, not the disk.
func TestPatchVerifyFullEditorReadsEditor(t *testing.T) {
	t.Parallel()
	ed := newEditEditor(nil)
	env := newSplitEnv(t, ed, true, true)
	editWriteTree(t, env.root, map[string]string{"f.txt": "one\ntwo\nthree\n"})

	got := env.run(t, "patch", map[string]any{"path": "f.txt", "old_string": "two", "new_string": "2"})
	if got["success"] != true {
		t.Fatalf("patch = %s, want success", editJSON(got))
	}
	if b, _ := os.ReadFile(env.abs("f.txt")); string(b) != "one\ntwo\nthree\n" {
		t.Errorf("disk = %q, want it untouched", b)
	}
}

// patchVerify still reports a real mismatch at the place the write went, and
// ignores the other place.
func TestPatchVerifyMismatch(t *testing.T) {
	t.Parallel()
	const intended = "one\n2\nthree\n"
	for _, tc := range []struct {
		name              string
		canRead, canWrite bool
		viaEditor         bool
		disk, buffer      string
		want              string // "" means verified
	}{
		{"disk write, disk changed, editor shows the intent", true, false, false, "one\nthree\n", intended, "(wrote 12 chars, read back 10 chars"},
		{"disk write, disk right, editor stale", true, false, false, intended, "one\ntwo\nthree\n", ""},
		{"disk write without editor, disk changed", false, false, false, "x\n", "", "(wrote 12 chars, read back 2 chars"},
		{"editor write, buffer changed, disk shows the intent", true, true, true, intended, "one\n", "(wrote 12 chars, read back 4 chars"},
		{"editor write, buffer right, disk stale", true, true, true, "one\ntwo\nthree\n", intended, ""},
		{"editor write, editor cannot read", false, true, true, "one\ntwo\nthree\n", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ed := newEditEditor(nil)
			env := newSplitEnv(t, ed, tc.canRead, tc.canWrite)
			editWriteTree(t, env.root, map[string]string{"f.txt": tc.disk})
			if tc.buffer != "" {
				ed.buffers[env.abs("f.txt")] = tc.buffer
			}
			p := env.target(t, "f.txt")
			got := patchVerify(t.Context(), env.services(), workspace.WriteInfo{Path: p, ViaEditor: tc.viaEditor}, intended)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("patchVerify = %q, want verified", got)
			case tc.want != "" && (!strings.Contains(got, tc.want) || !strings.HasPrefix(got, "Post-write verification failed for "+p.Abs())):
				t.Errorf("patchVerify = %q, want a verification failure containing %q", got, tc.want)
			}
		})
	}
}

// An editor that wrote but then fails to read back is reported as such,
// not compared with the disk it may not have saved to.
func TestPatchVerifyEditorReadBackFails(t *testing.T) {
	t.Parallel()
	ed := &failingReadEditor{editEditor: newEditEditor(nil)}
	env := newEditEnv(t, editEnvOptions{})
	env.Files = workspace.NewFiles(env.Workspace, ed, true, true)
	editWriteTree(t, env.root, map[string]string{"f.txt": "one\n2\nthree\n"})
	p := env.target(t, "f.txt")
	got := patchVerify(t.Context(), env.services(), workspace.WriteInfo{Path: p, ViaEditor: true}, "one\n2\nthree\n")
	if want := "Post-write verification failed: could not re-read " + p.Abs(); got != want {
		t.Errorf("patchVerify = %q, want %q", got, want)
	}
}

// failingReadEditor writes like editEditor and fails every read.
type failingReadEditor struct{ *editEditor }

func (failingReadEditor) ReadTextFile(_ context.Context, _ string) (string, error) {
	return "", errors.New("editor went away")
}
