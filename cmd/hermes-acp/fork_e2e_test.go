package main_test

// The official ACP TypeScript SDK forks sessions of the real binary with the
// unstable session/fork (conformance/fork.mjs, #28 item 6): whole, at the
// second prompt and at the second answer, over three processes sharing one
// HERMES_HOME, with the script model.

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// forkScript answers "one", "two" and "three" by position: the third reply
// also answers "four", the next prompt of a fork that kept two turns.
const forkScript = `replies:
  - expect: {role: user, contains: "one"}
    text: "first answer"
  - expect: {role: user, contains: "two"}
    text: "second answer"
  - expect: {role: user, matches: "^(three|four)$"}
    text: "third answer"
`

func TestTypeScriptSDKFork(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "fork.yaml")
	if err := os.WriteFile(script, []byte(forkScript), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sdkRun{script: filepath.Join("conformance", "fork.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 90*time.Second, "HERMES_MODEL=script:"+script)
	conns := r.transcriptOf(t) // every agent line validates against the schema (session/fork against the unstable one)
	for _, c := range []string{"process1", "process2", "process3"} {
		if len(conns[c]) == 0 {
			t.Errorf("no %s connection in the transcript", c)
		}
	}
}
