package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// homeWorkspace opens a workspace whose cwd is a fake $HOME, as when the
// editor opens the home directory, with HERMES_HOME inside it.
func homeWorkspace(t *testing.T, opts Options) (*Workspace, string) {
	t.Helper()
	home := realTempDir(t)
	opts.Home = home
	if opts.HermesHome == "" {
		opts.HermesHome = filepath.Join(home, ".hermes")
	}
	return openWS(t, home, nil, opts), home
}

func mustResolve(t testing.TB, w *Workspace, s string) Path {
	t.Helper()
	p, err := w.Resolve(s)
	if err != nil {
		t.Fatalf("Resolve(%q) = %v", s, err)
	}
	return p
}

// Ported from hermes's write deny tests: the credential and system files of
// §4.1 are denied, ordinary files are not.
func TestCheckWriteDenyList(t *testing.T) {
	w, home := homeWorkspace(t, Options{HermesHome: "" /* default */})
	const credential = "is a protected system/credential file."
	agent := "which holds its sessions database, saved results, memories, configuration and credentials; tools cannot change it."
	for _, tc := range []struct {
		path string
		want string // "" = allowed
	}{
		{"~/.ssh/id_rsa", credential},
		{"~/.ssh/id_ed25519", credential},
		{"~/.ssh/authorized_keys", credential},
		{"~/.ssh/config", credential},
		{"~/.ssh/known_hosts", credential},
		{"~/.aws/credentials", credential},
		{"~/.gnupg/pubring.kbx", credential},
		{"~/.kube/config", credential},
		{"~/.docker/config.json", credential},
		{"~/.azure/accessTokens.json", credential},
		{"~/.config/gh/hosts.yml", credential},
		{"~/.config/gcloud/credentials.db", credential},
		{"~/.netrc", credential},
		{"~/.pgpass", credential},
		{"~/.npmrc", credential},
		{"~/.pypirc", credential},
		{"~/.git-credentials", credential},
		{"~/.hermes/.env", credential},
		{"~/.hermes/.anthropic_oauth.json", credential},
		{"~/.hermes/mcp-tokens", credential},
		{"~/.hermes/mcp-tokens/server.json", credential},
		{"~/.hermes/pairing/code", credential},
		{"~/.hermes/state.db", credential},
		{"~/.hermes/sessions/s1.json", credential},
		{"~/.hermes/config.yaml", "Refusing to write to Hermes config file: " + filepath.Join(home, ".hermes", "config.yaml") + "\nAgent cannot modify security-sensitive configuration."},
		// allowed
		{"~/.bashrc", ""},
		{"~/.zshrc", ""},
		{"~/.profile", ""},
		{"~/.bash_profile", ""},
		{"~/.zprofile", ""},
		{"~/.ssh", ""}, // the directory name itself is not inside ~/.ssh/
		{"~/project/main.go", ""},
		{"~/.config/other/x", ""},
		// The agent's own state: everything in HERMES_HOME.
		{"~/.hermes/sessions.db", "Write denied: '" + filepath.Join(home, ".hermes", "sessions.db") + "' is in the agent's own folder HERMES_HOME (" + filepath.Join(home, ".hermes") + "), " + agent},
		{"~/.hermes/sessions.db-wal", agent},
		{"~/.hermes/sessions.db-shm", agent},
		{"~/.hermes/results/call_1.txt", agent},
		{"~/.hermes/memories/MEMORY.md", agent},
		{"~/.hermes/auth.json", agent},
		{"~/.hermes/webhook_subscriptions.json", agent},
		{"~/.hermes/SOUL.md", agent},
		{"~/.hermes", agent},
		{"~/.hermes/new/deeper/file", agent},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := mustResolve(t, w, tc.path)
			err := w.CheckWrite(p, "Write")
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckWrite(%q) = %v, want nil", tc.path, err)
				}
				return
			}
			if !errors.Is(err, ErrWriteDenied) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckWrite(%q) = %v, want ErrWriteDenied containing %q", tc.path, err, tc.want)
			}
		})
	}
}

func TestCheckWriteMessagesAndVerbs(t *testing.T) {
	w, home := homeWorkspace(t, Options{})
	p := mustResolve(t, w, "~/.ssh/id_rsa")
	for _, tc := range []struct{ verb, want string }{
		{"Write", "Write denied: '" + filepath.Join(home, ".ssh", "id_rsa") + "' is a protected system/credential file."},
		{"", "Write denied: '"},
		{"Delete", "Delete denied: '"},
		{"Move", "Move denied: '"},
	} {
		if err := w.CheckWrite(p, tc.verb); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("CheckWrite(id_rsa, %q) = %v, want prefix %q", tc.verb, err, tc.want)
		}
	}
}

// Ported from hermes's profile tests: under a profile both the profile's
// and the root's credential files are protected.
func TestCheckWriteProfile(t *testing.T) {
	home := realTempDir(t)
	profile := filepath.Join(home, ".hermes", "profiles", "work")
	w := openWS(t, home, nil, Options{Home: home, HermesHome: profile})
	for _, tc := range []struct {
		path   string
		denied bool
	}{
		{"~/.hermes/profiles/work/.env", true},
		{"~/.hermes/.env", true},
		{"~/.hermes/profiles/work/mcp-tokens/a", true},
		{"~/.hermes/mcp-tokens/a", true},
		{"~/.hermes/profiles/work/config.yaml", true},
		// The agent's own state: everything in the profile, HERMES_HOME.
		{"~/.hermes/profiles/work/skills/x.md", true},
		{"~/.hermes/profiles/work/sessions.db", true},
		{"~/.hermes/config.yaml", false}, // only the active profile's config is the config file
		{"~/.hermes/profiles/other/notes.md", false},
		{"~/.hermes-other/x", false},
		{"~/project/x", false},
	} {
		err := w.CheckWrite(mustResolve(t, w, tc.path), "Write")
		if got := err != nil; got != tc.denied {
			t.Errorf("CheckWrite(%q) = %v, want denied=%v", tc.path, err, tc.denied)
		}
	}
}

// Ported from hermes's tool-level pre-check tests, with a workspace at "/".
func TestCheckWriteSensitiveSystemPaths(t *testing.T) {
	w := openWS(t, "/", nil, Options{TempDir: "/private/var/folders/T"})
	for _, tc := range []struct {
		path string
		want string
	}{
		{"/etc/hosts", "Refusing to write to sensitive system path: /etc/hosts\nUse the terminal tool with sudo if you need to modify system files."},
		{"/etc/shadow", "Refusing to write to sensitive system path: /etc/shadow"},
		{"/etc/passwd", "Refusing to write to sensitive system path: /etc/passwd"},
		{"/etc/sudoers", "Refusing to write to sensitive system path: /etc/sudoers"},
		{"/etc/sudoers.d/x", "Refusing to write to sensitive system path: /etc/sudoers.d/x"},
		{"/private/etc/hosts", "Refusing to write to sensitive system path: /private/etc/hosts"},
		{"/private/var/x", "Refusing to write to sensitive system path: /private/var/x"},
		{"/boot/x", "Refusing to write to sensitive system path: /boot/x"},
		{"/usr/lib/systemd/system/x.service", "Refusing to write to sensitive system path: /usr/lib/systemd/system/x.service"},
		{"/run/docker.sock", "Refusing to write to sensitive system path: /run/docker.sock"},
		{"/private/var/folders/T/scratch.txt", ""}, // macOS temp dir stays writable
		{"/tmp/hermes-test-file", ""},
		{"/var/tmp/x", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			err := w.CheckWrite(mustResolve(t, w, tc.path), "Write")
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckWrite(%q) = %v, want nil", tc.path, err)
				}
				return
			}
			if !errors.Is(err, ErrWriteDenied) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("CheckWrite(%q) = %v, want prefix %q", tc.path, err, tc.want)
			}
		})
	}
}

// Ported from hermes's HERMES_WRITE_SAFE_ROOT tests.
func TestCheckWriteSafeRoot(t *testing.T) {
	home := realTempDir(t)
	safe := filepath.Join(home, "safe")
	other := filepath.Join(home, "other")
	for _, d := range []string{safe, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sep := string(os.PathListSeparator)
	for _, tc := range []struct {
		name string
		env  string
		path string
		want string // "" allowed; else a message fragment
	}{
		{"inside", safe, "safe/a/b.txt", ""},
		{"the root itself", safe, "safe", ""},
		{"outside", safe, "other/x", "Write denied: '" + filepath.Join(home, "other", "x") + "' is outside HERMES_WRITE_SAFE_ROOT (" + safe + "). Unset the variable or add this path's directory prefix."},
		{"sibling prefix is not inside", safe, "safe2/x", "outside HERMES_WRITE_SAFE_ROOT"},
		{"empty segments ignored", sep + safe + sep + sep, "safe/x", ""},
		{"two roots", safe + sep + other, "other/x", ""},
		{"duplicates collapse", safe + sep + safe + sep + other, "nope/x", "outside HERMES_WRITE_SAFE_ROOT (" + other + sep + safe + ")"},
		{"tilde expanded", "~/safe", "safe/x", ""},
		{"static deny wins", home, ".ssh/id_rsa", "is a protected system/credential file."},
		{"unset", "", "anything/x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := openWS(t, home, nil, Options{Home: home, WriteSafeRoot: tc.env})
			err := w.CheckWrite(mustResolve(t, w, tc.path), "Write")
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckWrite(%q) with safe root %q = %v, want nil", tc.path, tc.env, err)
				}
				return
			}
			if !errors.Is(err, ErrWriteDenied) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckWrite(%q) with safe root %q = %v, want %q", tc.path, tc.env, err, tc.want)
			}
		})
	}
}

// A symlinked home: the deny list is checked on the real path too.
func TestCheckWriteThroughSymlinkedHome(t *testing.T) {
	base := realTempDir(t)
	realHome := filepath.Join(base, "real-home")
	if err := os.MkdirAll(filepath.Join(realHome, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	linkHome := filepath.Join(base, "link-home")
	mustSymlink(t, realHome, linkHome)
	w := openWS(t, realHome, nil, Options{Home: linkHome})
	if err := w.CheckWrite(mustResolve(t, w, ".ssh/id_rsa"), "Write"); !errors.Is(err, ErrWriteDenied) {
		t.Errorf("CheckWrite(.ssh/id_rsa) under a symlinked home = %v, want ErrWriteDenied", err)
	}
}

// Ported from hermes's read guard tests.
func TestCheckRead(t *testing.T) {
	home := realTempDir(t)
	profile := filepath.Join(home, ".hermes", "profiles", "p")
	w := openWS(t, home, nil, Options{Home: home, HermesHome: profile})
	const (
		hub    = "is an internal Hermes cache file and cannot be read directly to prevent prompt injection. Use the skills_list or skill_view tools instead."
		cred   = "is a Hermes credential store and cannot be read directly. Provider tools consume these credentials through internal channels. (Defense-in-depth — not a security boundary; the terminal tool can still bypass.)"
		tokDir = "is the Hermes MCP token directory and cannot be read directly."
		tokF   = "is a Hermes MCP token file and cannot be read directly."
		env    = "is a secret-bearing environment file and cannot be read to prevent credential leakage. If you need to check the file structure, read .env.example instead."
		own    = "which holds its sessions database, saved results, memories, configuration and credentials; the file tools cannot read it."
	)
	for _, tc := range []struct {
		path string
		want string
	}{
		{"~/.hermes/skills/.hub", hub},
		{"~/.hermes/skills/.hub/index-cache/x.json", hub},
		{"~/.hermes/profiles/p/skills/.hub/lock.json", hub},
		{"~/.hermes/auth.json", cred},
		{"~/.hermes/profiles/p/auth.json", cred},
		{"~/.hermes/auth.lock", cred},
		{"~/.hermes/.anthropic_oauth.json", cred},
		{"~/.hermes/webhook_subscriptions.json", cred},
		{"~/.hermes/auth/google_oauth.json", cred},
		{"~/.hermes/cache/bws_cache.json", cred},
		{"~/.hermes/.env", cred},
		{"~/.hermes/mcp-tokens", tokDir},
		{"~/.hermes/profiles/p/mcp-tokens/github.json", tokF},
		{"~/project/.env", env},
		{"~/project/.ENV.local", env},
		{"~/project/.env.development", env},
		{"~/project/.env.production", env},
		{"~/project/.env.test", env},
		{"~/project/.env.staging", env},
		{"~/project/.envrc", env},
		// The agent's own state: everything in HERMES_HOME (the profile).
		{"~/.hermes/profiles/p/sessions.db", "is in the agent's own folder HERMES_HOME (" + profile + "), " + own},
		{"~/.hermes/profiles/p/sessions.db-wal", own},
		{"~/.hermes/profiles/p/results/call_1.txt", own},
		{"~/.hermes/profiles/p/memories/MEMORY.md", own},
		{"~/.hermes/profiles/p/config.yaml", own},
		{"~/.hermes/profiles/p", own},
		{"~/.hermes/profiles/p/skills/mine/SKILL.md", own},
		// Credentials of common tools.
		{"~/.ssh/id_rsa", "holds SSH private keys and settings and cannot be read, to prevent credential leakage."},
		{"~/.ssh/id_ed25519", "holds SSH private keys"},
		{"~/.ssh/id_ecdsa_sk", "holds SSH private keys"},
		{"~/.ssh/config", "holds SSH private keys"},
		{"~/.aws/credentials", "holds AWS credentials"},
		{"~/.aws/config", "holds AWS credentials"},
		{"~/.git-credentials", "holds Git passwords and tokens"},
		{"~/.config/gh/hosts.yml", "holds the GitHub CLI's token"},
		{"~/.netrc", "holds login passwords for remote hosts"},
		{"~/.kube/config", "holds Kubernetes cluster credentials"},
		{"~/.docker/config.json", "holds Docker registry credentials"},
		{"~/.gnupg/private-keys-v1.d/x.key", "holds GnuPG private keys"},
		{"~/.config/gcloud/credentials.db", "holds Google Cloud credentials"},
		{"~/.azure/accessTokens.json", "holds Azure credentials"},
		{"~/.pgpass", "holds PostgreSQL passwords"},
		{"~/.npmrc", "holds npm registry tokens"},
		{"~/.pypirc", "holds PyPI upload tokens"},
		// allowed
		{"~/project/.env.example", ""},
		{"~/project/env", ""},
		{"~/.ssh/id_rsa.pub", ""},
		{"~/.ssh", ""},
		{"~/.config/other.yml", ""},
		{"~/.hermes-notes/x", ""},
		{"~/.hermes/config.yaml", ""}, // the Hermes root above the profile keeps hermes's rules only
		{"~/.hermes/skills/mine/SKILL.md", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := mustResolve(t, w, tc.path)
			err := w.CheckRead(p)
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckRead(%q) = %v, want nil", tc.path, err)
				}
				return
			}
			if !errors.Is(err, ErrReadDenied) || !strings.HasPrefix(err.Error(), "Access denied: "+p.Abs()+" ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckRead(%q) = %v, want ErrReadDenied starting %q and containing %q", tc.path, err, "Access denied: "+p.Abs(), tc.want)
			}
		})
	}
}

// Ported from hermes's device guard tests: with a root that contains /dev
// and /proc, the guard blocks on the literal path and the real path.
func TestCheckReadDevices(t *testing.T) {
	w := openWS(t, "/", nil, Options{})
	for _, tc := range []struct {
		path    string
		blocked bool
	}{
		{"/proc/1/environ", true},
		{"/proc/1/cmdline", true},
		{"/proc/1/task/1/smaps_rollup", true},
		{"/proc/1/fd/2", true},
		{"/proc/cpuinfo", false},
		{"/proc/1/status", false},
	} {
		p, err := w.Resolve(tc.path)
		if err == nil {
			err = w.CheckRead(p)
		}
		if got := errors.Is(err, ErrSpecialFile); got != tc.blocked {
			t.Errorf("Resolve+CheckRead(%q) = %v, want blocked=%v", tc.path, err, tc.blocked)
		}
	}
	// A Path whose literal spelling is fine but whose real path is a
	// blocked device path (the root is reached through a symlink).
	base := realTempDir(t)
	link := filepath.Join(base, "proc-link")
	mustSymlink(t, "/proc/1", link)
	w2 := openWS(t, link, nil, Options{})
	p := mustResolve(t, w2, "environ")
	if err := w2.CheckRead(p); !errors.Is(err, ErrReadDenied) || !strings.Contains(err.Error(), "this is a device file that would block or produce infinite output.") {
		t.Errorf("CheckRead(%s, real %s) = %v, want the device message", p.Abs(), p.Real(), err)
	}
}

func TestCheckRequiresWorkspacePath(t *testing.T) {
	w1 := openWS(t, realTempDir(t), nil, Options{})
	w2 := openWS(t, realTempDir(t), nil, Options{})
	foreign := mustResolve(t, w2, "a.txt")
	for name, err := range map[string]error{
		"CheckRead zero":    w1.CheckRead(Path{}),
		"CheckWrite zero":   w1.CheckWrite(Path{}, "Write"),
		"CheckRead other":   w1.CheckRead(foreign),
		"CheckWrite other":  w1.CheckWrite(foreign, "Write"),
		"WriteFile foreign": func() error { _, err := w1.WriteFile(foreign, nil); return err }(),
	} {
		if !errors.Is(err, ErrNotWorkspacePath) {
			t.Errorf("%s = %v, want ErrNotWorkspacePath", name, err)
		}
	}
}

func TestIsSensitiveForApproval(t *testing.T) {
	w := openWS(t, realTempDir(t), nil, Options{})
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".git/config", true},
		{"sub/.git/hooks/pre-commit", true},
		{".ssh/config", true},
		{"a/.SSH/x", true},
		{".env", true},
		{".env.local", true},
		{"config/.env.production", true},
		{".envrc", true},
		{"keys/id_rsa", true},
		{"keys/id_ed25519.pub", true},
		{"src/main.go", false},
		{".gitignore", false},
		{"git/x", false},
		{"env.txt", false},
		{"my_id_rsa", false},
		{"README.md", false},
	} {
		if got := IsSensitiveForApproval(mustResolve(t, w, tc.path)); got != tc.want {
			t.Errorf("IsSensitiveForApproval(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if !IsSensitiveForApproval(Path{}) {
		t.Error("IsSensitiveForApproval(zero Path) = false, want true")
	}
}

// Ported from hermes's edit-approval policy tests: a workspace_session
// policy auto-approves the cwd and the temp dir, and still asks for .env.
func TestApprovalScopes(t *testing.T) {
	tmp := realTempDir(t)
	cwd := filepath.Join(tmp, "proj")
	extra := realTempDir(t)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, cwd, []string{extra}, Options{TempDir: tmp})
	src := mustResolve(t, w, "src.py")
	other := mustResolve(t, w, filepath.Join(extra, "x"))
	if !w.InCwd(src) || !w.InTempDir(src) || !w.InRoots(src) {
		t.Errorf("src.py: InCwd %v InTempDir %v InRoots %v, want all true", w.InCwd(src), w.InTempDir(src), w.InRoots(src))
	}
	if w.InCwd(other) || w.InTempDir(other) || !w.InRoots(other) {
		t.Errorf("extra/x: InCwd %v InTempDir %v InRoots %v, want false false true", w.InCwd(other), w.InTempDir(other), w.InRoots(other))
	}
	if env := mustResolve(t, w, ".env"); !w.InCwd(env) || !IsSensitiveForApproval(env) {
		t.Error(".env must be in the cwd and still sensitive")
	}
	if w.InRoots(Path{}) || w.InCwd(Path{}) || w.InTempDir(Path{}) {
		t.Error("the zero Path must not be in any scope")
	}
}

// The rules apply to the resolved path, not to the spelling: a symbolic
// link (reached directly or after a missing folder and "..") cannot rename
// .git, .env, a credential file or the agent's own state into something
// harmless. The workspace is $HOME, with HERMES_HOME inside it.
func TestSafetyRulesFollowSymlinks(t *testing.T) {
	w, home := homeWorkspace(t, Options{})
	mustWrite(t, filepath.Join(home, "proj", ".git", "config"), "[core]\n")
	mustWrite(t, filepath.Join(home, "proj", ".env"), "KEY=1\n")
	mustWrite(t, filepath.Join(home, ".ssh", "id_rsa"), "key")
	mustWrite(t, filepath.Join(home, ".hermes", "sessions.db"), "db")
	mustSymlink(t, ".git", filepath.Join(home, "proj", "gitlink"))
	mustSymlink(t, ".git/hooks", filepath.Join(home, "proj", "hooklink"))
	mustSymlink(t, ".env", filepath.Join(home, "proj", "envlink"))
	mustSymlink(t, "../.ssh", filepath.Join(home, "proj", "keys"))
	mustSymlink(t, "../.hermes", filepath.Join(home, "proj", "state"))

	for _, in := range []string{
		"proj/gitlink/config",
		"proj/nope/../gitlink/config",
		"proj/a/b/../../gitlink/hooks/pre-commit",
		"proj/hooklink/pre-commit",
		"proj/nope/../hooklink/post-checkout",
		"proj/nope/../envlink",
	} {
		if p := mustResolve(t, w, in); !IsSensitiveForApproval(p) {
			t.Errorf("IsSensitiveForApproval(Resolve(%q) = %s) = false, want true", in, p.Abs())
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"proj/envlink", "is a secret-bearing environment file"},
		{"proj/nope/../envlink", "is a secret-bearing environment file"},
		{"proj/keys/id_rsa", "holds SSH private keys"},
		{"proj/nope/../keys/id_rsa", "holds SSH private keys"},
		{"proj/nope/../state/sessions.db", "is in the agent's own folder HERMES_HOME"},
	} {
		err := w.CheckRead(mustResolve(t, w, tc.in))
		if !errors.Is(err, ErrReadDenied) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckRead(Resolve(%q)) = %v, want ErrReadDenied containing %q", tc.in, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"proj/nope/../state/sessions.db", "is in the agent's own folder HERMES_HOME"},
		{"proj/nope/../state/results/x.txt", "is in the agent's own folder HERMES_HOME"},
		{"proj/nope/../keys/id_rsa", "is a protected system/credential file."},
	} {
		err := w.CheckWrite(mustResolve(t, w, tc.in), "Write")
		if !errors.Is(err, ErrWriteDenied) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckWrite(Resolve(%q)) = %v, want ErrWriteDenied containing %q", tc.in, err, tc.want)
		}
	}
}

// TestCheckReadOutside: a file outside the roots passes the same read
// rules as one inside them: credentials, secret environment files and the
// agent's own folder are denied, through symbolic links too; an ordinary
// file is allowed and its real path returned.
func TestCheckReadOutside(t *testing.T) {
	home := realTempDir(t)
	profile := filepath.Join(home, ".hermes")
	ws := filepath.Join(home, "project")
	for _, d := range []string{ws, filepath.Join(home, ".ssh"), profile, filepath.Join(home, "docs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{".ssh/id_rsa": "KEY", ".ssh/id_rsa.pub": "PUB", "docs/report.pdf": "PDF", "docs/.env": "SECRET=1", ".hermes/state.db": "DB"}
	for rel, body := range files {
		if err := os.WriteFile(filepath.Join(home, rel), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(home, "docs", "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, ws, nil, Options{Home: home, HermesHome: profile})
	for _, tc := range []struct {
		rel  string
		deny bool
	}{
		{"docs/report.pdf", false},
		{".ssh/id_rsa.pub", false},
		{".ssh/id_rsa", true},
		{"docs/innocent.txt", true}, // a link to the key
		{"docs/.env", true},
		{".hermes/state.db", true},
	} {
		abs := filepath.Join(home, tc.rel)
		real, err := w.CheckReadOutside(abs)
		switch {
		case tc.deny && !errors.Is(err, ErrReadDenied):
			t.Errorf("CheckReadOutside(%s) = %q, %v; want ErrReadDenied", tc.rel, real, err)
		case !tc.deny && err != nil:
			t.Errorf("CheckReadOutside(%s) = %v, want allowed", tc.rel, err)
		case !tc.deny && real != abs:
			t.Errorf("CheckReadOutside(%s) = %q, want %q", tc.rel, real, abs)
		}
	}
	if _, err := w.CheckReadOutside("docs/report.pdf"); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("CheckReadOutside(relative) = %v, want ErrInvalidPath", err)
	}
	if _, err := w.CheckReadOutside(filepath.Join(home, "missing")); err == nil {
		t.Error("CheckReadOutside(missing file) = nil")
	}
}
