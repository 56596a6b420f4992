package main_test

// Checkpoints and rewind (issue 29): the official ACP TypeScript SDK plays
// an editor while the script model changes files with patch, write_file and
// a terminal command; /undo and the _hermes/rewind/* extension put them
// back (conformance/rewind.mjs).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKRewind(t *testing.T) {
	t.Parallel()
	r := sdkRun{
		script:     filepath.Join("conformance", "rewind.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 120*time.Second)

	// Every agent message validates against the ACP schema.
	if conns := r.transcriptOf(t); len(conns["rewind"]) == 0 {
		t.Error("transcript: no messages")
	}
	// Checked here too, independently of the script: the bytes on disk
	// after the undo and the apply.
	ws := filepath.Join(r.workdir, "ws")
	for name, want := range map[string]string{
		"a.go":     "package a\n\nfunc A() int { return 1 }\n",
		"c.txt":    "c stays until the command removes it\n",
		"d.txt":    "d line 1\nd line 2\n",
		"bin.dat":  "\x89PNG\r\n\x1a\n\x00\x00\x00\r\xff\xfe\x00\x01",
		"crlf.txt": "one\r\ntwo\r\nlf-only\nfour\r\n",
		"u.txt":    "the user's notes\nagent\nand the user's edit after the turn\n",
	} {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt: %v, want it removed", err)
	}
	// The shadow repository is outside the workspace: nothing of it there.
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".hermes") || e.Name() == "HERMES_WORKDIR" {
			t.Errorf("the workspace holds %s", e.Name())
		}
	}
}
