package main_test

// An editor on the official ACP TypeScript SDK that refuses fs/*,
// terminal/* and a permission request by throwing in its handlers
// (conformance/client_errors.mjs): the reason the SDK puts in error.data
// reaches the scripted model and the chat, and the refused read is not
// answered from the disk.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKClientErrors(t *testing.T) {
	t.Parallel()
	r := sdkRun{
		script:     filepath.Join("conformance", "client_errors.mjs"),
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
	r.exec(t, 90*time.Second)

	// Checked here too: the editor's refusals really were JSON-RPC errors
	// carrying the reason only in data, so the chat cannot have learnt it
	// from the message.
	refusals := 0
	for _, l := range r.transcriptOf(t)["errors"] {
		if l.From != "client" || l.msg.Error == nil {
			continue
		}
		refusals++
		if l.msg.Error.Code != -32603 || l.msg.Error.Message != "Internal error" || !strings.Contains(string(l.msg.Error.Data), "details") {
			t.Errorf("the editor answered %+v, want -32603 \"Internal error\" with data.details", *l.msg.Error)
		}
	}
	if refusals != 4 {
		t.Errorf("the editor refused %d requests, want 4 (read, permission, write, terminal/create)", refusals)
	}
	if b, err := os.ReadFile(filepath.Join(r.workdir, "ws", "notes.txt")); err != nil || !strings.HasPrefix(string(b), "DISK-ONLY-TEXT") {
		t.Errorf("notes.txt = %q, %v; want it untouched", b, err)
	}
}
