package main_test

// The official ACP TypeScript SDK plays the editor of conformance/ssh.mjs
// while the model runs commands with terminal.backend: ssh (issue 18),
// against a real sshd this test starts on a loopback port (Debian's
// openssh-server, terminal/ssh/sshdtest) with a generated host key and user
// key. The "remote" host is this machine: the test and the script check
// the remote folder on disk and the remote processes in /proc.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
	"github.com/hermes-acp/hermes-acp/terminal/ssh/sshdtest"
)

// sshPromptStep matches the prompts of ssh.mjs: "[ID] {terminal
// arguments}" or "[ID] TOOL {arguments}".
var sshPromptStep = regexp.MustCompile(`^\[([a-zA-Z0-9]+)\] (?:([a-z_]+) )?(\{.*\})$`)

// sshModel calls the prompt's tool (terminal unless named) with its
// arguments, then repeats the result to the editor. The agent's own
// notes (a background process's exit) come as user messages too: the
// prompt is the last user message that is one.
func sshModel(t *testing.T) func(modeltest.Request) modeltest.Turn {
	return func(r modeltest.Request) modeltest.Turn {
		last := -1
		var m []string
		for i, msg := range r.Messages {
			if msg.Role != "user" {
				continue
			}
			if sm := sshPromptStep.FindStringSubmatch(msg.Content); sm != nil {
				last, m = i, sm
			} else if !strings.HasPrefix(msg.Content, "[Notification from the agent") && !strings.HasPrefix(msg.Content, "[The user rewound the workspace") {
				t.Errorf("unexpected prompt %q", msg.Content)
			}
		}
		if last < 0 {
			t.Errorf("model request without a prompt")
			return text("no prompt")
		}
		for _, msg := range r.Messages[last+1:] {
			if msg.Role == "tool" {
				return text(m[1] + " done; the tool said: " + msg.Content)
			}
		}
		tool := m[2]
		if tool == "" {
			tool = "terminal"
		}
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_" + m[1], Name: tool, Arguments: m[3]}}}
	}
}

// sshHome writes a $HERMES_HOME whose config.yaml runs commands on srv
// in remote, checking host keys against knownHosts.
func sshHome(t *testing.T, srv *sshdtest.Server, knownHosts, remote string) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg := fmt.Sprintf(`terminal:
  backend: ssh
  ssh:
    host: 127.0.0.1
    port: %d
    user: %s
    identity_file: %s
    known_hosts: %s
    remote_dir: %s
    ssh_config: none
`, srv.Port, u.Username, srv.UserKey, knownHosts, remote)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestTypeScriptSDKSSH(t *testing.T) {
	node := requireNode(t)
	srv := sshdtest.Start(t)
	out, err := exec.Command("ssh-keygen", "-lf", srv.HostPubKey).Output()
	if err != nil {
		t.Fatalf("ssh-keygen -lf: %v", err)
	}
	fingerprint := strings.Fields(string(out))[1] // SHA256:…

	ws := t.TempDir()
	for name, content := range map[string]string{
		"input.txt":     "hello over ssh\n",
		"obsolete.txt":  "the command deletes this\n",
		".env":          "API_KEY=never-leaves-this-machine\n",
		".env.local":    "TOKEN=neither\n",
		".gitignore":    "build/\n",
		"build/big.bin": "ignored\n",
	} {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remote := filepath.Join(t.TempDir(), "remote")
	home := sshHome(t, srv, srv.KnownHosts, remote)
	// A second configuration whose known_hosts has no key for the server.
	unknownKnownHosts := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(unknownKnownHosts, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	unknownRemote := filepath.Join(t.TempDir(), "remote-unknown")
	unknownHome := sshHome(t, srv, unknownKnownHosts, unknownRemote)

	// `hermes-acp tools` logs in as the first command would and says so.
	for _, c := range []struct {
		home string
		want []string
	}{
		{home, []string{"Terminal backend: ssh (offered: local, ssh); available"}},
		{unknownHome, []string{"Terminal backend: ssh (offered: local, ssh); unavailable: ", "is not known", fingerprint}},
	} {
		cmd := exec.Command(agentBin, "tools")
		cmd.Env = baseEnv(t, "HERMES_HOME="+c.home)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hermes-acp tools: %v\n%s", err, out)
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("hermes-acp tools with %s says:\n%s\nwant %q", filepath.Join(c.home, "config.yaml"), out, w)
			}
		}
	}

	model := startModel(t, sshModel(t))
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "ssh.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Env = baseEnv(t, append(modelEnv(model),
		"HERMES_HOME="+home,
		"SSH_WS="+ws,
		"SSH_REMOTE="+remote,
		"SSH_UNKNOWN_HOME="+unknownHome,
		"SSH_UNKNOWN_REMOTE="+unknownRemote,
		"SSH_FINGERPRINT="+fingerprint,
		fmt.Sprintf("SSHD_PID=%d", srv.PID()),
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, agentBin, err, out)
	}
	t.Logf("%s", out)
}
