package danger

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds the nesting of scripts inside scripts (bash -c "eval '…'");
// deeper payloads are judged by the regexes alone, which fails closed.
const maxDepth = 6

// findings collects which hardline and dangerous rules matched.
type findings struct {
	hard []bool
	dang []bool
}

func newFindings() *findings {
	return &findings{hard: make([]bool, len(hardline)), dang: make([]bool, len(dangerous))}
}

// view is one simple command as the rules see it: its words (quotes removed,
// escapes resolved, case kept) and s, the words joined by spaces with the
// command word reduced to its base name, its input redirections appended
// (bash << EOF, bash < <(curl …)), lowercased.
type view struct {
	words []string
	s     string
}

func newView(words []string, in string) *view {
	var b strings.Builder
	b.WriteString(path.Base(strings.ReplaceAll(words[0], `\`, "/")))
	for _, w := range words[1:] {
		b.WriteByte(' ')
		b.WriteString(w)
	}
	if in != "" {
		b.WriteByte(' ')
		b.WriteString(in)
	}
	return &view{words: words, s: strings.ToLower(b.String())}
}

// name is the view's command word, lowercased and without its directory.
func (v *view) name() string { return commandName(v.words[0]) }

func commandName(w string) string {
	return strings.ToLower(path.Base(strings.ReplaceAll(w, `\`, "/")))
}

// analyze parses command as bash and records every rule it breaks; a
// command that cannot be parsed is judged by the regexes over the whole
// normalised string.
func analyze(command string, depth int, f *findings) {
	src := prepare(command)
	if depth > maxDepth || nesting(src) > maxNesting {
		fallback(src, f)
		return
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		fallback(src, f)
		return
	}
	w := &walker{src: src, depth: depth, f: f, vars: map[string]string{}}
	w.whole(file)
	syntax.Walk(file, w.visit)
	for _, p := range w.stdinScripts {
		analyze(p, depth+1, f)
	}
}

// maxNesting bounds how deep parentheses and braces may nest before the
// parser is skipped: the parser's cost grows quickly with the depth
// ("(" × 120 000 took 31 s), and no real command nests a hundred deep.
const maxNesting = 100

// nesting returns the deepest nesting of ( and { outside single quotes.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				i += j + 1
			}
		case '(', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// fallback is hermes's detection over a string the parser refused: every
// rule, unanchored (the floor at hermes's command positions), over the
// normalised text.
func fallback(src string, f *findings) {
	s := flatten(src)
	for i := range hardline {
		if hardline[i].possible(s) && hardline[i].loose.MatchString(s) {
			f.hard[i] = true
		}
	}
	for i := range dangerous {
		if dangerous[i].possible(s) && dangerous[i].matchLoose(s) {
			f.dang[i] = true
		}
	}
}

type walker struct {
	src   string
	depth int
	f     *findings
	// vars are the variables the script set to a literal so far (X=rm),
	// in the order the walk meets them.
	vars map[string]string
	// stdinScripts are scripts piped into a shell (echo "…" | sh).
	stdinScripts []string
}

func (w *walker) text(n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(w.src) || a > b {
		return ""
	}
	return w.src[a:b]
}

// whole matches the floor and the pipeline rules over the whole command
// with the content of quotes, here-documents and comments masked: what is
// left is the shell's own syntax, so `echo "a | sh"` is not a pipeline.
func (w *walker) whole(file *syntax.File) {
	masked := []byte(w.src)
	mask := func(a, b uint) {
		for i := int(a); i < int(b) && i < len(masked); i++ {
			if masked[i] != '\n' {
				masked[i] = '_'
			}
		}
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			start := n.Left.Offset() + 1
			if n.Dollar {
				start++
			}
			mask(start, n.Right.Offset())
		case *syntax.DblQuoted:
			for _, p := range n.Parts {
				if l, ok := p.(*syntax.Lit); ok {
					mask(l.ValuePos.Offset(), l.ValueEnd.Offset())
				}
			}
		case *syntax.Redirect:
			if n.Hdoc != nil {
				for _, p := range n.Hdoc.Parts {
					if l, ok := p.(*syntax.Lit); ok {
						mask(l.ValuePos.Offset(), l.ValueEnd.Offset())
					}
				}
			}
		case *syntax.Comment:
			mask(n.Hash.Offset(), n.End().Offset())
		}
		return true
	})
	s := flatten(string(masked))
	for i := range hardline {
		if hardline[i].possible(s) && hardline[i].loose.MatchString(s) {
			w.f.hard[i] = true
		}
	}
	w.matchWhole(s)
}

func (w *walker) matchWhole(s string) {
	for i := range dangerous {
		if dangerous[i].kind == kindWhole && dangerous[i].possible(s) && dangerous[i].re.MatchString(s) {
			w.f.dang[i] = true
		}
	}
}

func (w *walker) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		if call, ok := n.Cmd.(*syntax.CallExpr); ok {
			if len(call.Args) == 0 {
				w.assign(call.Assigns)
			} else {
				w.call(call, n.Redirs)
			}
		}
	case *syntax.DeclClause:
		w.assign(n.Args)
	case *syntax.Redirect:
		w.redirect(n)
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			w.pipeline(n)
		}
	}
	return true
}

// assign records variables set to a value known without running anything.
func (w *walker) assign(as []*syntax.Assign) {
	for _, a := range as {
		if a.Name == nil || a.Naked || a.Array != nil || a.Index != nil {
			continue
		}
		if a.Value == nil {
			w.vars[a.Name.Value] = ""
			continue
		}
		if v := w.word(a.Value); !strings.Contains(v, "$") {
			w.vars[a.Name.Value] = v
		} else {
			delete(w.vars, a.Name.Value)
		}
	}
}

// braces matches an unquoted word bash brace-expands into several words:
// {rm,-rf,/} is the command rm -rf /.
var braces = regexp.MustCompile(`^([^{},]*)\{([^{}]*,[^{}]*)\}([^{}]*)$`)

// words renders a command's words, brace expansion included.
func (w *walker) words(args []*syntax.Word) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		v := w.rawWord(a)
		if strings.Contains(v, ifsSplit) {
			for _, f := range strings.Split(v, ifsSplit) {
				if f != "" {
					out = append(out, f)
				}
			}
			continue
		}
		if lit, ok := literal(a); ok && len(a.Parts) == 1 && strings.ContainsRune(lit, ',') {
			if m := braces.FindStringSubmatch(v); m != nil {
				for _, alt := range strings.Split(m[2], ",") {
					out = append(out, m[1]+alt+m[3])
				}
				continue
			}
		}
		out = append(out, v)
	}
	return out
}

// ifsSplit stands for an unquoted $IFS inside a word while it is rendered:
// the shell splits the word there (rm${IFS}-rf is two words). NUL cannot
// occur otherwise: prepare removed it.
const ifsSplit = "\x00"

// word renders a shell word as the command would receive it, as far as that
// is knowable without running anything: quotes removed, escapes resolved,
// $IFS a space; other expansions and substitutions stay as written.
func (w *walker) word(word *syntax.Word) string {
	return strings.ReplaceAll(w.rawWord(word), ifsSplit, " ")
}

func (w *walker) rawWord(word *syntax.Word) string {
	var b strings.Builder
	for _, p := range word.Parts {
		w.part(&b, p, false)
	}
	return b.String()
}

func (w *walker) part(b *strings.Builder, p syntax.WordPart, quoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, quoted))
	case *syntax.SglQuoted:
		if p.Dollar {
			b.WriteString(ansiC(p.Value))
		} else {
			b.WriteString(p.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.part(b, q, true)
		}
	case *syntax.ParamExp:
		v := w.param(p)
		if quoted {
			v = strings.ReplaceAll(v, ifsSplit, " ")
		}
		b.WriteString(v)
	case *syntax.CmdSubst:
		if out, ok := w.literalOutput(p); ok {
			b.WriteString(out)
			return
		}
		b.WriteString(w.text(p))
	default:
		b.WriteString(w.text(p))
	}
}

// param renders a parameter expansion: $IFS is a space (the shell splits
// on it), a variable the script set to a literal earlier is that literal,
// ${x:-word} and ${x-word} of a variable it never set are the word, and
// ${x/a/b} is its replacement — the spellings that hide a command name
// (${u:-rm} -rf /). Anything else stays as written.
func (w *walker) param(p *syntax.ParamExp) string {
	if p.Param == nil || p.Length || p.Excl || p.Index != nil {
		return w.text(p)
	}
	name := p.Param.Value
	if name == "IFS" {
		return ifsSplit
	}
	val, known := w.vars[name]
	switch {
	case p.Exp != nil && (p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull ||
		p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull):
		if known && val != "" {
			return val
		}
		if p.Exp.Word != nil {
			return w.word(p.Exp.Word)
		}
		return ""
	case p.Repl != nil && p.Repl.With != nil:
		return w.word(p.Repl.With)
	case p.Exp == nil && p.Repl == nil && p.Slice == nil && known:
		return val
	}
	return w.text(p)
}

// literalOutput resolves a command substitution whose output is known
// without running anything: $() is empty, $(echo rm) and $(printf %s rm)
// print their literal.
func (w *walker) literalOutput(c *syntax.CmdSubst) (string, bool) {
	if len(c.Stmts) == 0 {
		return "", true
	}
	if len(c.Stmts) != 1 || len(c.Stmts[0].Redirs) > 0 {
		return "", false
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 {
		return "", false
	}
	var args []string
	for _, a := range call.Args {
		lit, ok := literal(a)
		if !ok {
			return "", false
		}
		args = append(args, lit)
	}
	switch args[0] {
	case "echo":
		args = args[1:]
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
			args = args[1:]
		}
		return strings.Join(args, " "), true
	case "printf":
		if len(args) == 2 && !strings.ContainsAny(args[1], `%\`) {
			return args[1], true
		}
		if len(args) == 3 && args[1] == "%s" {
			return args[2], true
		}
	}
	return "", false
}

// literal returns a word's value when it has no expansions at all.
func literal(word *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// ansiC decodes bash's $'…' escapes (\xHH, \NNN, \uHHHH, \n …), so
// $'\x72\x6d' reads as rm.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(e) // \\ \' \" \?
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unescape resolves backslashes as the shell does: outside quotes a
// backslash escapes any character; inside double quotes only $ ` " \ and
// newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if !quoted || strings.IndexByte("$`\"\\\n", next) >= 0 {
				if next != '\n' {
					b.WriteByte(next)
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// call checks one simple command: every view of it against the command
// rules and the floor, the scripts it carries recursively.
func (w *walker) call(call *syntax.CallExpr, redirs []*syntax.Redirect) {
	words := w.words(call.Args)
	if len(words) == 0 {
		return
	}
	var in, bodies []string
	for _, r := range redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			target := ""
			if r.Word != nil {
				target = w.word(r.Word)
			}
			in = append(in, r.Op.String()+" "+target)
			if r.Hdoc != nil {
				bodies = append(bodies, w.word(r.Hdoc))
			}
			if r.Op == syntax.WordHdoc {
				bodies = append(bodies, target)
			}
		}
	}
	inText := strings.Join(in, " ")
	var payloads []string
	views := expand(words, &payloads, 0)
	for _, vw := range views {
		v := newView(vw, inText)
		w.checkView(v)
		// A shell or interpreter fed by a here-document runs its body.
		if len(bodies) > 0 && isShell(v.name()) && !hasDashC(v) {
			payloads = append(payloads, bodies...)
		}
		if len(bodies) > 0 && !proseCommands[v.name()] {
			s := strings.ToLower(strings.Join(bodies, "\n"))
			w.matchArgs(s)
		}
	}
	for _, p := range payloads {
		analyze(p, w.depth+1, w.f)
	}
}

func (w *walker) checkView(v *view) {
	for i := range hardline {
		if hardline[i].kind == kindCmd && strings.HasPrefix(v.s, hardline[i].prefix) && hardline[i].re.MatchString(v.s) {
			w.f.hard[i] = true
		}
	}
	for i := range dangerous {
		r := &dangerous[i]
		if r.kind != kindCmd || !strings.HasPrefix(v.s, r.prefix) {
			continue
		}
		if r.fn != nil {
			if r.fn(v) {
				w.f.dang[i] = true
			}
		} else if r.re.MatchString(v.s) {
			w.f.dang[i] = true
		}
	}
	if !proseCommands[v.name()] {
		w.matchArgs(v.s)
	}
}

func (w *walker) matchArgs(s string) {
	for i := range dangerous {
		if dangerous[i].kind == kindArgs && dangerous[i].possible(s) && dangerous[i].matchString(s) {
			w.f.dang[i] = true
		}
	}
}

// redirect checks an output redirection, rendered "<op> <target>".
func (w *walker) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		return
	}
	target := ""
	if r.Word != nil {
		target = w.word(r.Word)
	}
	s := strings.ToLower(r.Op.String() + " " + target)
	for i := range hardline {
		if hardline[i].kind == kindRedir && hardline[i].re.MatchString(s) {
			w.f.hard[i] = true
		}
	}
	for i := range dangerous {
		if dangerous[i].kind == kindRedir && dangerous[i].re.MatchString(s) {
			w.f.dang[i] = true
		}
	}
}

// pipeline rebuilds a pipeline from its stages, each reduced to the command
// it finally runs (curl … | sudo bash → "curl … | bash") with arguments that
// hold spaces or shell syntax masked, and matches the pipeline rules.
func (w *walker) pipeline(b *syntax.BinaryCmd) {
	var stages []string
	var prev []string
	var collect func(s *syntax.Stmt)
	collect = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			collect(bc.X)
			collect(bc.Y)
			return
		}
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			stages = append(stages, "_")
			return
		}
		words := w.words(call.Args)
		if len(words) == 0 {
			stages = append(stages, "_")
			return
		}
		var discard []string
		views := expand(words, &discard, 0)
		last := views[len(views)-1]
		parts := []string{commandName(last[0])}
		for _, a := range last[1:] {
			parts = append(parts, maskArg(a))
		}
		stages = append(stages, strings.Join(parts, " "))
		// echo "…" | sh: the shell runs what echo prints.
		if isShell(commandName(last[0])) && readsStdin(last[1:]) && len(prev) > 1 {
			if n := commandName(prev[0]); n == "echo" || n == "printf" {
				args := prev[1:]
				escapes := n == "printf"
				for len(args) > 0 && n == "echo" && strings.HasPrefix(args[0], "-") {
					escapes = escapes || strings.ContainsRune(args[0], 'e')
					args = args[1:]
				}
				script := strings.Join(args, " ")
				if escapes {
					script = ansiC(script)
				}
				w.stdinScripts = append(w.stdinScripts, script)
			}
		}
		prev = last
	}
	collect(b.X)
	collect(b.Y)
	w.matchWhole(strings.ToLower(strings.Join(stages, " | ")))
}

// readsStdin reports whether a shell with these arguments reads its script
// from standard input: no operand, or -s.
func readsStdin(args []string) bool {
	if _, ok := shellPayload(args); ok {
		return false
	}
	for _, a := range args {
		if a == "-s" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 's') {
			return true
		}
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return false
		}
	}
	return true
}

func maskArg(a string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(" \t\n|;&<>()`", r) {
			return '_'
		}
		return r
	}, a)
}

// proseCommands print, search, compare or store their arguments: SQL in
// their arguments is text, not a statement someone runs.
var proseCommands = map[string]bool{
	"echo": true, "printf": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
	"ack": true, "git": true, "gh": true, "cat": true, "less": true, "more": true, "head": true,
	"tail": true, "man": true, "wc": true, "jq": true, "yq": true, "sort": true, "uniq": true,
	"cut": true, "tr": true, "sed": true, "awk": true, "touch": true, "mkdir": true, "ls": true,
	"test": true, "[": true, "[[": true, "true": true, "false": true, ":": true, "export": true,
	"local": true, "declare": true, "readonly": true, "typeset": true, "read": true, "logger": true,
	"diff": true, "comm": true, "truncate": true, "tee": true, "column": true, "fold": true, "fmt": true,
	"nl": true, "rev": true, "strings": true, "base64": true, "md5sum": true, "sha256sum": true,
}

// shellNames are the shells hermes treats as carriers of a script.
var shellNames = map[string]bool{"bash": true, "sh": true, "zsh": true, "ksh": true, "dash": true}

func isShell(name string) bool { return shellNames[name] }

func hasDashC(v *view) bool {
	_, ok := shellPayload(v.words[1:])
	return ok
}

// expand returns the views of a simple command: the command itself and, for
// each wrapper it starts with, the command the wrapper runs (sudo, env,
// nohup, setsid, time, nice, timeout, exec, command, builtin, stdbuf,
// ionice, chrt, taskset, busybox, watch, chroot, runuser, strace, flock,
// parallel, xargs, docker/kubectl exec, every find -exec and fd -x).
// Scripts the command hands to a shell (bash -c, eval, su -c, env -S,
// ssh host …, script -c, flock -c) are appended to payloads.
func expand(words []string, payloads *[]string, depth int) [][]string {
	views := [][]string{words}
	cur := words
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
			next = skipOptions(args, "ILdEanPsl", []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"})
		case "find":
			for i := 0; i < len(args); i++ {
				switch args[i] {
				case "-exec", "-execdir", "-ok", "-okdir":
					j := i + 1
					for j < len(args) && args[j] != ";" && args[j] != "+" {
						j++
					}
					if j > i+1 {
						views = append(views, expand(args[i+1:j], payloads, depth+1)...)
					}
					i = j
				}
			}
			return views
		case "bash", "sh", "zsh", "ksh", "dash":
			if p, ok := shellPayload(args); ok && p != "" {
				*payloads = append(*payloads, p)
			}
			return views
		case "eval":
			if len(args) > 0 {
				*payloads = append(*payloads, strings.Join(args, " "))
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
					*payloads = append(*payloads, args[i+1])
				}
			}
		case "strace", "ltrace":
			next = skipOptions(args, "eoOpPsSuUXbI", []string{"--output", "--attach", "--user", "--trace", "--signal"})
		case "unbuffer", "caffeinate":
			next = skipOptions(args, "w", nil)
		case "flock":
			for i, a := range args {
				if (a == "-c" || a == "--command") && i+1 < len(args) {
					*payloads = append(*payloads, args[i+1])
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
				if i = indexOf(rest, "::::"); i >= 0 {
					return append(views, expand(rest[:i], payloads, depth+1)...)
				}
				next = rest
				break
			}
			// each input after ::: is appended to the command
			for _, in := range rest[i+1:] {
				if i == 0 && in != ":::" {
					*payloads = append(*payloads, in) // no command: each input is one
				} else if in != ":::" && len(views) < 64 {
					cmd := append(append([]string{}, rest[:i]...), in)
					views = append(views, expand(cmd, payloads, depth+1)...)
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
						views = append(views, expand(args[i+1:j], payloads, depth+1)...)
					}
				}
			}
			return views
		case "watch":
			next = skipOptions(args, "nqd", []string{"--interval", "--differences"})
		case "ssh":
			// the remote shell parses the words after the host
			rest := skipOptions(args, "bcDEeFIiJLlmOopQRSWw", nil)
			if len(rest) > 1 {
				*payloads = append(*payloads, strings.Join(rest[1:], " "))
			}
			return views
		case "script":
			for i, a := range args {
				short := len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c")
				if (short || a == "--command") && i+1 < len(args) {
					*payloads = append(*payloads, args[i+1])
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
					*payloads = append(*payloads, args[i+1])
				} else if p, ok := strings.CutPrefix(a, "--command="); ok {
					*payloads = append(*payloads, p)
				}
			}
			return views
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
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// envCommand returns the command env runs; env -S "a b" splits its string
// into the command, which is handed on as a script.
func envCommand(args []string, payloads *[]string) []string {
	i := 0
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			return skipAssigns(args[i+1:])
		case a == "-S" || a == "--split-string":
			if i+1 < len(args) {
				*payloads = append(*payloads, strings.Join(args[i+1:], " "))
			}
			return nil
		case strings.HasPrefix(a, "-S"):
			*payloads = append(*payloads, strings.Join(append([]string{a[2:]}, args[i+1:]...), " "))
			return nil
		case strings.HasPrefix(a, "--split-string="):
			*payloads = append(*payloads, strings.Join(append([]string{strings.TrimPrefix(a, "--split-string=")}, args[i+1:]...), " "))
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

// Structural rules (kindCmd with fn).

func shellDashC(v *view) bool {
	return isShell(v.name()) && hasDashC(v)
}

// interpreterFlags are the options that make an interpreter run code given
// on the command line.
var interpreterFlags = map[string][]string{
	"python": {"-c"}, "node": {"-e", "--eval", "-p", "--print"}, "perl": {"-e", "-E"},
	"ruby": {"-e"}, "php": {"-r"}, "powershell": {"-command", "-c", "-file", "-f", "-encodedcommand"},
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
	}
	return ""
}

func interpreterExec(v *view) bool {
	family := interpreterFamily(v.name())
	if family == "" {
		return false
	}
	flags := interpreterFlags[family]
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
