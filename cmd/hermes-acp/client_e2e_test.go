package main_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeScript writes a model script that writes note.txt and then answers.
func writeScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.yaml")
	script := `replies:
  - expect: {role: user, contains: "write"}
    tool_calls:
      - {id: w1, name: write_file, arguments: {path: note.txt, content: "from the script\n"}}
  - expect: {role: tool}
    text: "wrote it"
  - expect: {role: user, contains: "second"}
    text: "second answer"
`
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClientSubcommand(t *testing.T) {
	t.Parallel()
	script := writeScript(t)
	agent := []string{"--", agentBin, "--model", "script:" + script}
	for _, tc := range []struct {
		name      string
		args      []string
		want      []string // substrings of stdout, in order
		wantFile  string   // content of note.txt afterwards ("" = absent)
		checkJSON bool
	}{
		{"allow writes through the client's fs", []string{"--prompt", "please write"}, []string{"❓ permission", "→ Allow edit", "● end_turn"}, "from the script\n", false},
		{"reject writes nothing", []string{"--approve", "reject", "--prompt", "please write"}, []string{"❓ permission", "→ Reject", "Edit approval denied", "● end_turn"}, "", false},
		{"no fs: the agent writes the disk", []string{"--no-fs", "--prompt", "please write"}, []string{"→ Allow edit", "● end_turn"}, "from the script\n", false},
		{"json prints every message", []string{"--json", "--prompt", "please write"}, []string{`"method":"initialize"`, `"method":"session/request_permission"`, `"stopReason":"end_turn"`}, "from the script\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			args := append(append([]string{"client", "--cwd", ws}, tc.args...), agent...)
			stdout, stderr, err := runBinary(t, 30*time.Second, "", baseEnv(t), args...)
			if err != nil {
				t.Fatalf("client: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			rest := stdout
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stdout lacks %q (in order)\n%s", w, stdout)
				}
				rest = rest[i+len(w):]
			}
			got, err := os.ReadFile(filepath.Join(ws, "note.txt"))
			switch {
			case tc.wantFile == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("note.txt exists (%q), want it absent", got)
			case tc.wantFile != "" && string(got) != tc.wantFile:
				t.Errorf("note.txt = %q, %v; want %q", got, err, tc.wantFile)
			}
			if tc.checkJSON {
				for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
					var m struct {
						From    string          `json:"from"`
						Message json.RawMessage `json:"message"`
					}
					if err := json.Unmarshal([]byte(line), &m); err != nil || (m.From != "client" && m.From != "agent") || len(m.Message) == 0 {
						t.Errorf("--json line %q is not {from, message}: %v", line, err)
					}
				}
			}
		})
	}
}

func TestClientPromptFileAndUsage(t *testing.T) {
	t.Parallel()
	script := writeScript(t)
	prompts := filepath.Join(t.TempDir(), "prompts.txt")
	if err := os.WriteFile(prompts, []byte("please write\n---\nthe second\nprompt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runBinary(t, 30*time.Second, "", baseEnv(t), "client", "--cwd", t.TempDir(), "--prompt-file", prompts, "--", agentBin, "--model", "script:"+script)
	if err != nil {
		t.Fatalf("client: %v\n%s\n%s", err, stdout, stderr)
	}
	if strings.Count(stdout, "● end_turn") != 2 || !strings.Contains(stdout, "> the second\n> prompt") || !strings.Contains(stdout, "second answer") {
		t.Errorf("two prompts from the file expected:\n%s", stdout)
	}
	for _, args := range [][]string{
		{"client"},
		{"client", "--approve", "maybe", "--", agentBin},
		{"client", "--prompt-file", "/does/not/exist", "--", agentBin},
	} {
		_, _, err := runBinary(t, 10*time.Second, "", baseEnv(t), args...)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("hermes-acp %v: %v, want exit status 2", args, err)
		}
	}
}
