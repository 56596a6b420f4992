package main_test

// The official ACP TypeScript SDK plays an editor while a hostile scripted
// model edits binary, Latin-1 and CRLF files (conformance/encoding.mjs),
// once with a client without fs (the agent's disk path) and once with an
// editor that serves the files decoded as UTF-8.

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTypeScriptSDKEncoding(t *testing.T) {
	t.Parallel()
	r := sdkRun{
		script:     filepath.Join("conformance", "encoding.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 90*time.Second)

	// Every agent message validates against the ACP schema.
	conns := r.transcriptOf(t)
	for _, c := range []string{"disk", "fs"} {
		if len(conns[c]) == 0 {
			t.Errorf("transcript: no messages on connection %s", c)
		}
	}

	// Checked here too, independently of the script: the bytes on disk.
	png := "\x89PNG\r\n\x1a\n"
	latin1 := "caf\xe9 cr\xe8me br\xfbl\xe9e\nStra\xdfe \xfcber\nfin\n"
	for _, d := range []struct {
		path, want string
		prefix     bool
	}{
		{"disk-ws/logo.png", png, true},
		{"disk-ws/blob", string(make([]byte, 40)) + "\nMARKER\n", true},
		{"disk-ws/latin1.txt", latin1 + "added line\n", false},
		{"disk-ws/crlf.txt", "one\r\ntwo\r\nadded\r\nlf-only\nv4a line\r\nfour\r\n", false},
		{"fs-ws/logo.png", png, true},
		{"fs-ws/latin1.txt", latin1, false},
		{"fs-ws/crlf.txt", "one\r\ntwo\r\nlf-only\nfour\r\n", false},
	} {
		b, err := os.ReadFile(filepath.Join(r.workdir, d.path))
		got := string(b)
		if d.prefix && len(got) > len(d.want) {
			got = got[:len(d.want)]
		}
		if err != nil || got != d.want {
			t.Errorf("%s = %q, %v; want %q", d.path, got, err, d.want)
		}
	}
}
