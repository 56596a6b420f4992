package terminal

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// SandboxCommand is the hidden subcommand of the agent's binary that the
// sandbox runs: `<exe> sandbox-exec --server` is a session's sandbox server
// (Linux), and `<exe> sandbox-exec TICKET COMMAND` is the editor-terminal
// helper that runs the command the agent registered under TICKET (see
// SandboxMain).
const SandboxCommand = "sandbox-exec"

// Sandbox is the confinement policy of every process the agent starts for
// the model on this machine (terminal.sandbox and the terminal.* keys
// beside it). It is shared by the agent's sessions; each session runs its
// commands through its own [SandboxSession] (NewSession). On Linux the
// sandbox is a user, mount, PID and network namespace per session, a mount
// and PID namespace per command, and Landlock as a second layer (see
// [Confinement] for what each kind confines); on macOS a Seatbelt profile;
// elsewhere commands are refused. A Sandbox is safe for concurrent use; its
// fields must not change once it is in use.
type Sandbox struct {
	// Exe is the binary that has the SandboxCommand (os.Executable()).
	Exe string
	// Writable are folders commands may write besides the workspace roots,
	// the session's temporary folder and the toolchains' caches
	// (terminal.sandbox_writable; ~ is the home folder).
	Writable []string
	// Hidden are more places commands must not see
	// (terminal.sandbox_hidden).
	Hidden []string
	// Home is the user's home folder ("": os.UserHomeDir()).
	Home string
	// HermesHome is the agent's own folder (HERMES_HOME), never visible to
	// commands; "" hides none.
	HermesHome string
	// Credentials are the credential places (~/.ssh, ~/.aws, …: the list
	// the file tools refuse, workspace.CredentialPlaces), which a command
	// sees only when the user grants it them.
	Credentials []string
	// SharedTmp gives commands the machine's /tmp instead of a private one
	// per session (terminal.private_tmp: false).
	SharedTmp bool
	// Unconfined runs programs without any confinement (terminal.sandbox:
	// off); the session still builds their environment and runs editor
	// terminals through its helper.
	Unconfined bool
	// LandlockOnly uses the Landlock-only sandbox even where namespaces
	// work (terminal.sandbox: landlock), as on a system without user
	// namespaces; the weaker confinement is reported the same way.
	LandlockOnly bool
	// Limits are the resource limits of commands (terminal.limits); zero
	// fields take the defaults.
	Limits Limits
	// RunDir is where sessions keep their folders (private /tmp, scratch,
	// sockets); "" is $XDG_RUNTIME_DIR, else the temporary directory (or
	// /tmp when its path is long: socket paths must be short).
	RunDir string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// userns, when set, replaces the check that user namespaces work
	// (tests force the fallback with it).
	userns func() error
	// ptraceScope, when set, replaces the reading of Yama's
	// kernel.yama.ptrace_scope (tests force a restricted ptrace with it).
	ptraceScope func() int

	once     sync.Once
	defaults []string

	confMu sync.Mutex // guards conf, confKnown
	conf   Confinement
	known  bool
}

// Limits are resource limits of sandboxed commands. Zero fields take the
// defaults (DefaultLimits); a negative one means unlimited.
type Limits struct {
	// Processes is the most processes a session's commands may have at
	// once, all of them together (the session's PID namespace; not
	// limited on the Landlock fallback).
	Processes int
	// AddressSpace is each process's address space in bytes (RLIMIT_AS).
	AddressSpace int64
	// CPUTime is each process's CPU time in seconds (RLIMIT_CPU).
	CPUTime int64
	// FileSize is the largest file a process may write, in bytes
	// (RLIMIT_FSIZE).
	FileSize int64
}

// DefaultLimits are the limits of Limits' zero fields: 4096 processes per
// session (a fork bomb stops there), files up to 16 GiB; no limit on
// address space (Chromium and V8 reserve terabytes they never use, so any
// useful RLIMIT_AS breaks them) nor on CPU time (a dev server runs for
// hours).
var DefaultLimits = Limits{Processes: 4096, AddressSpace: -1, CPUTime: -1, FileSize: 16 << 30}

// effective returns l with the defaults applied (negative: 0, unlimited).
func (l Limits) effective() Limits {
	pick := func(v, def int64) int64 {
		switch {
		case v == 0:
			v = def
		}
		if v < 0 {
			return 0
		}
		return v
	}
	return Limits{
		Processes:    int(pick(int64(l.Processes), int64(DefaultLimits.Processes))),
		AddressSpace: pick(l.AddressSpace, DefaultLimits.AddressSpace),
		CPUTime:      pick(l.CPUTime, DefaultLimits.CPUTime),
		FileSize:     pick(l.FileSize, DefaultLimits.FileSize),
	}
}

// Kinds of confinement (Confinement.Kind).
const (
	// KindNamespaces: user, mount, PID and network namespaces with
	// Landlock inside (Linux).
	KindNamespaces = "namespaces"
	// KindLandlock: Landlock only (Linux without usable user namespaces).
	KindLandlock = "landlock"
	// KindSeatbelt: a Seatbelt profile (macOS).
	KindSeatbelt = "seatbelt"
	// KindNone: commands cannot be confined here, so they are refused.
	KindNone = "none"
	// KindOff: the user turned the sandbox off (terminal.sandbox: off).
	KindOff = "off"
)

// Confinement is what the sandbox can do on this machine: its kind, why it
// is weaker than the namespace sandbox when it is, and what it leaves
// unconfined. The user sees it in /context, in `hermes-acp tools` and in
// the first command result of a session.
type Confinement struct {
	Kind string
	// Reason says why the namespace sandbox is not used ("" when it is).
	Reason string
	// Gaps lists what this kind does not confine that the namespace
	// sandbox does.
	Gaps []string
}

// Weaker reports whether commands are less confined than in the namespace
// sandbox.
func (c Confinement) Weaker() bool { return c.Kind != KindNamespaces }

// Summary is one paragraph for the user.
func (c Confinement) Summary() string {
	switch c.Kind {
	case KindNamespaces:
		return "Commands run in a namespace sandbox: the world read-only, writes only in the workspace, the session's /tmp and the toolchains' caches, " +
			"$HERMES_HOME and credentials hidden, a minimal /dev, their own processes only, no network unless granted, Landlock as a second layer."
	case KindOff:
		return "The sandbox is off (terminal.sandbox: off): commands run with all your user's rights, network included."
	case KindNone:
		return "Commands cannot be sandboxed on this system (" + c.Reason + "), so they are refused; set terminal.sandbox: off in config.yaml to run them unconfined."
	}
	s := "Commands run in a weaker sandbox (" + c.Kind + ")"
	if c.Reason != "" {
		s += " because " + c.Reason
	}
	if len(c.Gaps) > 0 {
		s += "; it does not confine: " + strings.Join(c.Gaps, "; ")
	}
	return s + "."
}

// landlockGaps is what the Landlock-only sandbox leaves open.
var landlockGaps = []string{
	"metadata changes (chmod, chown, timestamps) outside the writable folders",
	"reading credentials and $HERMES_HOME (only the file tools refuse them)",
	"processes that leave their process group (setsid, double fork) outlive their command",
	"UDP (DNS included) goes out even without network; TCP is refused unless granted",
	"the machine's /tmp is shared",
	"the number of processes (RLIMIT_NPROC would count all of your user's processes)",
	"UNIX sockets of other programs on this machine",
}

// Confinement returns what the sandbox does on this machine. On Linux the
// first call may start a throwaway sandbox server to see whether user
// namespaces work (tens of milliseconds, once per agent).
func (s *Sandbox) Confinement() Confinement {
	s.confMu.Lock()
	if s.known {
		c := s.conf
		s.confMu.Unlock()
		return c
	}
	s.confMu.Unlock()
	c := s.probe()
	s.setConfinement(c)
	return s.confinementNow()
}

// setConfinement records c unless an earlier result is known.
func (s *Sandbox) setConfinement(c Confinement) {
	s.confMu.Lock()
	defer s.confMu.Unlock()
	if !s.known {
		s.conf, s.known = c, true
	}
}

func (s *Sandbox) confinementNow() Confinement {
	s.confMu.Lock()
	defer s.confMu.Unlock()
	return s.conf
}

// knownConfinement returns the recorded confinement, if any.
func (s *Sandbox) knownConfinement() (Confinement, bool) {
	s.confMu.Lock()
	defer s.confMu.Unlock()
	return s.conf, s.known
}

// WritableDirs returns every folder a sandboxed command may write besides
// the session's own: roots, the toolchains' caches (computed once) and
// Writable, without duplicates.
func (s *Sandbox) WritableDirs(roots []string) []string {
	s.once.Do(func() { s.defaults = s.defaultDirs() })
	var out []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, d := range roots {
		add(d)
	}
	for _, d := range s.defaults {
		add(d)
	}
	for _, d := range s.Writable {
		add(s.expand(d))
	}
	return out
}

// hiddenPlaces returns what commands never see ($HERMES_HOME, Hidden) and
// the credential places, which a command sees when granted.
func (s *Sandbox) hiddenPlaces() (always, creds []string) {
	if s.HermesHome != "" {
		always = append(always, filepath.Clean(s.HermesHome))
	}
	for _, d := range s.Hidden {
		if d = s.expand(d); filepath.IsAbs(d) {
			always = append(always, filepath.Clean(d))
		}
	}
	for _, c := range s.Credentials {
		if c = s.expand(c); filepath.IsAbs(c) {
			creds = append(creds, filepath.Clean(c))
		}
	}
	return always, creds
}

func (s *Sandbox) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

func (s *Sandbox) home() string {
	if s.Home != "" {
		return s.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// expand resolves ~ in a configured folder.
func (s *Sandbox) expand(d string) string {
	if d == "~" {
		return s.home()
	}
	if strings.HasPrefix(d, "~/") {
		return filepath.Join(s.home(), d[2:])
	}
	return d
}

// runDir is the folder under which sessions make theirs.
func (s *Sandbox) runDir() string {
	if s.RunDir != "" {
		return s.RunDir
	}
	if d := s.getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) && socketsFit(filepath.Join(d, "hermes-acp")) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return filepath.Join(d, "hermes-acp")
		}
	}
	// UNIX socket paths are short (107 bytes): a long temporary directory
	// gives way to /tmp.
	if d := filepath.Join(os.TempDir(), "hermes-acp-"+uidString()); socketsFit(d) {
		return d
	}
	return filepath.Join("/tmp", "hermes-acp-"+uidString())
}

// ScratchSocketRoom is how long a path below a session's scratch folder
// may be and still name a UNIX socket (execute_code's
// "/hermes-exec-NNNNNNNNNN/rpc.sock" is 33 bytes): the sessions' folder
// is chosen so that it fits.
const ScratchSocketRoom = 40

// socketsFit reports whether a session folder under runDir leaves room
// for the sockets: its scratch folder ("/s-" and up to 10 digits, then
// "/scratch") plus ScratchSocketRoom within sun_path's 107 bytes.
func socketsFit(runDir string) bool {
	return len(runDir)+len("/s-0123456789/scratch")+ScratchSocketRoom <= 107
}

// cacheDirs are the toolchains' caches: ~/.cache (or $XDG_CACHE_HOME),
// npm's and pip's caches and Go's module and build caches.
func (s *Sandbox) defaultDirs() []string {
	home := s.home()
	var dirs []string
	cache := s.getenv("XDG_CACHE_HOME")
	if cache == "" && home != "" {
		cache = filepath.Join(home, ".cache")
	}
	dirs = append(dirs, cache)
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".npm"), filepath.Join(home, "go", "pkg", "mod"))
	}
	for _, k := range []string{"npm_config_cache", "PIP_CACHE_DIR", "GOMODCACHE", "GOCACHE"} {
		dirs = append(dirs, s.getenv(k))
	}
	dirs = append(dirs, s.goCaches()...)
	return dirs
}

// mustExist are the caches a sandbox creates when missing, so that the
// tools that would create them on first use (go build) work inside it,
// where their parent may be read-only.
func (s *Sandbox) mustExist() []string {
	var out []string
	home := s.home()
	if cache := s.getenv("XDG_CACHE_HOME"); cache != "" {
		out = append(out, cache)
	} else if home != "" {
		out = append(out, filepath.Join(home, ".cache"))
	}
	return append(out, s.goCaches()...)
}

// goCaches returns the go command's module and build caches as it finds
// them (GOMODCACHE, GOCACHE: the environment, else its go env file, else
// $GOPATH/pkg/mod and the user cache folder's go-build), without running
// it: `go env` costs a process start and tens of MB at a session's first
// command.
func (s *Sandbox) goCaches() []string {
	// The go command finds its caches from the environment commands run
	// with, which is this process's.
	home := s.getenv("HOME")
	if home == "" {
		home = s.home()
	}
	file := map[string]string{}
	envFile := s.getenv("GOENV")
	if envFile == "" {
		if cfg := s.getenv("XDG_CONFIG_HOME"); cfg != "" {
			envFile = filepath.Join(cfg, "go", "env")
		} else if h := home; h != "" {
			envFile = filepath.Join(h, ".config", "go", "env")
		}
	}
	if envFile != "" && envFile != "off" {
		if b, err := os.ReadFile(envFile); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
					file[k] = strings.TrimSpace(v)
				}
			}
		}
	}
	get := func(k string) string {
		if v := s.getenv(k); v != "" {
			return v
		}
		return file[k]
	}
	var dirs []string
	if mod := get("GOMODCACHE"); mod != "" {
		dirs = append(dirs, mod)
	} else if gp := get("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod"))
	} else if h := home; h != "" {
		dirs = append(dirs, filepath.Join(h, "go", "pkg", "mod"))
	}
	if c := get("GOCACHE"); c != "" && c != "off" {
		dirs = append(dirs, c)
	} else if xdg := s.getenv("XDG_CACHE_HOME"); xdg != "" {
		dirs = append(dirs, filepath.Join(xdg, "go-build"))
	} else if h := home; h != "" {
		dirs = append(dirs, filepath.Join(h, ".cache", "go-build"))
	}
	return dirs
}

// SandboxHint is added to the result of a failed sandboxed command whose
// output shows a refused write, so the model can act on it.
const SandboxHint = "The sandbox (terminal.sandbox) lets commands write only inside the workspace, " +
	"the temporary directory and the toolchains' caches; a \"Permission denied\", \"Read-only file system\" or \"Operation not permitted\" " +
	"on a path outside them comes from it. Write inside the workspace instead, or ask the user to add the " +
	"folder to terminal.sandbox_writable in config.yaml (or to set terminal.sandbox: off)."

// LooksRefused reports whether output shows a write refused by the
// sandbox (EACCES, EPERM or EROFS).
func LooksRefused(output string) bool {
	for _, s := range []string{"Permission denied", "permission denied", "Operation not permitted", "operation not permitted",
		"Read-only file system", "read-only file system"} {
		if strings.Contains(output, s) {
			return true
		}
	}
	return false
}

// NetworkHint is added to the result of a failed command that ran without
// the network and whose output looks like it needed it.
const NetworkHint = "Commands run in a sandbox without network (only the session's own loopback). " +
	"If this command needs the network, run it again with network=true: the user is asked to allow it."

// CredentialsHint is added to the result of a failed command that ran
// without the credentials and whose output looks like it needed them.
const CredentialsHint = "The sandbox hides the credential folders (~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc, ~/.git-credentials …) from commands. " +
	"If this command needs them, run it again with credentials=true (and network=true): the user is asked to allow it."

// LooksOffline reports whether output shows a command failing for want of
// the network: name resolution, unreachable networks, refused or timed
// out connections to other hosts.
func LooksOffline(output string) bool {
	return containsAny(strings.ToLower(output), []string{
		"could not resolve host", "temporary failure in name resolution", "name or service not known",
		"network is unreachable", "no address associated with hostname", "getaddrinfo", "enotfound", "eai_again",
		"failed to resolve", "nodename nor servname", "dial tcp: lookup", "no such host", "could not resolve hostname",
		"failed to establish a new connection", "connection timed out", "network unreachable",
		"unable to resolve host", "unable to access 'http",
	})
}

// LooksUnauthenticated reports whether output shows a command failing for
// want of the user's credentials.
func LooksUnauthenticated(output string) bool {
	return containsAny(strings.ToLower(output), []string{
		"permission denied (publickey", "could not read username", "could not read password",
		"authentication failed", "unable to locate credentials", "no credentials", "not logged in",
		"you are not logged in", "gh auth login", "need to authenticate",
		"host key verification failed", "could not open a connection to your authentication agent",
	})
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// uidString is this process's user id.
func uidString() string { return strconv.Itoa(os.Getuid()) }
