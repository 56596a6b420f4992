//go:build linux

package terminal

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorCommand: the command line of an editor terminal carries a
// ticket and the command as the editor shows it, nothing of the policy; a
// client that runs it as a vector and one that joins it with spaces and
// runs it with sh -c get the same output from the same sandboxed command,
// whose part after ';' is as confined as the rest; a ticket runs once.
func TestEditorCommand(t *testing.T) {
	t.Parallel()
	b := newNSBox(t, nil)
	escape := filepath.Join(b.sibling, "escaped")
	cmd := `echo "it's $((6*7))"; printf 'a\tb\n'; touch ` + escape + `; echo "exit $?" >&2`
	run := func(name string, joined bool) string {
		t.Helper()
		argv, release, err := b.l.EditorArgv(Spec{Command: cmd, Dir: b.root})
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if strings.Contains(strings.Join(argv, " "), b.root) || len(argv) != 4 || argv[3] != ShellQuote(cmd) {
			t.Errorf("%s: argv = %q, want the helper, a ticket and the quoted command", name, argv)
		}
		var c *exec.Cmd
		if joined {
			c = exec.Command("sh", "-c", strings.Join(argv, " "))
		} else {
			c = exec.Command(argv[0], argv[1:]...)
		}
		c.Dir = b.root
		c.Env = []string{"OPENAI_API_KEY=from-the-editor"}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Errorf("%s client: %v\n%s", name, err, out)
		}
		// The same ticket does not run twice.
		again := exec.Command(argv[0], argv[1:]...)
		if out, err := again.CombinedOutput(); err == nil || !strings.Contains(string(out), "unknown or used ticket") {
			t.Errorf("%s: the ticket ran again: %v %s", name, err, out)
		}
		return string(out)
	}
	vector, joined := run("vector", false), run("joined", true)
	if vector != joined {
		t.Errorf("outputs differ:\nvector %q\njoined %q", vector, joined)
	}
	if !strings.HasPrefix(vector, "it's 42\na\tb\n") || !strings.Contains(vector, "Read-only file system") || !strings.Contains(vector, "exit 1") {
		t.Errorf("output = %q, want the command's, with the touch refused", vector)
	}
	if _, err := os.Stat(escape); err == nil {
		t.Errorf("the part after ';' wrote outside the sandbox")
	}

	// A line whose shown command was altered is refused.
	argv, release, err := b.l.EditorArgv(Spec{Command: "echo safe", Dir: b.root})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	out, err := exec.Command(argv[0], argv[1], argv[2], "rm -rf ~").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "does not match") {
		t.Errorf("altered command: %v %s", err, out)
	}
	// The environment is the agent's, built: not the editor's.
	argv, release, err = b.l.EditorArgv(Spec{Command: "env", Dir: b.root})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = []string{"OPENAI_API_KEY=from-the-editor", "EDITOR_ONLY=1"}
	out, _ = c.CombinedOutput()
	if strings.Contains(string(out), "from-the-editor") || strings.Contains(string(out), "EDITOR_ONLY") || !strings.Contains(string(out), "KEEP_ME=1") {
		t.Errorf("environment of an editor terminal = %q", out)
	}
}
