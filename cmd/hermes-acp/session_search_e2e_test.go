package main_test

// The official ACP TypeScript SDK plays two editors on one $HERMES_HOME
// (two hermes-acp processes, one after the other): the second one's model
// finds a phrase of the first one's session with session_search
// (conformance/session_search.mjs).

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

func TestTypeScriptSDKSessionSearch(t *testing.T) {
	t.Parallel()
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		switch {
		case last.Role == "tool":
			return modeltest.Turn{Text: []string{"search said: ", last.Content}}
		case strings.Contains(last.Content, "[search]"):
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_search", Name: "session_search", Arguments: `{"query":"zanzibar migration"}`}}}
		}
		return modeltest.Turn{Text: []string{"answer to: ", last.Content}}
	})
	r := sdkRun{script: filepath.Join("conformance", "session_search.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 90*time.Second, append(modelEnv(srv), "HERMES_HOME="+t.TempDir())...)
	conns := r.transcriptOf(t) // every agent line validates against the schema
	for _, c := range []string{"first", "second"} {
		if len(conns[c]) == 0 {
			t.Errorf("no %s connection in the transcript", c)
		}
	}
}
