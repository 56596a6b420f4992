package workspace

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The tables below port hermes-agent's agent/file_safety.py and the
// tool-level checks of tools/file_tools.py. They are immutable.

// blockedDevicePaths are device and fd paths whose reads hang or never end.
var blockedDevicePaths = []string{
	"/dev/zero", "/dev/random", "/dev/urandom", "/dev/full", // never reach EOF
	"/dev/stdin", "/dev/tty", "/dev/console", // block on input
	"/dev/stdout", "/dev/stderr", // nonsensical to read
	"/dev/fd/0", "/dev/fd/1", "/dev/fd/2", // fd aliases
}

// blockedProcSuffixes are /proc/<pid>/... (and .../task/<tid>/...) files
// that alias stdio or leak secrets, argv, memory layout or memory.
var blockedProcSuffixes = []string{
	"/fd/0", "/fd/1", "/fd/2",
	"/environ", "/cmdline", "/maps", "/smaps", "/smaps_rollup", "/numa_maps",
	"/mem", "/auxv", "/pagemap",
}

// isBlockedDevicePath reports whether the clean absolute path p is on
// hermes's device guard list. It does no I/O.
func isBlockedDevicePath(p string) bool {
	p = filepath.ToSlash(p)
	if slices.Contains(blockedDevicePaths, p) {
		return true
	}
	if !strings.HasPrefix(p, "/proc/") {
		return false
	}
	for _, s := range blockedProcSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// Write-deny list (backend level: write, patch, delete, move).
var (
	writeDeniedHomeFiles = []string{
		".ssh/authorized_keys", ".ssh/id_rsa", ".ssh/id_ed25519", ".ssh/config",
		".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials",
	}
	writeDeniedSystemFiles = []string{"/etc/sudoers", "/etc/passwd", "/etc/shadow"}
	// Directories whose contents are denied (the directory name itself is not).
	writeDeniedHomeDirs = []string{
		".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gh", ".config/gcloud",
	}
	writeDeniedSystemDirs = []string{"/etc/sudoers.d", "/etc/systemd"}
	// Files under HERMES_HOME and the Hermes root.
	writeDeniedHermesFiles = []string{".env", ".anthropic_oauth.json", "cache/bws_cache.enc.json", "state.db"}
	// Directories under HERMES_HOME and the Hermes root, denied themselves
	// and everything inside.
	writeDeniedHermesDirs = []string{"mcp-tokens", "pairing", "sessions"}
)

// Tool-level sensitive system paths (write_file and patch, before the
// backend). /private/var/ is macOS's /var; the system temporary directory,
// which lives there on macOS, is exempt.
var (
	sensitiveSystemPrefixes = []string{"/etc/", "/boot/", "/usr/lib/systemd/", "/private/etc/", "/private/var/"}
	sensitiveSystemExact    = []string{"/var/run/docker.sock", "/run/docker.sock"}
)

// Read-deny list.
var (
	// readDeniedHomeCredentials are credential files of common tools under
	// Home: hermes's write-deny list (writeDeniedHomeFiles and the contents
	// of writeDeniedHomeDirs) extended to reads, each with what it holds
	// for the message. Public keys (*.pub) under ~/.ssh stay readable.
	readDeniedHomeCredentials = []credential{
		{".ssh", true, "SSH private keys and settings", ".pub"},
		{".aws", true, "AWS credentials", ""},
		{".gnupg", true, "GnuPG private keys", ""},
		{".kube", true, "Kubernetes cluster credentials", ""},
		{".docker", true, "Docker registry credentials", ""},
		{".azure", true, "Azure credentials", ""},
		{".config/gh", true, "the GitHub CLI's token", ""},
		{".config/gcloud", true, "Google Cloud credentials", ""},
		{".netrc", false, "login passwords for remote hosts", ""},
		{".pgpass", false, "PostgreSQL passwords", ""},
		{".npmrc", false, "npm registry tokens", ""},
		{".pypirc", false, "PyPI upload tokens", ""},
		{".git-credentials", false, "Git passwords and tokens", ""},
	}
	readDeniedSystemCredentials = []credential{
		{"/etc/shadow", false, "the system's password hashes", ""},
		{"/etc/gshadow", false, "the system's group password hashes", ""},
		{"/etc/sudoers", false, "the sudo rules", ""},
		{"/etc/sudoers.d", true, "the sudo rules", ""},
	}

	hermesCredentialFiles = []string{
		"auth.json", "auth.lock", ".anthropic_oauth.json", ".env",
		"webhook_subscriptions.json", "auth/google_oauth.json", "cache/bws_cache.json",
	}
	secretEnvNames = []string{
		".env", ".env.local", ".env.development", ".env.production",
		".env.test", ".env.staging", ".envrc",
	}
)

// credential is an entry of the credential read-deny list: a file, or a
// directory whose contents are denied (dir), relative to Home or absolute,
// with what it holds for the message. Files in a denied directory whose
// name ends with allow (public keys: ".pub") stay readable.
type credential struct {
	rel   string
	dir   bool
	what  string
	allow string
}

// credPlace is a credential entry resolved at Open.
type credPlace struct {
	place
	credential
}

func (c credPlace) holds(p Path) bool {
	if !c.dir {
		return c.is(p)
	}
	if !c.place.holds(p, false) {
		return false
	}
	return c.allow == "" || !strings.HasSuffix(strings.ToLower(filepath.Base(p.real)), c.allow)
}

const notBoundary = "(Defense-in-depth — not a security boundary; the terminal tool can still bypass.)"

// sudoHint ends the refusal of a sensitive system path.
const sudoHint = "\nUse the terminal tool with sudo if you need to modify system files."

// TerminalHints are the parts of this package's messages that point the
// model at a terminal tool. A session without one drops them (each is
// removed with the space or line break before it).
var TerminalHints = []string{" " + notBoundary, sudoHint, tooLargeHint}

// guards holds the safety places of one Workspace, resolved once at Open.
type guards struct {
	hubDirs      []place // skills/.hub under each Hermes dir: read-denied with contents
	credStores   []place // Hermes credential stores: read-denied
	tokenDirs    []place // mcp-tokens under each Hermes dir: read-denied with contents
	configFile   place   // HERMES_HOME/config.yaml: write-refused
	denyFiles    []place // write-denied files
	denyContents []place // write-denied contents (not the directory itself)
	denyTrees    []place // write-denied directories and their contents
	credentials  []credPlace
	agentHome    place // HERMES_HOME: no file tool reads or writes anything there
}

func newGuards(home, hermesHome, hermesRoot place) guards {
	var g guards
	var hermesDirs []place
	for _, pl := range [...]place{hermesHome, hermesRoot} {
		if pl.lit != "" && !slices.ContainsFunc(hermesDirs, func(o place) bool { return o.real == pl.real }) {
			hermesDirs = append(hermesDirs, pl)
		}
	}
	g.agentHome = hermesHome
	for _, hd := range hermesDirs {
		g.hubDirs = append(g.hubDirs, hd.join("skills", ".hub"))
		g.tokenDirs = append(g.tokenDirs, hd.join("mcp-tokens"))
		for _, f := range hermesCredentialFiles {
			g.credStores = append(g.credStores, hd.join(filepath.FromSlash(f)))
		}
		for _, f := range writeDeniedHermesFiles {
			g.denyFiles = append(g.denyFiles, hd.join(filepath.FromSlash(f)))
		}
		for _, d := range writeDeniedHermesDirs {
			g.denyTrees = append(g.denyTrees, hd.join(d))
		}
	}
	g.configFile = hermesHome.join("config.yaml")
	if home.lit != "" {
		for _, f := range writeDeniedHomeFiles {
			g.denyFiles = append(g.denyFiles, home.join(filepath.FromSlash(f)))
		}
		for _, d := range writeDeniedHomeDirs {
			g.denyContents = append(g.denyContents, home.join(filepath.FromSlash(d)))
		}
		for _, c := range readDeniedHomeCredentials {
			g.credentials = append(g.credentials, credPlace{home.join(filepath.FromSlash(c.rel)), c})
		}
	}
	for _, c := range readDeniedSystemCredentials {
		g.credentials = append(g.credentials, credPlace{newPlace(filepath.FromSlash(c.rel)), c})
	}
	for _, f := range writeDeniedSystemFiles {
		g.denyFiles = append(g.denyFiles, newPlace(filepath.FromSlash(f)))
	}
	for _, d := range writeDeniedSystemDirs {
		g.denyContents = append(g.denyContents, newPlace(filepath.FromSlash(d)))
	}
	return g
}

// CheckRead applies the read guards to p and returns nil when it may be
// read. It refuses hermes's blocking device paths (when a root contains
// /dev or /proc), the skills hub cache, Hermes credential stores and the
// mcp-tokens directory under HERMES_HOME and the Hermes root (with hermes's
// messages), everything else in HERMES_HOME (the agent's own state:
// sessions database, saved results, memories, configuration), credential
// files of common tools under Home (~/.ssh except *.pub, ~/.aws, ~/.gnupg,
// ~/.kube, ~/.docker, ~/.azure, ~/.config/gh, ~/.config/gcloud, ~/.netrc,
// ~/.pgpass, ~/.npmrc, ~/.pypirc, ~/.git-credentials) and /etc/shadow,
// /etc/gshadow and the sudoers files, and any file named .env, .env.local,
// .env.development, .env.production, .env.test, .env.staging or .envrc
// (case-insensitive). The rules apply to the resolved Path, so a symbolic
// link cannot rename a denied file. The error wraps [ErrReadDenied] (and
// [ErrSpecialFile] for devices).
func (w *Workspace) CheckRead(p Path) error {
	if err := w.check(p); err != nil {
		return err
	}
	return w.readGuards(p)
}

// CheckReadOutside applies CheckRead's rules to abs, an absolute path that
// may lie outside the roots, and returns it with its symbolic links
// resolved: what the rules judged, and what the caller should open. The
// file must exist. The file tools never read outside the roots; this is
// for single files the user approves one by one (a file the browser hands
// to a page).
func (w *Workspace) CheckReadOutside(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", pathErr(abs, fmt.Sprintf("path '%s' is not absolute; give the full path of a file outside the workspace", abs), ErrInvalidPath)
	}
	clean := filepath.Clean(abs)
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", clean, unwrapPathError(err))
	}
	return real, w.readGuards(Path{abs: clean, real: real})
}

// readGuards is CheckRead without the check that p is the workspace's.
func (w *Workspace) readGuards(p Path) error {
	show := p.abs
	g := &w.guards
	if isBlockedDevicePath(p.abs) || isBlockedDevicePath(p.real) {
		return pathErr(show, fmt.Sprintf("Cannot read '%s': this is a device file that would block or produce infinite output.", show), ErrReadDenied, ErrSpecialFile)
	}
	if slices.ContainsFunc(g.hubDirs, func(d place) bool { return d.holds(p, true) }) {
		return pathErr(show, fmt.Sprintf("Access denied: %s is an internal Hermes cache file and cannot be read directly to prevent prompt injection. Use the skills_list or skill_view tools instead.", show), ErrReadDenied)
	}
	if slices.ContainsFunc(g.credStores, func(f place) bool { return f.is(p) }) {
		return pathErr(show, fmt.Sprintf("Access denied: %s is a Hermes credential store and cannot be read directly. Provider tools consume these credentials through internal channels. %s", show, notBoundary), ErrReadDenied)
	}
	for _, tokens := range g.tokenDirs {
		if tokens.is(p) {
			return pathErr(show, fmt.Sprintf("Access denied: %s is the Hermes MCP token directory and cannot be read directly. %s", show, notBoundary), ErrReadDenied)
		}
		if tokens.holds(p, false) {
			return pathErr(show, fmt.Sprintf("Access denied: %s is a Hermes MCP token file and cannot be read directly. %s", show, notBoundary), ErrReadDenied)
		}
	}
	if g.agentHome.holds(p, true) {
		return pathErr(show, fmt.Sprintf("Access denied: %s is in the agent's own folder HERMES_HOME (%s), which holds its sessions database, saved results, memories, configuration and credentials; the file tools cannot read it.", show, g.agentHome.lit), ErrReadDenied)
	}
	for _, c := range g.credentials {
		if c.holds(p) {
			return pathErr(show, fmt.Sprintf("Access denied: %s holds %s and cannot be read, to prevent credential leakage. %s", show, c.what, notBoundary), ErrReadDenied)
		}
	}
	if slices.Contains(secretEnvNames, strings.ToLower(filepath.Base(p.real))) ||
		slices.Contains(secretEnvNames, strings.ToLower(filepath.Base(p.abs))) {
		return pathErr(show, fmt.Sprintf("Access denied: %s is a secret-bearing environment file and cannot be read to prevent credential leakage. If you need to check the file structure, read .env.example instead. %s", show, notBoundary), ErrReadDenied)
	}
	return nil
}

// CheckWrite applies hermes's write guards to p for the given verb
// ("Write", "Delete" or "Move"; empty means "Write") and returns nil when
// the operation may proceed. In hermes's order it refuses sensitive system
// paths (/etc/, /boot/, ..., docker.sock), the Hermes config file
// (HERMES_HOME/config.yaml), the write-deny list (credential files under
// Home, HERMES_HOME and the Hermes root, /etc/sudoers, ...), and, when
// HERMES_WRITE_SAFE_ROOT is set, anything outside it; and, whatever the
// lists say, anything in HERMES_HOME (the agent's own sessions database
// and its -wal and -shm files, saved results, memories, configuration). The rules apply to the resolved Path. The error wraps
// [ErrWriteDenied] and carries hermes's message. WriteFile, Remove, Rename
// and Files.Write call CheckWrite themselves.
func (w *Workspace) CheckWrite(p Path, verb string) error {
	if err := w.check(p); err != nil {
		return err
	}
	if verb == "" {
		verb = "Write"
	}
	show := p.abs
	g := &w.guards
	if w.sensitiveSystemPath(p) {
		return pathErr(show, fmt.Sprintf("Refusing to write to sensitive system path: %s", show)+sudoHint, ErrWriteDenied)
	}
	if g.configFile.is(p) {
		return pathErr(show, fmt.Sprintf("Refusing to write to Hermes config file: %s\nAgent cannot modify security-sensitive configuration.", show), ErrWriteDenied)
	}
	if slices.ContainsFunc(g.denyFiles, func(f place) bool { return f.is(p) }) ||
		slices.ContainsFunc(g.denyContents, func(d place) bool { return d.holds(p, false) }) ||
		slices.ContainsFunc(g.denyTrees, func(d place) bool { return d.holds(p, true) }) {
		return pathErr(show, fmt.Sprintf("%s denied: '%s' is a protected system/credential file.", verb, show), ErrWriteDenied)
	}
	if g.agentHome.holds(p, true) {
		return pathErr(show, fmt.Sprintf("%s denied: '%s' is in the agent's own folder HERMES_HOME (%s), which holds its sessions database, saved results, memories, configuration and credentials; tools cannot change it.", verb, show, g.agentHome.lit), ErrWriteDenied)
	}
	if len(w.safeRoots) > 0 && !slices.ContainsFunc(w.safeRoots, func(sr place) bool { return sr.holds(p, true) }) {
		return pathErr(show, fmt.Sprintf("%s denied: '%s' is outside HERMES_WRITE_SAFE_ROOT (%s). Unset the variable or add this path's directory prefix.", verb, show, w.safeShow), ErrWriteDenied)
	}
	return nil
}

func (w *Workspace) sensitiveSystemPath(p Path) bool {
	for _, s := range [...]string{filepath.ToSlash(p.abs), filepath.ToSlash(p.real)} {
		if slices.Contains(sensitiveSystemExact, s) {
			return true
		}
		for _, prefix := range sensitiveSystemPrefixes {
			if strings.HasPrefix(s, prefix) {
				if prefix == "/private/var/" && w.InTempDir(p) {
					continue
				}
				return true
			}
		}
	}
	return false
}

// IsSensitiveForApproval reports whether an edit of p must always be shown
// to the user for approval, whatever the session's approval mode: any path
// component is .git or .ssh, or the file name starts with .env or id_
// (hermes's sensitive auto-approve targets). The comparison ignores case
// and looks at the resolved Path, so a symbolic link to .git (gitlink/config)
// is sensitive however the model spelled it. The zero Path is sensitive.
func IsSensitiveForApproval(p Path) bool {
	if p.root == nil {
		return true
	}
	for _, s := range [...]string{p.abs, p.real} {
		parts := strings.Split(filepath.ToSlash(s), "/")
		for _, c := range parts {
			switch strings.ToLower(c) {
			case ".git", ".ssh":
				return true
			}
		}
		base := strings.ToLower(parts[len(parts)-1])
		if strings.HasPrefix(base, ".env") || strings.HasPrefix(base, "id_") {
			return true
		}
	}
	return false
}

// CredentialPlace is a credential file or folder of the read-deny list,
// resolved: the command sandbox (terminal) hides these from commands unless
// the user grants them.
type CredentialPlace struct {
	// Path is absolute and cleaned (symbolic links not resolved).
	Path string
	// Dir: a folder (hidden whole, public keys included).
	Dir bool
	// What it holds, for messages ("SSH private keys and settings").
	What string
}

// CredentialPlaces returns the credential places the file tools refuse to
// read (see CheckRead): those of common tools under home (skipped when home
// is "") and the system's (/etc/shadow, the sudoers files). It does no I/O.
func CredentialPlaces(home string) []CredentialPlace {
	var out []CredentialPlace
	if home != "" {
		for _, c := range readDeniedHomeCredentials {
			out = append(out, CredentialPlace{Path: filepath.Join(home, filepath.FromSlash(c.rel)), Dir: c.dir, What: c.what})
		}
	}
	for _, c := range readDeniedSystemCredentials {
		out = append(out, CredentialPlace{Path: filepath.Clean(filepath.FromSlash(c.rel)), Dir: c.dir, What: c.what})
	}
	return out
}
