package danger

import (
	"net/url"
	"strings"
)

// Needs are what a command asks of the terminal sandbox beyond what every
// command gets: the machine's network (sandboxed commands have none) and
// the credential places (~/.ssh, ~/.aws, …, hidden from them). The check
// names the needs of the programs whose whole job is talking to the
// network or signing in (git push, npm install, curl to a remote host,
// ssh, gh, aws …) so that the user is asked before the command runs rather
// than after it failed. It is a convenience, not a boundary: the sandbox
// refuses what was not granted whatever this finds, and a command can
// always ask for more itself (the terminal tool's network and credentials
// arguments).
type Needs struct {
	Network     bool
	Credentials bool
}

// Any reports whether n asks for anything.
func (n Needs) Any() bool { return n.Network || n.Credentials }

// Or returns what n or o asks for.
func (n Needs) Or(o Needs) Needs {
	return Needs{Network: n.Network || o.Network, Credentials: n.Credentials || o.Credentials}
}

var (
	netOnly  = Needs{Network: true}
	netCreds = Needs{Network: true, Credentials: true}
)

// subcommandNeeds are the subcommands of package managers and version
// control that fetch or publish ("" matches the program without one: yarn
// alone installs).
var subcommandNeeds = map[string]map[string]Needs{
	"git": {"clone": netOnly, "fetch": netOnly, "pull": netOnly, "push": netCreds, "ls-remote": netOnly,
		"submodule": netOnly, "remote": netOnly},
	"npm":      {"install": netOnly, "i": netOnly, "ci": netOnly, "add": netOnly, "update": netOnly, "upgrade": netOnly, "outdated": netOnly, "view": netOnly, "info": netOnly, "audit": netOnly, "publish": netCreds, "login": netCreds, "exec": netOnly, "create": netOnly, "init": netOnly},
	"pnpm":     {"install": netOnly, "i": netOnly, "add": netOnly, "update": netOnly, "up": netOnly, "outdated": netOnly, "publish": netCreds, "dlx": netOnly, "create": netOnly, "fetch": netOnly},
	"yarn":     {"": netOnly, "install": netOnly, "add": netOnly, "upgrade": netOnly, "up": netOnly, "outdated": netOnly, "publish": netCreds, "dlx": netOnly, "create": netOnly},
	"bun":      {"install": netOnly, "i": netOnly, "add": netOnly, "update": netOnly, "publish": netCreds, "create": netOnly, "x": netOnly},
	"pip":      {"install": netOnly, "download": netOnly, "wheel": netOnly, "index": netOnly},
	"uv":       {"sync": netOnly, "add": netOnly, "lock": netOnly, "pip": netOnly, "tool": netOnly, "python": netOnly, "publish": netCreds},
	"pipx":     {"install": netOnly, "run": netOnly, "upgrade": netOnly, "inject": netOnly},
	"poetry":   {"install": netOnly, "add": netOnly, "update": netOnly, "lock": netOnly, "publish": netCreds},
	"go":       {"get": netOnly, "mod": netOnly},
	"cargo":    {"install": netOnly, "fetch": netOnly, "update": netOnly, "add": netOnly, "search": netOnly, "publish": netCreds, "login": netCreds},
	"gem":      {"install": netOnly, "update": netOnly, "push": netCreds, "fetch": netOnly},
	"bundle":   {"": netOnly, "install": netOnly, "update": netOnly},
	"composer": {"install": netOnly, "require": netOnly, "update": netOnly, "create-project": netOnly},
	"apt":      {"install": netOnly, "update": netOnly, "upgrade": netOnly, "full-upgrade": netOnly, "download": netOnly},
	"apt-get":  {"install": netOnly, "update": netOnly, "upgrade": netOnly, "dist-upgrade": netOnly, "download": netOnly, "source": netOnly},
	"dnf":      {"install": netOnly, "update": netOnly, "upgrade": netOnly, "makecache": netOnly},
	"yum":      {"install": netOnly, "update": netOnly, "makecache": netOnly},
	"apk":      {"add": netOnly, "update": netOnly, "upgrade": netOnly, "fetch": netOnly},
	"brew":     {"install": netOnly, "update": netOnly, "upgrade": netOnly, "fetch": netOnly, "tap": netOnly},
	"twine":    {"upload": netCreds},
	"terraform": {"init": netCreds, "plan": netCreds, "apply": netCreds, "destroy": netCreds, "import": netCreds,
		"refresh": netCreds, "login": netCreds},
}

// programNeeds are programs that need the network, and the credentials,
// whatever their arguments.
var programNeeds = map[string]Needs{
	"ssh": netCreds, "scp": netCreds, "sftp": netCreds, "ssh-copy-id": netCreds,
	"gh": netCreds, "glab": netCreds, "hub": netCreds,
	"aws": netCreds, "gcloud": netCreds, "gsutil": netCreds, "bq": netCreds, "az": netCreds,
	"kubectl": netCreds, "helm": netCreds, "doctl": netCreds, "flyctl": netCreds, "heroku": netCreds,
	"vercel": netCreds, "netlify": netCreds, "wrangler": netCreds,
	"ping": netOnly, "ping6": netOnly, "dig": netOnly, "nslookup": netOnly, "host": netOnly, "traceroute": netOnly,
	"whois": netOnly,
}

// urlClients are programs that fetch the URLs they are given: they need the
// network unless every URL is on the loopback (which, for a sandboxed
// command, is the session's own: a server another of its commands runs).
var urlClients = map[string]bool{"curl": true, "wget": true, "aria2c": true, "xh": true, "httpie": true, "lynx": true, "w3m": true}

// needsOf returns what the simple command v needs.
func needsOf(v *view) Needs {
	name := v.name()
	args := v.args()
	if n, ok := programNeeds[name]; ok {
		return n
	}
	if urlClients[name] {
		for _, a := range args {
			if remoteURL(a) {
				return netOnly
			}
		}
		return Needs{}
	}
	if name == "rsync" {
		for _, a := range args {
			if remoteRsync(a) {
				return netCreds
			}
		}
		return Needs{}
	}
	if name == "python" || name == "python3" || strings.HasPrefix(name, "python3.") {
		// python -m pip install …
		for i, a := range args {
			if a == "-m" && i+1 < len(args) {
				name, args = args[i+1], args[i+2:]
				break
			}
		}
	}
	if name == "pip3" {
		name = "pip"
	}
	subs, ok := subcommandNeeds[name]
	if !ok {
		return Needs{}
	}
	sub, rest := subcommand(name, args)
	n, ok := subs[sub]
	if !ok {
		if name == "go" && (sub == "install" || sub == "run") && anyVersioned(rest) {
			return netOnly // go install pkg@version
		}
		return Needs{}
	}
	switch {
	case name == "go" && sub == "mod":
		if s, _ := subcommand(name, rest); s != "download" && s != "tidy" && s != "why" && s != "graph" {
			return Needs{}
		}
	case name == "git" && sub == "remote":
		if s, _ := subcommand(name, rest); s != "update" && s != "prune" && s != "show" {
			return Needs{}
		}
	case name == "git" && (sub == "clone" || sub == "fetch" || sub == "pull"):
		for _, a := range rest {
			if sshURL(a) {
				return netCreds
			}
		}
	}
	return n
}

// subcommand returns the first argument that is not an option (skipping
// the values of git's -C and -c), and the arguments after it.
func subcommand(name string, args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name == "git" && (a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree") {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a, args[i+1:]
	}
	return "", nil
}

// anyVersioned reports a Go package argument with a version (pkg@v1).
func anyVersioned(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && strings.Contains(a, "@") {
			return true
		}
	}
	return false
}

// remoteURL reports an argument that names a URL (or a bare host and path)
// outside the loopback.
func remoteURL(a string) bool {
	if strings.HasPrefix(a, "-") || a == "" {
		return false
	}
	s := a
	if !strings.Contains(s, "://") {
		// curl example.com/x: a host-looking first part.
		host, _, _ := strings.Cut(s, "/")
		if !strings.Contains(host, ".") && !strings.HasPrefix(host, "localhost") {
			return false
		}
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return false
	}
	if u.Scheme == "file" {
		return false
	}
	return !loopbackHost(u.Hostname())
}

// loopbackHost reports a host name or address of the loopback.
func loopbackHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasPrefix(h, "127.") || h == "::1" || h == "0.0.0.0"
}

// remoteRsync reports an rsync argument naming another host (host:path,
// user@host:path, rsync://).
func remoteRsync(a string) bool {
	if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "/") || strings.HasPrefix(a, ".") {
		return false
	}
	if strings.HasPrefix(a, "rsync://") {
		return true
	}
	host, _, ok := strings.Cut(a, ":")
	return ok && host != "" && !strings.Contains(host, "/")
}

// sshURL reports a git URL that goes over SSH (git@host:repo, ssh://).
func sshURL(a string) bool {
	if strings.HasPrefix(a, "ssh://") || strings.HasPrefix(a, "git+ssh://") {
		return true
	}
	if strings.Contains(a, "://") || strings.HasPrefix(a, "-") {
		return false
	}
	at, _, ok := strings.Cut(a, ":")
	return ok && strings.Contains(at, "@") && !strings.Contains(at, "/")
}
