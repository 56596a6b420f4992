package main_test

// The official ACP TypeScript SDK plays an editor while the scripted model
// runs execute_code scripts (conformance/execute_code.mjs): a script reads
// three files through hermes_tools and has its patch rejected, a script's
// escapes are refused, a loop is stopped at the timeout and on cancel, a
// hostile script is asked and denied, dont_ask still confines, and a
// script's network is granted only by the user's answer. The script checks
// the SDK's view; this test checks the wire, the files a script must not
// have written, and that no process of the loops is left. As this user
// (root in CI) and as user 65534 when the test runs as root.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTypeScriptSDKExecuteCode(t *testing.T) {
	t.Parallel()
	t.Run("as this user", func(t *testing.T) {
		t.Parallel()
		// $HOME outside the temporary folders, which the sandbox lets
		// scripts write.
		dir, err := os.MkdirTemp("/var/tmp", "hermes-execute-code-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		runExecuteCode(t, dir, sdkRun{})
	})
	t.Run("as user 65534", func(t *testing.T) {
		t.Parallel()
		dir, bin, attr := asNobody(t)
		runExecuteCode(t, dir, sdkRun{agent: bin, attr: attr})
	})
}

// runExecuteCode runs execute_code.mjs with its folders (workspace, homes,
// temporary folder, transcript) made in dir and owned by the user r.attr
// switches to.
func runExecuteCode(t *testing.T, dir string, r sdkRun) {
	t.Helper()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if r.attr != nil {
			if err := os.Chown(p, int(r.attr.Credential.Uid), int(r.attr.Credential.Gid)); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	home, userHome := mk("hermes"), mk("home")
	config := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(config, []byte("code_execution:\n  timeout: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r.attr != nil {
		if err := os.Chown(config, int(r.attr.Credential.Uid), int(r.attr.Credential.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	r.script = filepath.Join("conformance", "execute_code.mjs")
	r.workdir = mk("work")
	r.transcript = filepath.Join(mk("transcript"), "transcript.jsonl")
	r.exec(t, 120*time.Second, "HERMES_HOME="+home, "HOME="+userHome, "TMPDIR="+mk("tmp"))
	for _, name := range []string{"escape.txt", "escape-dontask.txt", "escape-dontask-shell.txt", "escape-acceptedits.txt"} {
		if _, err := os.Stat(filepath.Join(userHome, name)); err == nil {
			t.Errorf("a script wrote %s into $HOME", name)
		}
	}
	for _, name := range []string{"hostile-system", "hostile-subprocess", "hidden-ran"} {
		if _, err := os.Stat(filepath.Join(r.workdir, "ws", name)); err == nil {
			t.Errorf("%s exists: a denied script ran", name)
		}
	}

	conns := r.transcriptOf(t) // every agent line validates against the ACP schema
	lines := conns["execute_code"]
	if len(lines) == 0 {
		t.Fatal("no connection in the transcript")
	}
	if stops := promptStops(lines); !equalStrings(stops, []string{"end_turn", "end_turn", "end_turn", "cancelled", "end_turn", "end_turn", "end_turn", "end_turn", "end_turn", "end_turn"}) {
		t.Errorf("prompts ended %v", stops)
	}
	for _, name := range []string{"pgid-timeout", "pgid-cancel"} {
		b, err := os.ReadFile(filepath.Join(r.workdir, "ws", name))
		if err != nil {
			t.Errorf("%s: %v (the script did not run)", name, err)
			continue
		}
		// The script's sleep has a duration of its own; a process id
		// written inside the sandbox would be of its namespace.
		marker := strings.TrimSpace(string(b))
		if !strings.HasPrefix(marker, "1000.") {
			t.Fatalf("%s: %q is not the script's marker", name, marker)
		}
		if alive := processesWith(t, "sleep\x00"+marker); len(alive) > 0 {
			t.Errorf("%s: processes %v of the script are still running", name, alive)
		}
	}
}

// processesWith lists the live (not zombie) processes whose command line
// (its arguments joined by NUL bytes) holds needle.
func processesWith(t *testing.T, needle string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("no /proc: %v", err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(cmdline), needle) && !strings.Contains(string(stat), ") Z ") {
			out = append(out, pid)
		}
	}
	return out
}
