package danger

import (
	"strings"
)

// Read-only classification (issue #28, plan mode). A command is read-only
// when everything it runs is known to change nothing: every simple command
// the walk finds — in pipelines, lists, substitutions, loops, behind the
// wrappers it looks through — is a program of readOnlyPrograms whose
// arguments keep it so, no redirection writes a file (/dev/null aside), no
// code is handed to a shell or an interpreter, no assignment or declaration
// changes the environment of what runs, and no rule asks. Anything else —
// an unknown program, a computed argument where the arguments decide, a
// script the check cannot read — is not read-only: the classification
// fails closed, like the rest of the check.

// notReadOnly records that the command may change something.
func (c *check) notReadOnly() { c.mutates = true }

// readOnlyViews reports whether every view of one simple command (the
// wrappers and the command they run) is read-only.
func readOnlyViews(views [][]string) bool {
	for _, raw := range views {
		if len(raw) == 0 || !readOnlyView(raw) {
			return false
		}
	}
	return true
}

// readOnlyView judges one command's words (with the walk's markers).
func readOnlyView(raw []string) bool {
	if !isStatic(raw[0]) {
		return false // a computed program
	}
	word := clean(raw[0])
	if strings.Contains(word, "/") && !systemProgram(word) {
		return false // a program of the workspace (./cat) may be anything
	}
	name := commandName(word)
	vet, ok := readOnlyPrograms[name]
	if !ok {
		return false
	}
	if vet == nil {
		return true // its arguments are only read
	}
	for _, a := range raw[1:] {
		if !isStatic(a) {
			return false // a computed argument where the arguments decide
		}
	}
	return vet(cleanAll(raw[1:]))
}

// systemProgram reports an absolute path into the system's program
// folders, where /usr/bin/git is git.
func systemProgram(p string) bool {
	for _, dir := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/"} {
		if rest, ok := strings.CutPrefix(p, dir); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

// readOnlyPrograms are the programs that only read: nil accepts any
// arguments; a function accepts the (static, cleaned) arguments that keep
// the program read-only. Wrappers the walk looks through (time, nice,
// timeout, command, xargs …) are here too: the command they run is a view
// of its own and judged by itself.
var readOnlyPrograms = map[string]func(args []string) bool{
	// looking at files and folders
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "file": nil, "stat": nil,
	"du": nil, "df": nil, "tree": noOption("-o"), "realpath": nil, "readlink": nil, "basename": nil, "dirname": nil,
	"nl": nil, "od": nil, "hexdump": nil, "strings": nil, "tac": nil, "rev": nil,
	"md5sum": nil, "sha1sum": nil, "sha256sum": nil, "sha512sum": nil, "b2sum": nil, "cksum": nil,
	// searching
	"grep": nil, "egrep": nil, "fgrep": nil, "ag": nil, "rg": noOption("--pre", "--pre-glob"),
	"find": findReadOnly, "fd": noOption("-x", "-X", "--exec", "--exec-batch"), "fdfind": noOption("-x", "-X", "--exec", "--exec-batch"),
	"which": nil, "whereis": nil, "type": nil,
	// comparing and filtering text
	"diff": nil, "cmp": nil, "comm": nil, "cut": nil, "tr": nil, "fold": nil, "column": nil, "paste": nil,
	"expand": nil, "unexpand": nil, "jq": nil, "seq": nil,
	"sort": noOption("-o", "--output"), "uniq": atMostOperands(1),
	// the shell's own harmless builtins
	"echo": nil, "printf": nil, "true": nil, "false": nil, ":": nil, "test": nil, "[": nil,
	"pwd": nil, "cd": nil, "pushd": nil, "popd": nil, "dirs": nil, "sleep": nil,
	// the machine
	"whoami": nil, "id": nil, "uname": nil, "nproc": nil, "uptime": nil, "printenv": nil, "ps": nil, "free": nil,
	"date": noOption("-s", "--set"), "hostname": atMostOperands(0), "env": atMostOperands(0),
	// wrappers (the command they run is judged on its own)
	"time": noOption("-o", "--output", "-a", "--append"), "nice": nil, "timeout": nil, "command": nil,
	"builtin": nil, "stdbuf": nil, "exec": nil, "xargs": nil,
	// tools
	"git": gitReadOnly, "go": goReadOnly,
}

// noOption accepts arguments that use none of the given options: a long
// one as a word or --opt=value, a short one (-o) anywhere in a bundle of
// short options (-ro, -oFILE), which may refuse a harmless bundle but
// never misses the option.
func noOption(opts ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			if a == "--" {
				return true
			}
			for _, o := range opts {
				long := strings.HasPrefix(o, "--")
				switch {
				case long && (a == o || strings.HasPrefix(a, o+"=")):
					return false
				case !long && len(a) > 1 && a[0] == '-' && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], o[1:]):
					return false
				}
			}
		}
		return true
	}
}

// atMostOperands accepts at most n operands (uniq's second names the file
// it writes; hostname's first sets the name).
func atMostOperands(n int) func([]string) bool {
	return func(args []string) bool {
		count := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") || a == "-" {
				count++
			}
		}
		return count <= n
	}
}

// findReadOnly accepts a find that runs nothing and deletes or writes no
// file.
func findReadOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
	}
	return true
}

// gitReadOnly accepts the git commands that only look: status, log,
// diff, show and the like, and the listing forms of branch, tag, remote,
// config, stash, reflog, worktree, notes and symbolic-ref. Git's own
// options may only pick the repository (-C, --git-dir, --work-tree) or
// turn the pager off; -c and --exec-path can make git run anything.
func gitReadOnly(args []string) bool {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--git-dir" || a == "--work-tree":
			i++
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
		case a == "--no-pager" || a == "-P" || a == "--no-optional-locks" || a == "--literal-pathspecs" || a == "--bare":
		case strings.HasPrefix(a, "-"):
			return false
		default:
			return gitSubReadOnly(strings.ToLower(a), args[i+1:])
		}
	}
	return true // git alone prints its usage
}

// gitLooking are the git subcommands that only read, whatever their
// arguments (but an --output file).
var gitLooking = map[string]bool{
	"status": true, "log": true, "show": true, "diff": true, "blame": true, "annotate": true, "rev-parse": true,
	"ls-files": true, "ls-tree": true, "cat-file": true, "describe": true, "shortlog": true, "grep": true,
	"rev-list": true, "for-each-ref": true, "merge-base": true, "name-rev": true, "count-objects": true,
	"version": true, "whatchanged": true, "show-ref": true, "cherry": true, "range-diff": true,
	"check-ignore": true, "check-attr": true, "var": true, "verify-commit": true, "verify-tag": true,
	"show-branch": true, "diff-tree": true, "diff-files": true, "diff-index": true, "help": true,
}

func gitSubReadOnly(sub string, args []string) bool {
	for _, a := range args {
		if a == "--output" || strings.HasPrefix(a, "--output=") || a == "--open-files-in-pager" ||
			strings.HasPrefix(a, "--open-files-in-pager=") || sub == "grep" && strings.HasPrefix(a, "-O") {
			return false // writes a file, or runs a pager program
		}
	}
	if gitLooking[sub] {
		return true
	}
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch sub {
	case "branch":
		return gitBranchListing(args)
	case "tag":
		return len(args) == 0 || hasAny(args, "-l", "--list", "-v", "--verify") && !hasAny(args, "-d", "--delete", "-a", "--annotate", "-s", "--sign", "-f", "--force", "-m", "-F", "-u", "-e", "--edit")
	case "remote":
		return len(args) == 0 || first == "-v" || first == "--verbose" || first == "get-url" || first == "show"
	case "config":
		return (hasAny(args, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l") || first == "get" || first == "list") &&
			!hasAny(args, "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit")
	case "stash":
		return first == "list" || first == "show"
	case "reflog":
		return first != "expire" && first != "delete"
	case "worktree":
		return first == "list"
	case "notes":
		return len(args) == 0 || first == "list" || first == "show"
	case "symbolic-ref":
		return atMostOperands(1)(args) && !hasAny(args, "-d", "--delete")
	}
	return false
}

// gitBranchListing accepts git branch's listing forms: list options only,
// or patterns after --list.
func gitBranchListing(args []string) bool {
	list, operands := false, 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-l" || a == "--list":
			list = true
		case a == "-a" || a == "--all" || a == "-r" || a == "--remotes" || a == "-v" || a == "-vv" || a == "--verbose" ||
			a == "--show-current" || a == "--color" || a == "--no-color" || a == "--column" || a == "--no-column" ||
			a == "-i" || a == "--ignore-case" || a == "--omit-empty":
		case a == "--contains" || a == "--no-contains" || a == "--merged" || a == "--no-merged" || a == "--points-at" ||
			a == "--sort" || a == "--format":
			list = true
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++ // the commit or the key
			}
		case strings.HasPrefix(a, "--color=") || strings.HasPrefix(a, "--column=") || strings.HasPrefix(a, "--abbrev=") ||
			strings.HasPrefix(a, "--contains=") || strings.HasPrefix(a, "--no-contains=") || strings.HasPrefix(a, "--merged=") ||
			strings.HasPrefix(a, "--no-merged=") || strings.HasPrefix(a, "--points-at=") || strings.HasPrefix(a, "--sort=") ||
			strings.HasPrefix(a, "--format="):
			list = true
		case strings.HasPrefix(a, "-"):
			return false // -d, -m, -c, -f, -u, --set-upstream-to …
		default:
			operands++
		}
	}
	return operands == 0 || list
}

// goReadOnly accepts go version, go env (without -w or -u), go doc and
// go list (without the flags that build or run programs).
func goReadOnly(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "version", "doc", "help":
		return true
	case "env":
		return !hasAny(args[1:], "-w", "-u")
	case "list":
		for _, a := range args[1:] {
			for _, bad := range []string{"-toolexec", "-exec", "-export", "-compiled", "-overlay"} {
				if a == bad || strings.HasPrefix(a, bad+"=") {
					return false
				}
			}
		}
		return true
	}
	return false
}

// hasAny reports whether args holds one of opts.
func hasAny(args []string, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a == o {
				return true
			}
		}
	}
	return false
}
