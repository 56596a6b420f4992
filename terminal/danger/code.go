package danger

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// inspect applies the walk's own rules to one view: what runs is hidden
// when the program's name is computed, when an alias defined in the same
// command names it, when a command whose options decide its danger gets
// computed arguments, when a shell, interpreter or runner is handed code
// the walk cannot read; and it records the files the command writes and
// the scripts it runs. bodies are the command's here-documents, stdin what
// its input is (see inputs).
func (w *walker) inspect(v *view, bodies []string, stdin string, payloads *[]payload) {
	c := w.c
	name := v.name()
	raw := v.raw
	if hiddenName(raw[0]) || w.aliases[clean(raw[0])] && !strings.Contains(raw[0], "/") {
		c.found(KeyHidden)
		return
	}
	if strings.Contains(v.words[0], "/") && !strings.HasPrefix(v.words[0], "/usr/") && !strings.HasPrefix(v.words[0], "/bin/") && !strings.HasPrefix(v.words[0], "/sbin/") {
		// ./x, bin/tool, /tmp/x: a file, maybe one this command wrote
		c.runs = append(c.runs, run{base: path.Base(v.words[0]), shell: true})
	}
	for _, e := range v.env {
		n, val, _ := strings.Cut(e, "=")
		w.envVar(n, val, name)
	}
	args := raw[1:]
	switch {
	case anyArgSensitive[name] || strings.HasPrefix(name, "mkfs"):
		if anyUnknown(args) {
			c.found(KeyHidden)
		}
	case subcommandSensitive[name]:
		if op := skipOptions(args, "", nil); len(op) > 0 && isUnknown(op[0]) {
			c.found(KeyHidden)
		}
	case name == "git":
		w.gitView(v)
	}
	switch {
	case isShell(name):
		if _, ok := shellPayload(v.words[1:]); ok {
			break // the -c script is a payload
		}
		op := shellOperand(args)
		switch {
		case len(bodies) > 0 && op == "-":
			for _, b := range bodies {
				*payloads = append(*payloads, payload{text: b})
			}
		case strings.HasPrefix(stdin, "file:") && op == "-":
			w.scriptFile(strings.TrimPrefix(stdin, "file:"), true)
		case op != "-":
			w.scriptFile(op, true)
		}
	case name == "source" || name == ".":
		if len(args) == 0 {
			c.found(KeyHidden)
			break
		}
		w.scriptFile(args[0], true)
	case name == "eval":
		// the payload; an eval of nothing runs nothing
	case interpreterFamily(name) != "":
		w.interpreter(v, stdin)
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		w.awk(v, payloads)
	case name == "sed":
		if p := sedScripts(v.raw[1:]); anyNotStatic(p) {
			c.found(KeyHidden)
		}
		w.editTargets(v)
	case name == "perl" || name == "ruby":
		w.editTargets(v)
	case name == "make" || name == "gmake":
		w.makeRun(v)
	default:
		w.runner(v)
	}
	if len(bodies) > 0 && !proseCommands[name] {
		w.matchArgs(strings.ToLower(clean(strings.Join(bodies, "\n"))))
	}
	w.commandWrites(v, bodies, stdin)
}

// anyArgSensitive are commands whose every argument may decide their
// danger (rm -rf /, kill -1, chmod 777, dd of=/dev/sda): a computed
// argument hides what they do.
var anyArgSensitive = map[string]bool{
	"rm": true, "rmdir": true, "kill": true, "pkill": true, "killall": true, "chmod": true, "chown": true,
	"chgrp": true, "dd": true, "shred": true, "wipefs": true, "truncate": true, "mke2fs": true, "find": true,
	"shutdown": true, "init": true, "telinit": true, "umask": true, "sgdisk": true, "blkdiscard": true,
}

// subcommandSensitive are commands whose subcommand decides their danger
// (systemctl stop, docker kill, hermes update).
var subcommandSensitive = map[string]bool{
	"systemctl": true, "docker": true, "podman": true, "launchctl": true, "hermes": true,
	"docker-compose": true, "service": true,
}

func anyUnknown(words []string) bool {
	for _, w := range words {
		if isUnknown(w) {
			return true
		}
	}
	return false
}

func anyNotStatic(words []string) bool {
	for _, w := range words {
		if !isStatic(w) {
			return true
		}
	}
	return false
}

// scriptFile records a script file a shell (or source) runs: a computed
// name is hidden code; a file the same command writes is judged at the end.
func (w *walker) scriptFile(name string, shell bool) {
	switch {
	case name == "" || name == "-":
	case isUnknown(name) || hiddenName(name):
		w.c.found(KeyHidden)
	default:
		n := clean(name)
		if n == "/dev/stdin" || strings.HasPrefix(n, "/dev/fd/") || strings.HasPrefix(n, "/proc/") {
			w.c.found(KeyHidden)
			return
		}
		w.c.runs = append(w.c.runs, run{base: path.Base(n), shell: shell})
	}
}

// interpreter checks an interpreter's command line: code given with -c/-e
// is hermes's finding (and hidden when computed); a script file it runs
// may be one the command wrote; computed arguments hide what it runs.
func (w *walker) interpreter(v *view, stdin string) {
	family := interpreterFamily(v.name())
	if anyUnknown(v.raw[1:]) {
		w.c.found(KeyHidden)
	}
	if interpreterExec(v) {
		return
	}
	op := interpreterScript(family, v.raw[1:])
	switch op {
	case "", "-":
		if stdin == "heredoc" {
			w.c.found("script execution via heredoc") // hermes's key, also for python - <<EOF
		} else if strings.HasPrefix(stdin, "file:") {
			w.scriptFile(strings.TrimPrefix(stdin, "file:"), false)
		}
	case "-m":
	default:
		w.scriptFile(op, false)
	}
	if op == "-m" {
		// python -m pytest runs the tests the command may have written
		if mod := moduleArg(v.words[1:]); mod == "pytest" || mod == "unittest" {
			w.c.runs = append(w.c.runs, run{base: "*.py"})
		}
	}
}

// interpreterScript returns the script operand of an interpreter ("" when
// it reads its input, "-m" when it runs a module).
func interpreterScript(family string, args []string) string {
	withArg := map[string]string{"python": "WX", "node": "r", "perl": "IMmx", "ruby": "ICEFKr", "php": "cdz"}[family]
	for i := 0; i < len(args); i++ {
		a := clean(args[i])
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "-":
			return "-"
		case family == "python" && (a == "-m" || strings.HasPrefix(a, "-m")):
			return "-m"
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && (a == "--require" || a == "--import" || a == "--loader" || a == "--conditions") {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if len(a) == 2 && strings.IndexByte(withArg, a[1]) >= 0 {
				i++
			}
		default:
			if family == "deno" || family == "bun" {
				if a == "run" || a == "test" || a == "x" {
					continue
				}
			}
			return args[i]
		}
	}
	return ""
}

// moduleArg returns python -m's module.
func moduleArg(args []string) string {
	for i, a := range args {
		if a == "-m" && i+1 < len(args) {
			return args[i+1]
		}
		if strings.HasPrefix(a, "-m") && len(a) > 2 {
			return a[2:]
		}
	}
	return ""
}

// makeRun checks make: recipes come from its makefile, so a makefile the
// command writes (or one given by an expansion), --eval and an overridden
// SHELL run code the walk does not read.
func (w *walker) makeRun(v *view) {
	files := []string{}
	args := v.raw[1:]
	for i := 0; i < len(args); i++ {
		a := clean(args[i])
		switch {
		case a == "-f" || a == "--file" || a == "--makefile":
			if i+1 < len(args) {
				files = append(files, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			files = append(files, args[i][2:])
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			_, f, _ := strings.Cut(args[i], "=")
			files = append(files, f)
		case a == "-E" || strings.HasPrefix(a, "--eval"):
			w.c.found(KeyHidden)
		case strings.HasPrefix(a, "SHELL=") || strings.HasPrefix(a, ".SHELLFLAGS=") || strings.HasPrefix(a, "MAKEFLAGS=") || strings.HasPrefix(a, "MAKEFILES="):
			w.c.found(KeyHidden)
		case isUnknown(args[i]):
			w.c.found(KeyHidden)
		}
	}
	if len(files) == 0 {
		files = []string{"Makefile", "makefile", "GNUmakefile"}
	}
	for _, f := range files {
		w.scriptFile(f, false)
	}
	w.c.runs = append(w.c.runs, run{base: "*.mk"})
}

// runners are tools that run code from the project's own files, and those
// files: a definition the same command writes runs code the walk does not
// read.
var runners = map[string][]string{
	"npm": {"package.json"}, "pnpm": {"package.json"}, "yarn": {"package.json"}, "bun": {"package.json"},
	"npx": {"package.json"}, "just": {"justfile", "Justfile", ".justfile"}, "task": {"Taskfile.yml", "Taskfile.yaml"},
	"cargo": {"Cargo.toml", "build.rs", "*.rs"}, "pytest": {"*.py"}, "tox": {"tox.ini", "*.py"},
	"rake": {"Rakefile"}, "gradle": {"build.gradle", "build.gradle.kts"}, "mvn": {"pom.xml"},
}

// runner records the definition files a task runner or a go command reads.
func (w *walker) runner(v *view) {
	name := v.name()
	files := runners[name]
	if name == "go" {
		if op := skipOptions(v.words[1:], "", nil); len(op) > 0 {
			switch op[0] {
			case "test", "run", "generate", "vet", "build", "install":
				files = []string{"*.go", "go.mod"}
			}
		}
	}
	for _, f := range files {
		w.c.runs = append(w.c.runs, run{base: f})
	}
}

// awkCommand finds awk code that hands a string to /bin/sh: system(),
// print … | "cmd", "cmd" | getline, and gawk's |&.
var awkCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bsystem\s*\(|\|&|\|\s*getline\b|\bprintf?\b[^;}\n]*[^|]\|[^|&]`)
})

// awkString finds a string literal given to system() or a pipe.
var awkString = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\bsystem\s*\(\s*|\|&?\s*)"((?:[^"\\\n]|\\.)*)"|"((?:[^"\\\n]|\\.)*)"\s*\|&?\s*getline`)
})

// awkPrograms returns the program texts of an awk command line (-f files
// are not readable here; nil then).
func awkPrograms(args []string) []string {
	var texts []string
	fromFile := false
	i := 0
	for i < len(args) {
		a := clean(args[i])
		if a == "--" {
			i++
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		name, val, eq := strings.Cut(a, "=")
		attached := ""
		if !strings.HasPrefix(a, "--") && len(a) > 2 {
			name, attached = a[:2], args[i][2:]
		}
		takes := map[string]bool{"-F": true, "--field-separator": true, "-v": true, "--assign": true, "-f": true, "--file": true,
			"-e": true, "--source": true, "-i": true, "--include": true, "-l": true, "--load": true, "-W": true}[name]
		if takes && !eq && attached == "" {
			if i+1 < len(args) {
				val = args[i+1]
			}
			i += 2
		} else {
			if !eq {
				val = attached
			} else if name != a {
				val = args[i][strings.IndexByte(args[i], '=')+1:]
			}
			i++
		}
		switch name {
		case "-e", "--source":
			texts = append(texts, val)
		case "-f", "--file":
			fromFile = true
		}
	}
	if len(texts) == 0 && !fromFile && i < len(args) {
		texts = append(texts, args[i])
	}
	return texts
}

// awkCode is an awk program with its string literals emptied, regular
// expressions emptied and comments dropped: only code is left, so "a|b"
// or /system\(/ is not a pipe or a call.
func awkCode(p string) string {
	var b strings.Builder
	operand := false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '"':
			j := i + 1
			for j < len(p) && p[j] != '"' && p[j] != '\n' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(`""`)
			i = j
			operand = true
		case ch == '/' && !operand:
			j := i + 1
			for j < len(p) && p[j] != '/' && p[j] != '\n' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(p) || p[j] != '/' {
				b.WriteByte(ch)
				continue
			}
			b.WriteString("//")
			i = j
			operand = true
		case ch == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			i--
		case isWordByte(ch):
			j := i
			for j < len(p) && isWordByte(p[j]) {
				j++
			}
			word := p[i:j]
			b.WriteString(word)
			operand = word != "print" && word != "printf" && word != "return" && word != "case"
			i = j - 1
		default:
			b.WriteByte(ch)
			if ch != ' ' && ch != '\t' {
				operand = ch == ')' || ch == ']'
			}
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// awkRunsShell is the rule for awk programs that run shell commands.
func awkRunsShell(v *view) bool {
	switch v.name() {
	case "awk", "gawk", "mawk", "nawk":
	default:
		return false
	}
	for _, p := range awkPrograms(v.raw[1:]) {
		if awkCommand().MatchString(awkCode(clean(p))) {
			return true
		}
	}
	return false
}

// awk reads the shell commands an awk program runs: a literal one is a
// script; a computed program, or a command built at run time, is hidden.
func (w *walker) awk(v *view, payloads *[]payload) {
	for _, f := range append(optionValues(v.raw[1:], "-f"), optionValues(v.raw[1:], "--file")...) {
		w.scriptFile(f, false)
	}
	for _, p := range awkPrograms(v.raw[1:]) {
		if !isStatic(p) {
			w.c.found(KeyHidden)
			continue
		}
		code := awkCode(p)
		if !awkCommand().MatchString(code) {
			continue
		}
		lits := 0
		for _, m := range awkString().FindAllStringSubmatch(p, -1) {
			s := m[1] + m[2]
			*payloads = append(*payloads, payload{text: awkUnquote(s)})
			lits++
		}
		if lits < len(awkCommand().FindAllString(code, -1)) {
			w.c.found(KeyHidden) // a command built from expressions
		}
	}
}

func awkUnquote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sedScripts returns the scripts of a sed command line (-e, --expression,
// or the first operand).
func sedScripts(args []string) []string {
	var out []string
	fromFile := false
	first := -1
	for i := 0; i < len(args); i++ {
		a := clean(args[i])
		switch {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--expression="):
			out = append(out, args[i][strings.IndexByte(args[i], '=')+1:])
		case a == "-f" || a == "--file":
			fromFile = true
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--"):
			if j := strings.IndexAny(a, "ef"); j > 0 {
				if j == len(a)-1 && i+1 < len(args) {
					if a[j] == 'e' {
						out = append(out, args[i+1])
					} else {
						fromFile = true
					}
					i++
				}
			}
			if strings.Contains(a, "l") && !strings.ContainsAny(a, "ef") && i+1 < len(args) && len(a) == 2 {
				i++ // -l N
			}
		case strings.HasPrefix(a, "-"):
		default:
			if first < 0 {
				first = i
			}
		}
	}
	if len(out) == 0 && !fromFile && first >= 0 {
		out = append(out, args[first])
	}
	return out
}

// sedRunsShell is the rule for sed scripts that run shell commands.
func sedRunsShell(v *view) bool {
	if v.name() != "sed" {
		return false
	}
	for _, s := range sedScripts(v.raw[1:]) {
		if sedHasExec(clean(s)) {
			return true
		}
	}
	return false
}

// sedHasExec reports an e command or an s command with the e flag.
func sedHasExec(script string) bool {
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case c == 's' && i+1 < len(script) && (i == 0 || !isWordByte(script[i-1])) && !isWordByte(script[i+1]) && script[i+1] != ' ' && script[i+1] != '\n':
			// s<d>regex<d>replacement<d>flags
			d := script[i+1]
			j, parts := i+2, 0
			for j < len(script) && parts < 2 {
				if script[j] == '\\' {
					j += 2
					continue
				}
				if script[j] == d {
					parts++
				}
				j++
			}
			k := j
			for k < len(script) && strings.IndexByte("gpiImMe0123456789w", script[k]) >= 0 {
				if script[k] == 'e' {
					return true
				}
				if script[k] == 'w' {
					break
				}
				k++
			}
			i = k - 1
		case c == 'e' && (i == 0 || strings.IndexByte(";\n{} \t0123456789$!/,", script[i-1]) >= 0) &&
			(i+1 == len(script) || strings.IndexByte(" \t;\n}", script[i+1]) >= 0):
			return true
		case c == '/' || c == '\\':
			// skip an address regex /…/ or \c…c
			if c == '\\' && i+1 < len(script) {
				i++
			}
			d := script[i]
			j := i + 1
			for j < len(script) && script[j] != d && script[j] != '\n' {
				if script[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case c == 'a' || c == 'i' || c == 'c' || c == 'y' || c == '#' || c == 'w' || c == 'r' || c == 'R' || c == 'W' || c == 'b' || c == 't' || c == 'T' || c == ':':
			if c == 'y' && i+1 < len(script) {
				d := script[i+1]
				n, j := 0, i+2
				for j < len(script) && n < 2 {
					if script[j] == '\\' {
						j++
					} else if script[j] == d {
						n++
					}
					j++
				}
				i = j - 1
				continue
			}
			if i > 0 && isWordByte(script[i-1]) {
				continue
			}
			// text or a label up to the end of the line (; for labels and files too)
			for i < len(script) && script[i] != '\n' && !(c != 'a' && c != 'i' && c != 'c' && c != '#' && script[i] == ';') {
				i++
			}
		}
	}
	return false
}

// programOptions are options whose value is a program (or a command line)
// the tool runs: the value is a script.
var programOptions = map[string][]string{
	"rg":    {"--pre", "--hostname-bin"},
	"sort":  {"--compress-program"},
	"tar":   {"--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command"},
	"rsync": {"-e", "--rsh", "--rsync-path"},
	"man":   {"-P", "--pager", "-H", "--html"},
	"zip":   {"-TT", "--unzip-command"},
	"less":  {},
	"git":   {},
	"ssh":   {"-oProxyCommand", "-oLocalCommand"},
	"scp":   {"-S"},
	"nmap":  {"--script"},
	"vim":   {"-c", "--cmd"},
	"nvim":  {"-c", "--cmd"},
	"ex":    {"-c"},
	"emacs": {"--eval", "-eval"},
}

// optionValue returns the values of opt in args (--opt=v, --opt v, -Ov).
func optionValues(args []string, opt string) []string {
	var out []string
	for i, a := range args {
		switch {
		case clean(a) == opt && i+1 < len(args):
			out = append(out, args[i+1])
		case strings.HasPrefix(clean(a), opt+"="):
			out = append(out, a[strings.IndexByte(a, '=')+1:])
		case len(opt) == 2 && opt[0] == '-' && opt[1] != '-' && strings.HasPrefix(clean(a), opt) && len(clean(a)) > 2:
			out = append(out, a[2:])
		}
	}
	return out
}

// programOption is the rule for options that make a program run another
// command; the walk reads literal ones as scripts.
func programOption(v *view) bool {
	name := v.name()
	opts, ok := programOptions[name]
	if !ok || name == "git" {
		return false
	}
	for _, o := range opts {
		if len(optionValues(v.raw[1:], o)) > 0 {
			return true
		}
	}
	if name == "ssh" {
		for i, a := range v.words[1:] {
			if a == "-o" && i+2 < len(v.words) {
				k := strings.ToLower(v.words[i+2])
				if strings.HasPrefix(k, "proxycommand") || strings.HasPrefix(k, "localcommand") || strings.HasPrefix(k, "permitlocalcommand") {
					return true
				}
			}
		}
	}
	return false
}

// envCodeVars are variables that make programs load code: the dynamic
// loader's preload list, the script bash reads first, node's and perl's
// option variables.
var envCodeVars = map[string]bool{
	"LD_PRELOAD": true, "LD_AUDIT": true, "LD_LIBRARY_PATH": true, "DYLD_INSERT_LIBRARIES": true,
	"BASH_ENV": true, "ENV": true, "NODE_OPTIONS": true, "PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true,
	"PYTHONSTARTUP": true, "PROMPT_COMMAND": true, "PYTHONPATH": true,
}

// gitProgramVars are variables whose value git runs as a command.
var gitProgramVars = map[string]bool{
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_PAGER": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "GIT_PROXY_COMMAND": true, "GIT_EXEC_PATH": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true,
	"GIT_CONFIG_COUNT": true, "GIT_TEMPLATE_DIR": true, "GIT_DIR": false,
}

// envVar checks a variable set for a command (or exported): one that makes
// programs load code asks; one git runs asks when git may read it, and its
// value, a command line, is read as a script.
func (w *walker) envVar(name, val, command string) {
	switch {
	case envCodeVars[name]:
		if name == "PYTHONPATH" || name == "LD_LIBRARY_PATH" || name == "PERL5LIB" {
			// a search path: code only when it points at what the command writes
			return
		}
		if name == "NODE_OPTIONS" && !strings.Contains(val, "-r") && !strings.Contains(val, "--require") && !strings.Contains(val, "--import") && !strings.Contains(val, "--loader") {
			return
		}
		w.c.found(keyEnvCode)
	case gitProgramVars[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		w.c.found(keyGitExec)
		switch name {
		case "GIT_SSH_COMMAND", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND":
			w.script(payload{text: val})
		}
	case (name == "EDITOR" || name == "VISUAL" || name == "PAGER") && command == "git":
		w.c.found(keyGitExec)
		w.script(payload{text: val})
	}
}
