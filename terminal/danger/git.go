package danger

import (
	"path"
	"strings"
)

// gitArgs returns the index in raw (a view's raw words, raw[0] being git)
// of git's subcommand, skipping git's own options, and the values of its
// -c options; sub is -1 when there is none.
func gitArgs(raw []string) (sub int, configs []string) {
	for i := 1; i < len(raw); i++ {
		a := clean(raw[i])
		switch {
		case a == "-c" && i+1 < len(raw):
			configs = append(configs, raw[i+1])
			i++
		case strings.HasPrefix(a, "-c") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			configs = append(configs, raw[i][2:])
		case strings.HasPrefix(a, "--config-env="):
			configs = append(configs, unknownText(a))
		case (a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--super-prefix" || a == "--config-env") && i+1 < len(raw):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return i, configs
		}
	}
	return -1, configs
}

// gitSensitive are the subcommands whose arguments decide their danger: a
// computed argument hides what they do.
var gitSensitive = map[string]bool{
	"push": true, "reset": true, "checkout": true, "restore": true, "clean": true, "branch": true,
	"stash": true, "switch": true, "config": true, "rebase": true, "submodule": true, "filter-branch": true,
	"bisect": true, "clone": true, "fetch": true, "pull": true, "ls-remote": true, "archive": true,
	"worktree": true, "gc": true, "reflog": true, "update-ref": true, "rm": true, "difftool": true, "mergetool": true,
}

// gitView applies the walk's rules to a git command: a computed subcommand
// or option hides what git does; the commands git is configured (-c, git
// config, --upload-pack …) to run are read as scripts.
func (w *walker) gitView(v *view) {
	sub, configs := gitArgs(v.raw)
	for _, kv := range configs {
		if !isStatic(kv) {
			w.c.found(KeyHidden)
			continue
		}
		k, val, _ := strings.Cut(kv, "=")
		w.gitConfigValue(strings.ToLower(k), val)
	}
	if sub < 0 {
		return
	}
	if !isStatic(v.raw[sub]) {
		w.c.found(KeyHidden)
		return
	}
	name := strings.ToLower(v.words[sub])
	rest := v.raw[sub+1:]
	if gitSensitive[name] && anyUnknown(rest) {
		w.c.found(KeyHidden)
	}
	words := cleanAll(rest)
	switch name {
	case "config":
		if k, val, ok := gitConfigSet(words); ok {
			w.gitConfigValue(strings.ToLower(k), val)
		}
	}
	for _, opt := range []string{"--upload-pack", "--receive-pack", "--exec", "-u"} {
		args := v.raw[1:] // git takes these after its subcommand, and bad ones anywhere
		if opt == "-u" && name != "clone" || opt == "--exec" && name != "push" && name != "archive" {
			args = nil
		}
		for _, val := range optionValues(args, opt) {
			w.script(payload{text: val})
		}
	}
	for _, a := range words {
		if ext, ok := strings.CutPrefix(a, "ext::"); ok {
			w.script(payload{text: ext})
		}
	}
}

// gitConfigValue reads the value of a configuration key that runs a
// program as the script it is (an alias's "!…" is one; any other alias is a
// git command line).
func (w *walker) gitConfigValue(key, val string) {
	if !gitProgramKey(key) {
		return
	}
	switch {
	case strings.HasPrefix(key, "alias."):
		if s, ok := strings.CutPrefix(strings.TrimSpace(val), "!"); ok {
			w.script(payload{text: s})
		} else {
			w.script(payload{text: "git " + val})
		}
	case key == "core.hookspath" || strings.HasSuffix(key, ".path") || key == "init.templatedir":
		// a folder of hooks or a configuration file to include: what it
		// runs is not in the command
	default:
		w.script(payload{text: val})
	}
}

// gitConfigSet returns the key and value a git config command sets (git
// config [scope options] key value, git config set key value, --add).
func gitConfigSet(args []string) (key, val string, ok bool) {
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file" || a == "--blob" || a == "--type" || a == "--default" || a == "--comment" || a == "--value":
			i++
		case strings.HasPrefix(a, "-"):
			if a == "--unset" || a == "--unset-all" || a == "--get" || a == "--get-all" || a == "--list" || a == "-l" || a == "--get-regexp" || a == "--remove-section" || a == "--rename-section" {
				return "", "", false
			}
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 0 && (ops[0] == "set" || ops[0] == "get" || ops[0] == "unset" || ops[0] == "list") {
		if ops[0] != "set" {
			return "", "", false
		}
		ops = ops[1:]
	}
	if len(ops) == 1 {
		if k, v, found := strings.Cut(ops[0], "="); found && strings.Contains(k, ".") {
			return k, v, true // git -c style is not git config's, but cheap to read
		}
		return "", "", false
	}
	if len(ops) < 2 {
		return "", "", false
	}
	return ops[0], ops[1], true
}

// gitProgramKey reports a configuration key whose value git runs (or
// which points git at hooks, templates or more configuration).
func gitProgramKey(key string) bool {
	key = strings.ToLower(key)
	switch key {
	case "core.sshcommand", "core.pager", "core.editor", "core.hookspath", "core.fsmonitor", "core.gitproxy",
		"core.askpass", "credential.helper", "diff.external", "sequence.editor", "gpg.program",
		"interactive.difffilter", "uploadpack.packobjectshook", "include.path", "init.templatedir",
		"protocol.ext.allow", "protocol.allow", "receive.procreceiverefs", "core.attributesfile":
		return true
	}
	parts := strings.Split(key, ".")
	first, last := parts[0], parts[len(parts)-1]
	switch {
	case first == "alias" && len(parts) >= 2:
		return true
	case first == "pager" && len(parts) >= 2:
		return true
	case len(parts) >= 3:
		switch first + "." + last {
		case "credential.helper", "diff.textconv", "diff.command", "difftool.cmd", "mergetool.cmd",
			"merge.driver", "filter.clean", "filter.smudge", "filter.process", "gpg.program",
			"remote.uploadpack", "remote.receivepack", "includeif.path", "url.insteadof":
			return first+"."+last != "url.insteadof"
		}
	}
	return false
}

// gitRunsProgram is the rule for git configuration and options that run
// programs: -c or git config of such a key, --upload-pack, --receive-pack,
// push --exec, clone -u, ext:: remotes.
func gitRunsProgram(v *view) bool {
	if v.name() != "git" {
		return false
	}
	sub, configs := gitArgs(v.raw)
	for _, kv := range configs {
		k, val, _ := strings.Cut(clean(kv), "=")
		if gitProgramKey(k) && (!strings.HasPrefix(strings.ToLower(k), "alias.") || strings.HasPrefix(strings.TrimSpace(val), "!")) {
			return true
		}
	}
	var rest []string
	name := ""
	if sub > 0 {
		name, rest = strings.ToLower(v.words[sub]), v.words[sub+1:]
	}
	switch name {
	case "config":
		if k, _, ok := gitConfigSet(rest); ok && gitProgramKey(k) {
			return true
		}
	case "clone":
		if len(optionValues(rest, "-u")) > 0 || len(optionValues(rest, "--template")) > 0 {
			return true
		}
	case "push", "archive":
		if len(optionValues(rest, "--exec")) > 0 {
			return true
		}
	}
	for _, a := range v.words[1:] {
		if strings.HasPrefix(a, "--upload-pack") || strings.HasPrefix(a, "--receive-pack") || strings.HasPrefix(a, "ext::") {
			return true
		}
	}
	return false
}

// gitForcePush is the rule for pushes that rewrite or delete remote
// history, in every spelling: --force, -f (alone or in a bundle),
// --force-with-lease, --force-if-includes, --mirror, --delete, -d, --prune,
// and refspecs +ref and :ref.
func gitForcePush(v *view) bool {
	if v.name() != "git" {
		return false
	}
	sub, _ := gitArgs(v.raw)
	if sub < 0 || strings.ToLower(v.words[sub]) != "push" {
		return false
	}
	operands := 0
	args := v.words[sub+1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, r := range args[i+1:] {
				operands++
				if operands > 1 && (strings.HasPrefix(r, "+") || strings.HasPrefix(r, ":")) {
					return true
				}
			}
			return false
		case strings.HasPrefix(a, "--"):
			opt, _, _ := strings.Cut(a, "=")
			switch opt {
			case "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune":
				return true
			case "--repo", "--receive-pack", "--exec", "--push-option", "--signed":
				if !strings.Contains(a, "=") && opt != "--signed" {
					i++
				}
			}
			if strings.HasPrefix(opt, "--forc") {
				return true
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'f', 'd':
					return true
				case 'o':
					if j == len(a)-1 {
						i++
					}
					j = len(a)
				}
			}
		default:
			operands++
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") {
				return true
			}
		}
	}
	return false
}

// gitDiscard is the rule for git commands that throw away uncommitted
// work: checkout of paths (git checkout -- ., git checkout main file.go,
// -f), restore of the working tree, switch -f / --discard-changes, stash
// drop and clear, reset --merge, worktree remove --force.
func gitDiscard(v *view) bool {
	if v.name() != "git" {
		return false
	}
	sub, _ := gitArgs(v.raw)
	if sub < 0 {
		return false
	}
	args := v.words[sub+1:]
	switch strings.ToLower(v.words[sub]) {
	case "checkout":
		var operands []string
		creates := false
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				return i+1 < len(args)
			case a == "-f" || a == "--force" || a == "--ours" || a == "--theirs" || a == "-p" || a == "--patch" || a == "--pathspec-from-file" || strings.HasPrefix(a, "--pathspec-from-file="):
				return true
			case a == "-b" || a == "-B" || a == "--orphan":
				creates = true
				i++
			case strings.HasPrefix(a, "-"):
				if len(a) > 1 && a[1] != '-' && strings.ContainsRune(a, 'f') {
					return true
				}
			default:
				operands = append(operands, a)
			}
		}
		for _, o := range operands {
			if o == "." || strings.HasPrefix(o, "./") || strings.HasPrefix(o, ":/") || o == ":" || strings.HasPrefix(o, "*") {
				return true
			}
		}
		return !creates && len(operands) >= 2
	case "restore":
		staged, worktree := false, false
		for _, a := range args {
			switch {
			case a == "--":
				break
			case a == "-S" || a == "--staged":
				staged = true
			case a == "-W" || a == "--worktree":
				worktree = true
			case strings.HasPrefix(a, "-") && len(a) > 2 && a[1] != '-':
				staged = staged || strings.ContainsRune(a, 'S')
				worktree = worktree || strings.ContainsRune(a, 'W')
			}
		}
		return worktree || !staged
	case "switch":
		for _, a := range args {
			if a == "-f" || a == "--force" || a == "--discard-changes" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'f') {
				return true
			}
		}
	case "stash":
		op := skipOptions(args, "", nil)
		return len(op) > 0 && (op[0] == "drop" || op[0] == "clear")
	case "reset":
		for _, a := range args {
			if a == "--merge" {
				return true
			}
		}
	case "worktree":
		if len(args) > 0 && args[0] == "remove" {
			for _, a := range args[1:] {
				if a == "-f" || a == "--force" {
					return true
				}
			}
		}
	}
	return false
}

// gitMetaPath reports a path that makes git run something: anything
// under a repository's .git/hooks (also of submodules), its config file,
// and the user's ~/.gitconfig and ~/.config/git/config.
func gitMetaPath(p string) bool {
	if !strings.Contains(p, "git") {
		return false
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if path.Base(p) == ".gitconfig" || strings.HasSuffix(p, ".config/git/config") {
		return true // the user's git configuration
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if part != ".git" {
			continue
		}
		rest := parts[i+1:]
		for j, r := range rest {
			if r == "hooks" || r == "config" && j == len(rest)-1 || r == "config.worktree" && j == len(rest)-1 {
				return true
			}
		}
	}
	return false
}
