package pycmd

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Command is one place where a script runs a program, or may run one the
// static look cannot see.
type Command struct {
	// Line is the 1-based line of the call (or of the construct that
	// hides one).
	Line int
	// Call names what runs it, with the module's canonical name
	// ("os.system", "subprocess.run", "hermes_tools.terminal"), or the
	// construct that hides commands ("exec", "import ctypes").
	Call string
	// Text is the command line, readable: a shell string as written, an
	// argument vector joined with shell quoting; a part known only at run
	// time is shown as {its source}. "" when nothing of it is known.
	Text string
	// Check is Text with each part known only at run time replaced by one
	// shell word ("${HERMES_PY_VALUE}"), for a shell-command danger check.
	Check string
	// Hidden: what runs is not (wholly) written as literals.
	Hidden bool
	// Why says, for Hidden, what hides it.
	Why string
	// Tool: the command goes through hermes_tools.terminal, the session's
	// terminal tool (approved again when the script calls it).
	Tool bool
}

// Placeholder is the shell word Check has in place of a value known only
// at run time.
const Placeholder = "${HERMES_PY_VALUE}"

// shape is how a function takes the command it runs.
type shape uint8

const (
	shellArg     shape = iota // a shell string: os.system(command), os.popen(cmd), subprocess.getoutput(cmd)
	subprocArgs               // subprocess.run(args, …, shell=…): a string or an argument vector
	execL                     // os.execl(path, arg0, arg1, …)
	execLE                    // os.execle(path, arg0, arg1, …, env)
	execV                     // os.execv(path, argv[, env])
	spawnL                    // os.spawnl(mode, path, arg0, …)
	spawnLE                   // os.spawnle(mode, path, arg0, …, env)
	spawnV                    // os.spawnv(mode, path, argv[, env])
	posixSpawn                // os.posix_spawn(path, argv, env, …)
	argvArg                   // pty.spawn(argv): a string or an argument vector
	execArgs                  // asyncio.create_subprocess_exec(program, *args)
	loopShell                 // loop.subprocess_shell(protocol_factory, cmd)
	loopExec                  // loop.subprocess_exec(protocol_factory, program, *args)
	toolTerminal              // hermes_tools.terminal(command, …)
)

// fn is a function that runs commands: its shape and the keyword name of
// its command parameter.
type fn struct {
	shape shape
	kw    string
}

var osFns = map[string]fn{
	"system": {shellArg, "command"}, "popen": {shellArg, "cmd"},
	"execl": {execL, ""}, "execlp": {execL, ""}, "execle": {execLE, ""}, "execlpe": {execLE, ""},
	"execv": {execV, ""}, "execvp": {execV, ""}, "execve": {execV, ""}, "execvpe": {execV, ""},
	"spawnl": {spawnL, ""}, "spawnlp": {spawnL, ""}, "spawnle": {spawnLE, ""}, "spawnlpe": {spawnLE, ""},
	"spawnv": {spawnV, ""}, "spawnvp": {spawnV, ""}, "spawnve": {spawnV, ""}, "spawnvpe": {spawnV, ""},
	"posix_spawn": {posixSpawn, ""}, "posix_spawnp": {posixSpawn, ""},
}

var asyncioFns = map[string]fn{
	"create_subprocess_shell": {shellArg, "cmd"},
	"create_subprocess_exec":  {execArgs, ""},
}

// modules are the modules whose functions run commands, by canonical
// name; a module listed with no functions is only a path to others
// ("asyncio.subprocess").
var modules = map[string]map[string]fn{
	"os":    osFns,
	"posix": osFns,
	"subprocess": {
		"run": {subprocArgs, "args"}, "call": {subprocArgs, "args"}, "check_call": {subprocArgs, "args"},
		"check_output": {subprocArgs, "args"}, "Popen": {subprocArgs, "args"},
		"getoutput": {shellArg, "cmd"}, "getstatusoutput": {shellArg, "cmd"},
	},
	"pty":                {"spawn": {argvArg, "argv"}},
	"asyncio":            asyncioFns,
	"asyncio.subprocess": asyncioFns,
	"hermes_tools":       {"terminal": {toolTerminal, "command"}},
	"sys":                nil, // for sys.modules
}

// opaqueModules run commands or code in ways the look does not read:
// importing one is reported.
var opaqueModules = map[string]string{
	"ctypes": "calls C functions (system, exec…) directly", "cffi": "calls C functions directly",
	"_posixsubprocess": "starts processes below subprocess", "importlib": "imports modules by computed names",
	"runpy": "runs other Python files", "code": "runs Python source it is given", "codeop": "compiles Python source it is given",
	"builtins": "reaches the builtins by name", "__builtin__": "reaches the builtins by name",
	"pickle": "unpickling can call any function", "_pickle": "unpickling can call any function",
	"cPickle": "unpickling can call any function", "dill": "unpickling can call any function",
	"cloudpickle": "unpickling can call any function", "shelve": "unpickling can call any function",
	"marshal": "loads compiled code", "pexpect": "runs commands", "sh": "runs commands as attribute calls",
	"plumbum": "runs commands", "invoke": "runs commands", "fabric": "runs commands", "sarge": "runs commands",
	"envoy": "runs commands", "delegator": "runs commands",
}

// dynamicCalls are builtins that run code the look cannot read.
var dynamicCalls = map[string]string{
	"exec": "runs Python source built at run time", "eval": "evaluates Python source built at run time",
	"compile": "compiles Python source built at run time", "__import__": "imports a module by a computed name",
	"globals": "reaches the script's names by string", "locals": "reaches the script's names by string",
}

// dunders are the attributes that reach modules, builtins or functions by
// another route than their names.
var dunders = map[string]bool{
	"__globals__": true, "__builtins__": true, "__subclasses__": true, "__dict__": true,
	"__getattribute__": true, "__code__": true, "__import__": true, "__loader__": true,
}

// binding is what an imported name is: a module, or one of its functions.
type binding struct {
	mod string // canonical module name
	fn  string // the function, for `from mod import fn`; "" for a module
}

type scanner struct {
	toks  []token
	binds map[string]binding
	out   []Command
}

// maxCommands bounds the result; the last one says the rest were left out.
const maxCommands = 200

// Scan returns the commands src runs, in source order. A script it
// cannot tokenize (a string that never ends) yields one Hidden command
// saying so, after those found before it.
func Scan(src string) []Command {
	toks, err := tokenize(src)
	s := &scanner{toks: toks, binds: map[string]binding{}}
	s.run()
	if err != nil {
		line := 1
		if len(toks) > 0 {
			line = toks[len(toks)-1].line
		}
		s.add(Command{Line: line, Call: "syntax", Hidden: true, Why: "the script could not be read to its end (" + err.Error() + ")"})
	}
	if len(s.out) > maxCommands {
		rest := len(s.out) - maxCommands + 1
		s.out = append(s.out[:maxCommands-1], Command{Line: s.out[maxCommands-1].Line, Call: "more", Hidden: true,
			Why: fmt.Sprintf("%d more places that run commands were left out", rest)})
	}
	return s.out
}

func (s *scanner) add(c Command) { s.out = append(s.out, c) }

func (s *scanner) tok(i int) token {
	if i < 0 || i >= len(s.toks) {
		return token{kind: tNewline}
	}
	return s.toks[i]
}

func (s *scanner) run() {
	for i := 0; i < len(s.toks); i++ {
		t := s.toks[i]
		switch {
		case t.name("import") && s.tok(i-1).kind == tNewline || t.name("import") && i == 0 || t.name("import") && s.tok(i-1).is(":"):
			i = s.importStmt(i + 1)
		case t.name("from") && s.isFromImport(i):
			i = s.fromImport(i + 1)
		case t.kind == tOp && t.text == ".":
			if n := s.tok(i + 1); n.kind == tName {
				s.attribute(i + 1)
			}
		case t.kind == tName:
			s.name(i)
		}
	}
}

// isFromImport reports whether the from at i starts `from X import …`
// (not `yield from`, `raise … from …`).
func (s *scanner) isFromImport(i int) bool {
	if p := s.tok(i - 1); !(p.kind == tNewline || i == 0 || p.is(":")) {
		return false
	}
	for j := i + 1; j < len(s.toks); j++ {
		switch t := s.toks[j]; {
		case t.name("import"):
			return true
		case t.kind == tName || t.is(".") || t.is("..."):
		default:
			return false
		}
	}
	return false
}

// dotted reads a dotted name at i and returns it and the index after it.
func (s *scanner) dotted(i int) (string, int) {
	var parts []string
	for {
		t := s.tok(i)
		if t.kind != tName {
			break
		}
		parts = append(parts, t.text)
		if !s.tok(i + 1).is(".") {
			i++
			break
		}
		i += 2
	}
	return strings.Join(parts, "."), i
}

// importStmt reads `import a.b [as c], …` from i and returns the index of
// its last token.
func (s *scanner) importStmt(i int) int {
	for {
		name, j := s.dotted(i)
		if name == "" {
			return i - 1
		}
		s.imported(name, s.tok(i).line)
		bound := strings.SplitN(name, ".", 2)[0]
		full := bound
		if s.tok(j).name("as") && s.tok(j+1).kind == tName {
			bound, full = s.tok(j+1).text, name
			j += 2
		}
		if _, ok := modules[full]; ok {
			s.binds[bound] = binding{mod: full}
		} else {
			delete(s.binds, bound)
		}
		if !s.tok(j).is(",") {
			return j - 1
		}
		i = j + 1
	}
}

// fromImport reads `from a.b import c [as d], …` (or `*`, or a
// parenthesised list) from i and returns the index of its last token.
func (s *scanner) fromImport(i int) int {
	for s.tok(i).is(".") || s.tok(i).is("...") {
		i++ // a relative import: not a standard module
	}
	mod, j := s.dotted(i)
	line := s.tok(i).line
	if !s.tok(j).name("import") {
		return j - 1
	}
	j++
	paren := s.tok(j).is("(")
	if paren {
		j++
	}
	for {
		t := s.tok(j)
		switch {
		case t.is("*"):
			s.imported(mod, line)
			for name := range modules[mod] {
				s.binds[name] = binding{mod: mod, fn: name}
			}
			j++
		case t.kind == tName:
			name, bound := t.text, t.text
			j++
			if s.tok(j).name("as") && s.tok(j+1).kind == tName {
				bound = s.tok(j + 1).text
				j += 2
			}
			sub := mod + "." + name
			s.imported(sub, line)
			switch _, isMod := modules[sub]; {
			case isMod:
				s.binds[bound] = binding{mod: sub}
			case hasFn(mod, name):
				s.binds[bound] = binding{mod: mod, fn: name}
			default:
				if _, ok := opaqueModules[mod]; !ok {
					delete(s.binds, bound)
				}
			}
		}
		if s.tok(j).is(",") {
			j++
			if paren && s.tok(j).is(")") {
				return j
			}
			continue
		}
		if paren && s.tok(j).is(")") {
			return j
		}
		return j - 1
	}
}

func hasFn(mod, name string) bool {
	_, ok := modules[mod][name]
	return ok
}

// imported reports the import of a module that runs code the look cannot
// read (ctypes, importlib, pickle, …), or of one under it.
func (s *scanner) imported(name string, line int) {
	top := strings.SplitN(name, ".", 2)[0]
	if why, ok := opaqueModules[top]; ok {
		s.add(Command{Line: line, Call: "import " + top, Hidden: true, Why: "the script imports " + top + ", which " + why})
	}
}

// name looks at the name at i: a builtin that runs code, an imported
// module or function.
func (s *scanner) name(i int) {
	t := s.toks[i]
	prev, next := s.tok(i-1), s.tok(i+1)
	if prev.is(".") || prev.name("def") || prev.name("class") || prev.name("as") || prev.name("del") || prev.name("global") || prev.name("nonlocal") {
		return
	}
	if next.is("=") { // an assignment target or a keyword argument
		return
	}
	b, bound := s.binds[t.text]
	if !bound {
		if t.text == "__builtins__" {
			s.add(Command{Line: t.line, Call: t.text, Hidden: true, Why: "the script reaches the builtins by name"})
		} else if why, ok := dynamicCalls[t.text]; ok && next.is("(") {
			s.add(Command{Line: t.line, Call: t.text, Hidden: true, Why: t.text + "() " + why})
		}
		return
	}
	if b.fn != "" {
		s.use(b.mod, b.fn, i+1, t.line)
		return
	}
	mod := b.mod
	j := i + 1
	for s.tok(j).is(".") && s.tok(j+1).kind == tName {
		attr := s.tok(j + 1).text
		if _, ok := modules[mod+"."+attr]; ok {
			mod += "." + attr
			j += 2
			continue
		}
		if hasFn(mod, attr) {
			s.use(mod, attr, j+2, t.line)
		} else if mod == "sys" && attr == "modules" {
			s.add(Command{Line: t.line, Call: "sys.modules", Hidden: true, Why: "the script reaches modules by name through sys.modules"})
		}
		return // dunders: see attribute
	}
	if len(modules[mod]) > 0 && mod != "hermes_tools" {
		s.add(Command{Line: t.line, Call: mod, Hidden: true,
			Why: fmt.Sprintf("the module %s is used as a value (%s), so which of its functions runs is not written out", mod, s.around(i))})
	}
}

// attribute looks at an attribute name at i (after a dot): the dunders
// that reach around names, and an event loop's subprocess methods.
func (s *scanner) attribute(i int) {
	t := s.toks[i]
	switch {
	case dunders[t.text]:
		s.add(Command{Line: t.line, Call: t.text, Hidden: true, Why: "the script uses " + t.text + ", which reaches functions and modules by another route than their names"})
	case t.text == "subprocess_shell" || t.text == "subprocess_exec":
		f := fn{shape: loopShell, kw: "cmd"}
		if t.text == "subprocess_exec" {
			f = fn{shape: loopExec}
		}
		if !s.tok(i + 1).is("(") {
			s.add(Command{Line: t.line, Call: "loop." + t.text, Hidden: true, Why: "loop." + t.text + " is used without being called, so what it runs is not written out"})
			return
		}
		s.call(f, "loop."+t.text, i+1, t.line)
	}
}

// use looks at a reference to mod.name, a function that runs commands,
// whose next token is at i: a call, or a use that hides the command.
func (s *scanner) use(mod, name string, i, line int) {
	call := mod + "." + name
	if !s.tok(i).is("(") {
		s.add(Command{Line: line, Call: call, Hidden: true, Tool: mod == "hermes_tools",
			Why: call + " is used without being called (aliased or passed as a value), so what it runs is not written out"})
		return
	}
	s.call(modules[mod][name], call, i, line)
}

// around is the source near token i, for messages.
func (s *scanner) around(i int) string {
	lo, hi := max(0, i-2), min(len(s.toks), i+3)
	var parts []string
	for _, t := range s.toks[lo:hi] {
		if t.kind != tNewline {
			parts = append(parts, t.text)
		}
	}
	return strings.Join(parts, " ")
}

// arg is one argument of a call: its keyword ("" for a positional one),
// whether it is starred (*a, **kw) and its tokens.
type arg struct {
	kw      string
	starred bool
	toks    []token
}

// args splits the argument list of the call whose "(" is at i.
func (s *scanner) args(i int) []arg {
	var out []arg
	depth := 0
	start := i + 1
	flush := func(end int) {
		toks := s.toks[start:end]
		if len(toks) == 0 {
			return
		}
		a := arg{toks: toks}
		switch {
		case toks[0].is("*") || toks[0].is("**"):
			a.starred = true
		case len(toks) >= 2 && toks[0].kind == tName && toks[1].is("="):
			a.kw, a.toks = toks[0].text, toks[2:]
		}
		out = append(out, a)
	}
	for j := i; j < len(s.toks); j++ {
		t := s.toks[j]
		switch {
		case t.is("(") || t.is("[") || t.is("{"):
			depth++
		case t.is(")") || t.is("]") || t.is("}"):
			depth--
			if depth == 0 {
				flush(j)
				return out
			}
		case t.is(",") && depth == 1:
			flush(j)
			start = j + 1
		}
	}
	flush(len(s.toks))
	return out
}

// value is what an argument evaluates to when written as literals.
type value struct {
	parts  []part   // a string's pieces
	list   [][]part // an argument vector's elements, each in pieces
	isList bool
	src    string // the source, when it is neither
}

// eval reads an argument's tokens as a string literal (implicit or +
// concatenation), a list or tuple of them, or something else.
func eval(toks []token) value {
	for len(toks) >= 2 && toks[0].is("(") && closes(toks, 0) == len(toks)-1 && !topComma(toks[1:len(toks)-1]) {
		toks = toks[1 : len(toks)-1]
	}
	if ps, ok := stringExpr(toks); ok {
		return value{parts: ps}
	}
	if len(toks) >= 2 && (toks[0].is("[") || toks[0].is("(")) && closes(toks, 0) == len(toks)-1 {
		var v value
		v.isList = true
		for _, el := range splitTop(toks[1 : len(toks)-1]) {
			if ps, ok := stringExpr(el); ok {
				v.list = append(v.list, ps)
			} else {
				v.list = append(v.list, []part{{s: "{" + source(el) + "}"}})
			}
		}
		return v
	}
	return value{src: source(toks)}
}

// stringExpr reads toks as string literals joined by juxtaposition or +.
func stringExpr(toks []token) ([]part, bool) {
	if len(toks) == 0 {
		return nil, false
	}
	var out []part
	wantString := true
	for _, t := range toks {
		switch {
		case wantString && t.kind == tString:
			out = append(out, t.parts...)
			wantString = false
		case !wantString && t.kind == tString: // "a" "b"
			out = append(out, t.parts...)
		case !wantString && t.is("+"):
			wantString = true
		default:
			return nil, false
		}
	}
	return out, !wantString
}

// closes returns the index of the bracket closing toks[i].
func closes(toks []token, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch t := toks[j]; {
		case t.is("(") || t.is("[") || t.is("{"):
			depth++
		case t.is(")") || t.is("]") || t.is("}"):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func topComma(toks []token) bool {
	return len(splitTop(toks)) > 1 || len(toks) > 0 && toks[len(toks)-1].is(",")
}

// splitTop splits toks at the commas outside brackets (a trailing comma
// ends nothing).
func splitTop(toks []token) [][]token {
	var out [][]token
	depth, start := 0, 0
	for j, t := range toks {
		switch {
		case t.is("(") || t.is("[") || t.is("{"):
			depth++
		case t.is(")") || t.is("]") || t.is("}"):
			depth--
		case t.is(",") && depth == 0:
			out = append(out, toks[start:j])
			start = j + 1
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

// source joins tokens back into readable source.
func source(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if t.kind == tNewline {
			continue
		}
		if i > 0 && needsSpace(toks[i-1], t) && !(i == 1 && (toks[0].is("*") || toks[0].is("**"))) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

func needsSpace(a, b token) bool {
	if a.is(".") || b.is(".") || b.is(",") || b.is(")") || b.is("]") || a.is("(") || a.is("[") || b.is("(") || b.is("[") || b.is(":") {
		return false
	}
	return a.kind != tOp || a.is(",") || b.kind != tOp
}

// call reads the call of f (named call) whose "(" is at i.
func (s *scanner) call(f fn, call string, i, line int) {
	args := s.args(i)
	c := Command{Line: line, Call: call, Tool: f.shape == toolTerminal}
	positional := func(n int) (arg, bool) {
		k := 0
		for _, a := range args {
			if a.kw != "" {
				continue
			}
			if a.starred {
				return a, true // stands for this and the rest
			}
			if k == n {
				return a, true
			}
			k++
		}
		return arg{}, false
	}
	param := func(n int, kw string) (arg, bool) {
		if a, ok := positional(n); ok {
			return a, true
		}
		for _, a := range args {
			if a.kw != "" && a.kw == kw {
				return a, true
			}
		}
		for _, a := range args {
			if a.starred && a.toks[0].is("**") {
				return a, true
			}
		}
		return arg{}, false
	}
	// from returns the positional arguments from n on, less the last
	// drop, as one vector.
	from := func(n int, drop int) [][]part {
		var out [][]part
		k := 0
		for _, a := range args {
			if a.kw != "" {
				continue
			}
			if k >= n {
				if a.starred {
					out = append(out, []part{{s: "{" + source(a.toks) + "}"}})
				} else if ps, ok := stringExpr(a.toks); ok {
					out = append(out, ps)
				} else {
					out = append(out, []part{{s: "{" + source(a.toks) + "}"}})
				}
			}
			k++
		}
		if drop > 0 && len(out) >= drop {
			out = out[:len(out)-drop]
		}
		return out
	}
	var argv [][]part
	var shell []part
	isShell := false
	missing := func(what string) {
		c.Hidden, c.Why = true, call+" is called without "+what+" written out"
	}
	switch f.shape {
	case shellArg, toolTerminal, loopShell:
		n := 0
		if f.shape == loopShell {
			n = 1
		}
		a, ok := param(n, f.kw)
		if !ok {
			missing("its command")
			break
		}
		if a.starred {
			c.Hidden, c.Why = true, "the command is passed unpacked ("+source(a.toks)+")"
			break
		}
		v := eval(a.toks)
		switch {
		case v.isList:
			argv = v.list // os.system takes no list; shown as given
		case v.parts != nil:
			shell, isShell = v.parts, true
		default:
			c.Hidden, c.Why = true, "the command is built at run time ("+v.src+")"
		}
	case subprocArgs, argvArg:
		a, ok := param(0, f.kw)
		if !ok {
			missing("its command")
			break
		}
		if a.starred {
			c.Hidden, c.Why = true, "the command is passed unpacked ("+source(a.toks)+")"
			break
		}
		v := eval(a.toks)
		switch {
		case v.isList:
			argv = v.list
		case v.parts != nil:
			shell, isShell = v.parts, true
		default:
			c.Hidden, c.Why = true, "the command is built at run time ("+v.src+")"
		}
		if x, ok := keyword(args, "executable"); ok {
			switch ps, lit := stringExpr(x.toks); {
			case !lit || !literal(ps):
				c.Hidden, c.Why = true, "the program is chosen at run time (executable="+source(x.toks)+")"
			case len(argv) > 0:
				argv[0] = ps // the program run; argv[0] is only its name
			}
		}
	case execL, execLE, spawnL, spawnLE:
		n := 0
		if f.shape == spawnL || f.shape == spawnLE {
			n = 1
		}
		drop := 0
		if f.shape == execLE || f.shape == spawnLE {
			drop = 1 // env
		}
		prog, ok := positional(n)
		if !ok || prog.starred {
			missing("its program")
			break
		}
		rest := from(n+1, drop)
		if len(rest) > 0 {
			rest = rest[1:] // arg0: the name the program sees
		}
		argv = append([][]part{progParts(prog)}, rest...)
	case execV, spawnV, posixSpawn:
		n := 0
		if f.shape == spawnV {
			n = 1
		}
		prog, ok := positional(n)
		vec, ok2 := positional(n + 1)
		if !ok || !ok2 || prog.starred || vec.starred {
			missing("its program and arguments")
			break
		}
		v := eval(vec.toks)
		argv = [][]part{progParts(prog)}
		switch {
		case v.isList && len(v.list) > 0:
			argv = append(argv, v.list[1:]...)
		case v.isList:
		default:
			argv = append(argv, []part{{s: "{" + source(vec.toks) + "}"}})
		}
	case execArgs, loopExec:
		n := 0
		if f.shape == loopExec {
			n = 1
		}
		argv = from(n, 0)
		if len(argv) == 0 {
			missing("its program")
		}
	}
	switch {
	case isShell:
		c.Text, c.Check = join(shell), checkText(shell)
		if !literal(shell) {
			c.Hidden, c.Why = true, "the command is built at run time (an f-string with fields, or an escape whose value is not known)"
		}
	case argv != nil:
		c.Text, c.Check = joinArgv(argv, false), joinArgv(argv, true)
		if !slices.ContainsFunc(argv, func(el []part) bool { return !literal(el) }) {
			break
		}
		c.Hidden = true
		if c.Why == "" {
			c.Why = "parts of the command are computed at run time"
		}
	}
	s.add(c)
}

func keyword(args []arg, kw string) (arg, bool) {
	for _, a := range args {
		if a.kw == kw {
			return a, true
		}
	}
	return arg{}, false
}

// progParts is a program argument's value in pieces.
func progParts(a arg) []part {
	if ps, ok := stringExpr(a.toks); ok {
		return ps
	}
	return []part{{s: "{" + source(a.toks) + "}"}}
}

func literal(ps []part) bool {
	return !slices.ContainsFunc(ps, func(p part) bool { return !p.lit })
}

func join(ps []part) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.s)
	}
	return b.String()
}

func checkText(ps []part) string {
	var b strings.Builder
	for _, p := range ps {
		if p.lit {
			b.WriteString(p.s)
		} else {
			b.WriteString(Placeholder)
		}
	}
	return b.String()
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// joinArgv joins an argument vector as a shell command line: literal
// words quoted when needed; a part known only at run time as its {source}
// (check: as the placeholder word).
func joinArgv(argv [][]part, check bool) string {
	words := make([]string, 0, len(argv))
	for _, el := range argv {
		if !literal(el) {
			if check {
				words = append(words, Placeholder)
			} else {
				words = append(words, join(el))
			}
			continue
		}
		w := join(el)
		if !plainWord.MatchString(w) {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}
