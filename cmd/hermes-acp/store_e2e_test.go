package main_test

// The official ACP TypeScript SDK plays an editor with two windows on one
// thread (two hermes-acp processes, one HERMES_HOME) and an editor whose
// session database is damaged (conformance/store.mjs).

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

func TestTypeScriptSDKStore(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: []string{"answer to: ", r.Last().Content}}
	})
	damaged := t.TempDir()
	junk := []byte("SQLite format 2\x00 but this is not one: the user's disk had a bad day\n")
	db := filepath.Join(damaged, "sessions.db")
	if err := os.WriteFile(db, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(damaged, "config.yaml"), []byte("approvals:\n  timeout: \"abc\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sdkRun{script: filepath.Join("conformance", "store.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 90*time.Second, append(modelEnv(srv), "STORE_DAMAGED_HOME="+damaged)...)
	conns := r.transcriptOf(t) // every agent line validates against the schema
	for _, c := range []string{"window1", "window2", "window3", "damaged", "damaged-notices"} {
		if len(conns[c]) == 0 {
			t.Errorf("no %s connection in the transcript", c)
		}
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, junk) {
		t.Errorf("the damaged sessions.db changed: %q, %v", after, err)
	}
}
