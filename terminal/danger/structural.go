package danger

import "strings"

// hermes's structural rules (kindCmd rules with fn).

func shellDashC(v *view) bool {
	return isShell(v.name()) && hasDashC(v)
}

// interpreterFlags are the options that make an interpreter run code given
// on the command line.
var interpreterFlags = map[string][]string{
	"python": {"-c"}, "node": {"-e", "--eval", "-p", "--print"}, "perl": {"-e", "-E"},
	"ruby": {"-e"}, "php": {"-r"}, "powershell": {"-command", "-c", "-file", "-f", "-encodedcommand"},
	"bun": {"-e", "--eval", "-p", "--print"}, "deno": {"-e", "--eval"}, "lua": {"-e"}, "r": {"-e"},
	"julia": {"-e", "-E"}, "osascript": {"-e"},
}

func interpreterFamily(name string) string {
	switch {
	case name == "python" || strings.HasPrefix(name, "python2") || strings.HasPrefix(name, "python3") || name == "py":
		return "python"
	case name == "node" || name == "nodejs":
		return "node"
	case strings.HasPrefix(name, "perl"):
		return "perl"
	case strings.HasPrefix(name, "ruby"):
		return "ruby"
	case name == "php":
		return "php"
	case strings.TrimSuffix(name, ".exe") == "powershell" || strings.TrimSuffix(name, ".exe") == "pwsh":
		return "powershell"
	case name == "bun" || name == "deno" || name == "osascript" || name == "julia":
		return name
	case name == "lua" || strings.HasPrefix(name, "lua5") || name == "luajit":
		return "lua"
	case name == "rscript" || name == "r":
		return "r"
	}
	return ""
}

func interpreterExec(v *view) bool {
	family := interpreterFamily(v.name())
	if family == "" {
		return false
	}
	flags := interpreterFlags[family]
	if family == "deno" || family == "bun" {
		// deno eval CODE, bun eval? — the first operand names the subcommand
		if op := skipOptions(v.words[1:], "", nil); len(op) > 0 && op[0] == "eval" {
			return true
		}
	}
	for _, a := range v.words[1:] {
		if family == "powershell" {
			a = strings.ToLower(a)
		} else if !strings.HasPrefix(a, "-") || a == "--" {
			return false
		}
		opt, _, _ := strings.Cut(a, "=")
		for _, f := range flags {
			if opt == f {
				return true
			}
		}
		// a short bundle such as python -Bc or perl -ne
		if family != "powershell" && !strings.HasPrefix(a, "--") && len(a) > 2 {
			for _, f := range flags {
				if len(f) == 2 && strings.IndexByte(a[1:], f[1]) >= 0 && family != "python" {
					return true
				}
			}
			if family == "python" && strings.Trim(a[1:], "bBdEhiIOPqsSuvx") == "c" {
				return true
			}
		}
	}
	return false
}

// rmFlagsAfterOperands: GNU rm permutes options, so rm build/ -rf is
// recursive too; "--" ends the options.
func rmFlagsAfterOperands(v *view) bool {
	if v.name() != "rm" {
		return false
	}
	for _, a := range v.words[1:] {
		if a == "--" {
			return false
		}
		if a == "--recursive" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "rR") {
			return true
		}
	}
	return false
}

// gitBranchForceD: git branch -D (case matters here: -d refuses to delete
// an unmerged branch).
func gitBranchForceD(v *view) bool {
	if v.name() != "git" {
		return false
	}
	args := v.words[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if args[0] == "-C" || args[0] == "-c" {
			args = args[1:]
		}
		if len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 || args[0] != "branch" {
		return false
	}
	for _, a := range args[1:] {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'D') >= 0 {
			return true
		}
	}
	return false
}

// sudoOptions returns sudo's own options (before the command it runs).
func sudoOptions(v *view) []string {
	if v.name() != "sudo" {
		return nil
	}
	var opts []string
	args := v.words[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		opts = append(opts, a)
		if !strings.HasPrefix(a, "--") {
			last := a[len(a)-1]
			if len(a) == 2 && strings.IndexByte("uUgGhpCDRrtTc", last) >= 0 {
				i++
			}
		} else if !strings.Contains(a, "=") {
			switch a {
			case "--user", "--group", "--host", "--prompt", "--chdir", "--close-from", "--role", "--type", "--other-user", "--command-timeout":
				i++
			}
		}
	}
	return opts
}

func sudoPrivilegeFlag(v *view) bool {
	for _, o := range sudoOptions(v) {
		lo := strings.ToLower(o)
		if lo == "-s" || lo == "-a" || strings.HasPrefix(lo, "--st") || strings.HasPrefix(lo, "--a") {
			return true
		}
	}
	return false
}

func sudoCombinedFlag(v *view) bool {
	for _, o := range sudoOptions(v) {
		if strings.HasPrefix(o, "--") || len(o) < 3 {
			continue
		}
		for j := 1; j < len(o); j++ {
			c := o[j] | 0x20
			if c == 's' || c == 'a' {
				return true
			}
			if strings.IndexByte("uUgGhpCDRrtTc", o[j]) >= 0 {
				break // the rest is this option's value
			}
		}
	}
	return false
}
