package danger

import (
	"path"
	"strings"
)

// view is one simple command as the rules see it. raw are its words as
// the walk rendered them (markers before what it could not resolve, see
// expand.go); words are the same without the markers, case kept; s is the
// words joined by spaces with the command word reduced to its base name,
// its input redirections appended (bash << EOF, bash < <(curl …)),
// lowercased: what the regexes match.
type view struct {
	raw   []string
	words []string
	s     string
	// env are the assignments before the command (X=1 cmd), rendered.
	env []string
}

func newView(raw []string, in string, env []string) *view {
	v := &view{raw: raw, words: make([]string, len(raw)), env: env}
	for i, r := range raw {
		v.words[i] = clean(r)
	}
	var b strings.Builder
	b.WriteString(path.Base(strings.ReplaceAll(v.words[0], `\`, "/")))
	for _, w := range v.words[1:] {
		b.WriteByte(' ')
		b.WriteString(w)
	}
	if in != "" {
		b.WriteByte(' ')
		b.WriteString(in)
	}
	v.s = strings.ToLower(b.String())
	return v
}

// name is the view's command word, lowercased and without its directory.
func (v *view) name() string { return commandName(v.words[0]) }

// args are the words after the command word.
func (v *view) args() []string { return v.words[1:] }

func commandName(w string) string {
	return strings.ToLower(path.Base(strings.ReplaceAll(clean(w), `\`, "/")))
}

// hiddenName reports a command word whose program is not known: its base
// name holds something computed (a glob, an expansion, a substitution).
// "$(dirname "$0")/x" and "$HOME/bin/x" are the program x; "$X",
// "/usr/bin/$X" and "/bin/r?" are not known.
func hiddenName(raw string) bool {
	if isStatic(raw) {
		return false
	}
	start, depth := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case markUnknown, markData:
			depth++
		case markEnd:
			depth--
		case '/', '\\':
			if depth == 0 {
				start = i + 1
			}
		}
	}
	base := raw[start:]
	return base == "" || !isStatic(base)
}

// payload is a script a command hands to a shell: text is its rendered
// source (markers where it is computed).
type payload struct {
	text string
	// stdin: the shell reads it from its input; exported variables carry
	// into it, the rest of the caller's do not.
	sameShell bool
}

// wrapped returns the views of a simple command: the command itself and,
// for each wrapper it starts with, the command the wrapper runs (sudo, env,
// nohup, setsid, time, nice, timeout, exec, command, builtin, stdbuf,
// ionice, chrt, taskset, busybox, watch, chroot, runuser, strace, flock,
// parallel, xargs, docker/kubectl exec, every find -exec and fd -x).
// Scripts the command hands to a shell (bash -c, eval, su -c, env -S,
// ssh host …, script -c, flock -c) are appended to payloads. Words keep
// their markers.
func wrapped(words []string, payloads *[]payload, depth int) [][]string {
	views := [][]string{words}
	cur := words
	add := func(text string, same bool) { *payloads = append(*payloads, payload{text: text, sameShell: same}) }
	for range 16 {
		if len(cur) == 0 || depth > maxDepth {
			break
		}
		name := commandName(cur[0])
		args := cur[1:]
		var next []string
		switch name {
		case "sudo", "doas":
			next = skipOptions(args, "uUgGhpCDRrtTc", []string{"--user", "--group", "--host", "--prompt", "--chdir", "--close-from", "--role", "--type", "--other-user", "--command-timeout"})
			next = skipAssigns(next)
		case "env":
			next = envCommand(args, payloads)
		case "nohup", "builtin", "busybox", "toybox":
			next = args
		case "npx", "bunx", "pnpx", "uvx":
			next = skipOptions(args, "pc", []string{"--package", "--call"})
			for _, c := range append(optionValues(args, "-c"), optionValues(args, "--call")...) {
				add(c, false)
			}
		case "setsid":
			next = skipOptions(args, "", nil)
		case "time":
			next = skipOptions(args, "fo", []string{"--format", "--output"})
		case "exec":
			next = skipOptions(args, "a", nil)
		case "command":
			for _, a := range args {
				if !strings.HasPrefix(a, "-") {
					break
				}
				if strings.ContainsAny(a, "vV") {
					return views // command -v only looks the name up
				}
			}
			next = skipOptions(args, "", nil)
		case "nice":
			next = skipOptions(args, "n", []string{"--adjustment"})
		case "timeout":
			next = skipOptions(args, "sk", []string{"--signal", "--kill-after"})
			if len(next) > 0 {
				next = next[1:] // the duration
			}
		case "stdbuf":
			next = skipOptions(args, "ioe", []string{"--input", "--output", "--error"})
		case "ionice":
			if hasOption(args, "p", "--pid") {
				return views
			}
			next = skipOptions(args, "cnt", []string{"--class", "--classdata"})
		case "chrt", "taskset":
			if hasOption(args, "p", "--pid") {
				return views
			}
			next = skipOptions(args, "", nil)
			if len(next) > 0 {
				next = next[1:] // the priority or the CPU mask
			}
		case "xargs":
			next = xargsCommand(args)
		case "find":
			for i := 0; i < len(args); i++ {
				switch clean(args[i]) {
				case "-exec", "-execdir", "-ok", "-okdir":
					j := i + 1
					for j < len(args) && clean(args[j]) != ";" && clean(args[j]) != "+" {
						j++
					}
					if j > i+1 {
						views = append(views, wrapped(replaceWord(args[i+1:j], "{}", dataText("{}")), payloads, depth+1)...)
					}
					i = j
				}
			}
			return views
		case "bash", "sh", "zsh", "ksh", "dash":
			if p, ok := shellPayload(args); ok && p != "" {
				add(p, false)
			}
			return views
		case "eval":
			if len(args) > 0 {
				add(strings.Join(args, " "), true)
			}
			return views
		case "chroot":
			next = skipOptions(args, "", []string{"--userspec", "--groups"})
			if len(next) > 0 {
				next = next[1:] // the new root
			}
		case "runuser":
			next = skipOptions(args, "ugGs", []string{"--user", "--group", "--supp-group", "--shell", "--command"})
			for i, a := range args {
				if (a == "-c" || a == "--command") && i+1 < len(args) {
					add(args[i+1], false)
				}
			}
		case "strace", "ltrace":
			next = skipOptions(args, "eoOpPsSuUXbI", []string{"--output", "--attach", "--user", "--trace", "--signal"})
		case "unbuffer", "caffeinate":
			next = skipOptions(args, "w", nil)
		case "flock":
			for i, a := range args {
				if (a == "-c" || a == "--command") && i+1 < len(args) {
					add(args[i+1], false)
					return views
				}
			}
			next = skipOptions(args, "wEn", []string{"--timeout", "--conflict-exit-code"})
			if len(next) > 0 {
				next = next[1:] // the lock file
			}
		case "parallel":
			// parallel [options] command ::: arguments
			rest := skipOptions(args, "jSIaCdEnNPsL", []string{"--jobs", "--sshlogin", "--arg-file", "--colsep", "--delimiter", "--max-args", "--max-lines", "--joblog", "--results", "--tmpdir", "--workdir"})
			i := indexOf(rest, ":::")
			if i < 0 {
				// the inputs come from a file or the standard input: each is
				// appended unseen
				cmd := strings.Join(rest, " ")
				if i = indexOf(rest, "::::"); i >= 0 {
					cmd = strings.Join(rest[:i], " ")
				}
				add(cmd+" "+unknownText("{}"), false)
				return views
			}
			// parallel runs the command, each input appended (or put at
			// {}), through the shell
			for _, in := range rest[i+1:] {
				if in == ":::" || len(*payloads) > 64 {
					continue
				}
				if i == 0 {
					add(in, false) // no command: each input is one
					continue
				}
				cmd := strings.Join(rest[:i], " ")
				if strings.Contains(cmd, "{}") {
					add(strings.ReplaceAll(cmd, "{}", in), false)
				} else {
					add(cmd+" "+in, false)
				}
			}
			return views
		case "fd", "fdfind":
			// fd … -x|-X|--exec|--exec-batch command [args] [;]
			for i, a := range args {
				if a == "-x" || a == "-X" || a == "--exec" || a == "--exec-batch" {
					j := i + 1
					for j < len(args) && args[j] != ";" {
						j++
					}
					if j > i+1 {
						views = append(views, wrapped(replaceWord(args[i+1:j], "{}", dataText("{}")), payloads, depth+1)...)
					}
				}
			}
			return views
		case "watch":
			// watch runs its words through sh -c
			if rest := skipOptions(args, "nqd", []string{"--interval", "--differences"}); len(rest) > 0 {
				add(strings.Join(rest, " "), false)
			}
			return views
		case "concurrently":
			for _, a := range args {
				if !strings.HasPrefix(a, "-") {
					add(a, false)
				}
			}
			return views
		case "nodemon":
			for _, v := range append(optionValues(args, "--exec"), optionValues(args, "-x")...) {
				add(v, false)
			}
			return views
		case "watchexec":
			if rest := skipOptions(args, "ewsdp", []string{"--exts", "--watch", "--signal", "--debounce", "--filter", "--ignore"}); len(rest) > 0 {
				add(strings.Join(rest, " "), false)
			}
			return views
		case "entr":
			rest := skipOptions(args, "", nil)
			if hasOption(args, "s", "") && len(rest) > 0 {
				add(strings.Join(rest, " "), false)
				return views
			}
			next = rest
		case "tmux", "screen", "at", "batch", "crontab":
			// a command typed into, or scheduled for, a shell later
			if name == "tmux" && len(args) > 0 && (args[0] == "ls" || args[0] == "list-sessions" || args[0] == "attach" || args[0] == "kill-session" || args[0] == "capture-pane") ||
				name == "crontab" && len(args) > 0 && (args[0] == "-l" || args[0] == "-r") || len(args) == 0 && (name == "tmux" || name == "screen") {
				return views
			}
			add(unknownText(strings.Join(args, " ")), false)
			return views
		case "ssh":
			// the remote shell parses the words after the host
			rest := skipOptions(args, "bcDEeFIiJLlmOopQRSWw", nil)
			if len(rest) > 1 {
				add(strings.Join(rest[1:], " "), false)
			}
			return views
		case "script":
			for i, a := range args {
				short := len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c")
				if (short || a == "--command") && i+1 < len(args) {
					add(args[i+1], false)
				}
			}
			return views
		case "docker", "podman", "kubectl", "oc":
			// a command run in a container: docker exec [opts] ctr cmd…,
			// kubectl exec [opts] pod -- cmd…
			if len(args) == 0 || args[0] != "exec" {
				return views
			}
			if i := indexOf(args, "--"); i >= 0 {
				next = args[i+1:]
			} else if name == "docker" || name == "podman" {
				rest := skipOptions(args[1:], "euw", []string{"--env", "--user", "--workdir", "--env-file", "--detach-keys"})
				if len(rest) > 1 {
					next = rest[1:]
				}
			}
		case "su":
			for i, a := range args {
				if (a == "-c" || a == "--command") && i+1 < len(args) {
					add(args[i+1], false)
				} else if p, ok := strings.CutPrefix(a, "--command="); ok {
					add(p, false)
				}
			}
			return views
		case "git":
			// git bisect run cmd…, git submodule foreach cmd, git rebase
			// --exec cmd: the commands git runs for the user.
			sub, rest := gitSubcommand(args)
			switch sub {
			case "bisect":
				if len(rest) > 1 && rest[0] == "run" {
					next = rest[1:]
				}
			case "submodule":
				for i, a := range rest {
					if a == "foreach" && i+1 < len(rest) {
						body := skipOptions(rest[i+1:], "", nil)
						if len(body) > 0 {
							add(strings.Join(body, " "), false)
						}
						break
					}
				}
			case "rebase":
				for i, a := range rest {
					if (a == "-x" || a == "--exec") && i+1 < len(rest) {
						add(rest[i+1], false)
					} else if p, ok := strings.CutPrefix(a, "--exec="); ok {
						add(p, false)
					}
				}
			}
			if next == nil {
				return views
			}
		default:
			return views
		}
		if len(next) == 0 {
			break
		}
		views = append(views, next)
		cur = next
	}
	return views
}

// replaceWord returns words with every word equal to (or containing) old
// replaced by marked.
func replaceWord(words []string, old, marked string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if strings.Contains(w, old) {
			out[i] = strings.ReplaceAll(w, old, marked)
		} else {
			out[i] = w
		}
	}
	return out
}

// xargsCommand returns the command xargs runs: with -I/-i/--replace, every
// occurrence of the replacement string stands for a line of input, and with
// no command it is echo.
func xargsCommand(args []string) []string {
	replace := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "-I" && i+1 < len(args):
			replace = args[i+1]
			i++
		case strings.HasPrefix(a, "-I") && len(a) > 2:
			replace = a[2:]
		case a == "-i" || a == "--replace":
			replace = "{}"
		case strings.HasPrefix(a, "-i") && len(a) > 2:
			replace = a[2:]
		case strings.HasPrefix(a, "--replace="):
			replace = strings.TrimPrefix(a, "--replace=")
		}
	}
	next := skipOptions(args, "ILdEanPsl", []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"})
	if len(next) == 0 {
		return nil
	}
	if replace != "" {
		return replaceWord(next, replace, unknownText(replace))
	}
	// The input is appended as more arguments.
	return append(append([]string(nil), next...), unknownText("…"))
}

// gitSubcommand returns git's subcommand and its arguments, skipping git's
// own options (-C dir, -c key=value, --git-dir=…).
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := clean(args[i])
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--exec-path" && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return strings.ToLower(a), cleanAll(args[i+1:])
		}
	}
	return "", nil
}

func cleanAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = clean(w)
	}
	return out
}

// skipOptions drops leading options: short options whose letter is in
// withArg take a value (attached or the next word), long options in
// longWithArg take the next word unless written --opt=value; "--" ends the
// options. It returns the words from the first operand on.
func skipOptions(args []string, withArg string, longWithArg []string) []string {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" {
			return args[i+1:]
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return args[i:]
		}
		if strings.HasPrefix(a, "--") {
			i++
			if !strings.Contains(a, "=") {
				for _, l := range longWithArg {
					if a == l {
						i++
						break
					}
				}
			}
			continue
		}
		i++
		// a short bundle: the first letter that takes a value owns the rest,
		// or the next word when it is last.
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(withArg, a[j]) >= 0 {
				if j == len(a)-1 {
					i++
				}
				break
			}
			if a[j] >= '0' && a[j] <= '9' { // nice -10, kill -9
				break
			}
		}
	}
	return nil
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

func hasOption(args []string, short, long string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
		if a == long || !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], short) {
			return true
		}
	}
	return false
}

func skipAssigns(args []string) []string {
	for len(args) > 0 && isAssign(args[0]) {
		args = args[1:]
	}
	return args
}

func isAssign(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	return isName(w[:eq])
}

// envCommand returns the command env runs; env -S "a b" splits its string
// into the command, which is handed on as a script.
func envCommand(args []string, payloads *[]payload) []string {
	i := 0
	split := func(s string) { *payloads = append(*payloads, payload{text: s}) }
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			return skipAssigns(args[i+1:])
		case a == "-S" || a == "--split-string":
			if i+1 < len(args) {
				split(strings.Join(args[i+1:], " "))
			}
			return nil
		case strings.HasPrefix(a, "-S"):
			split(strings.Join(append([]string{a[2:]}, args[i+1:]...), " "))
			return nil
		case strings.HasPrefix(a, "--split-string="):
			split(strings.Join(append([]string{strings.TrimPrefix(a, "--split-string=")}, args[i+1:]...), " "))
			return nil
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			i += 2
		case strings.HasPrefix(a, "-") && a != "-":
			i++
		case isAssign(a):
			i++
		default:
			return args[i:]
		}
	}
	return nil
}

// envAssigns returns the assignments env sets before the command it runs.
func envAssigns(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			i++
		case strings.HasPrefix(a, "-"):
		case isAssign(a):
			out = append(out, a)
		default:
			return out
		}
	}
	return out
}

// shellPayload finds a shell's -c script: an option bundle holding c (bash
// -c, -lc, -ec), skipping the words -o/-O and --rcfile/--init-file own.
func shellPayload(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !(strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) || len(a) < 2 {
			return "", false
		}
		if a == "--rcfile" || a == "--init-file" {
			i++
			continue
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		letters := a[1:]
		if strings.Trim(letters, "ilrsDcabefhkmnptuvxBCEHPTOo") != "" {
			continue
		}
		ownsNext := strings.ContainsAny(letters, "oO")
		if strings.IndexByte(letters, 'c') >= 0 {
			j := i + 1
			if ownsNext {
				j++
			}
			if j < len(args) {
				return args[j], true
			}
			return "", true
		}
		if ownsNext {
			i++
		}
	}
	return "", false
}

// shellOperand returns the script file a shell runs (its first operand
// after the options), "-" for its input, or "" when it runs a -c script or
// reads its input.
func shellOperand(args []string) string {
	if _, ok := shellPayload(args); ok {
		return ""
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return "-"
		case a == "--rcfile" || a == "--init-file" || a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++
		case a == "-s" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 's'):
			return "-"
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			return a
		}
	}
	return "-"
}
