package danger

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds the nesting of scripts inside scripts (bash -c "eval '…'"),
// and maxScripts the scripts one check reads (payloads, here-documents,
// files the command writes and runs); past either, what is left is judged
// by the regexes alone and asks as unreadable.
const (
	maxDepth   = 6
	maxScripts = 64
)

// check is the state of one Check: the keys found (by their place in the
// table's keys) and what the command writes and runs, shared by the
// scripts inside it.
type check struct {
	opts    *Options
	t       *table
	hit     []bool
	scripts int
	// writes are the base names of the files the command writes, each
	// with what is written when that is known (unknownContent otherwise).
	writes map[string][]string
	// writesAny: the command writes files whose names are not known (it
	// unpacks an archive, clones a repository, writes to a computed path).
	writesAny bool
	// runs are the files the command runs as scripts, judged against
	// writes once the whole command has been read.
	runs []run
	// needs are what its programs ask of the sandbox (grants.go).
	needs Needs
	// mutates: something the command runs may change something; it is not
	// read-only (readonly.go).
	mutates bool
}

// unknownContent stands for a written file whose content is not known.
const unknownContent = "\x01"

// run is a file the command hands to a program that runs it: base is its
// base name ("*.go" for a runner that runs every file of a kind); shell
// says a shell reads it (so its content, when known, is read as a
// script).
type run struct {
	base  string
	shell bool
}

func newCheck(o *Options) *check {
	t := rules()
	return &check{opts: o, t: t, hit: make([]bool, len(t.keys))}
}

// found records the key.
func (c *check) found(key string) {
	if i, ok := c.t.index[key]; ok {
		c.hit[i] = true
	}
}

// analyze parses src as bash and records every rule it breaks; sc is the
// shell state it starts in (nil: a new shell).
func (c *check) analyze(src string, depth int, sc *scope) {
	src = prepare(src)
	c.scripts++
	if depth > maxDepth || c.scripts > maxScripts || nesting(src) > maxNesting {
		c.fallback(src)
		return
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		c.fallback(src)
		return
	}
	if sc == nil {
		sc = newScope()
	}
	w := &walker{c: c, src: src, depth: depth, sc: sc, aliases: map[string]bool{}}
	w.whole(file)
	w.stmts(file.Stmts, true)
}

// script analyses a script a command hands to a shell. A script that is
// itself computed is hidden code, whatever its text says.
func (w *walker) script(p payload) {
	if !isStatic(p.text) {
		w.c.found(KeyHidden)
	}
	var sc *scope
	if p.sameShell {
		sc = w.sc.clone()
	}
	w.c.analyze(clean(p.text), w.depth+1, sc)
}

// finish judges the files the command runs against the files it writes:
// a script it wrote itself is read as a script when a shell runs it and
// its content is known, and is hidden code otherwise.
func (c *check) finish() {
	for i := 0; i < len(c.runs); i++ {
		r := c.runs[i]
		contents := c.written(r.base)
		if len(contents) == 0 {
			if c.writesAny {
				c.found(KeyHidden)
			}
			continue
		}
		for _, body := range contents {
			if !r.shell || body == unknownContent || !shellScript(body) {
				c.found(KeyHidden)
				continue
			}
			c.analyze(body, 1, nil)
		}
	}
}

// written returns what the command writes to files named base ("*.go":
// every Go file).
func (c *check) written(base string) []string {
	if suffix, ok := strings.CutPrefix(base, "*"); ok {
		var out []string
		for name, contents := range c.writes {
			if strings.HasSuffix(name, suffix) {
				out = append(out, contents...)
			}
		}
		return out
	}
	return c.writes[base]
}

// shellScript reports content a shell runs: no #! line, or one naming a
// shell.
func shellScript(body string) bool {
	line, _, _ := strings.Cut(body, "\n")
	if !strings.HasPrefix(line, "#!") {
		return true
	}
	for _, sh := range []string{"/sh", "/bash", "/zsh", "/dash", "/ksh", " sh", " bash", " zsh", " dash", " ksh"} {
		if strings.HasSuffix(strings.TrimSpace(line), strings.TrimPrefix(sh, " ")) && (strings.Contains(line, sh)) {
			return true
		}
	}
	return false
}

// write records a file the command writes: its name as rendered, and what
// is written (unknownContent when not known).
func (w *walker) write(target, content string) {
	if target == "" {
		return
	}
	c := w.c
	if !isStatic(target) {
		base := target
		if i := strings.LastIndexAny(target, "/"); i >= 0 {
			base = target[i+1:]
		}
		if isUnknown(target) {
			c.found(keyHiddenTarget)
		}
		if !isStatic(base) {
			c.writesAny = true
			return
		}
	}
	t := clean(target)
	if gitMetaPath(t) {
		c.found(keyGitMeta)
	}
	if t == "/dev/null" || strings.HasPrefix(t, "/dev/") || t == "-" {
		return
	}
	w.record(path.Base(strings.TrimSuffix(t, "/")), content)
}

// record adds a file the command writes, by base name.
func (w *walker) record(base, content string) {
	c := w.c
	if c.writes == nil {
		c.writes = map[string][]string{}
	}
	c.writes[base] = append(c.writes[base], content)
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

// fallback is hermes's detection over a string the parser refused (or one
// too deep to read): every rule, unanchored (the floor at hermes's command
// positions), over the normalised text. What it runs is not known, so it
// also asks as unreadable.
func (c *check) fallback(src string) {
	s := flatten(src)
	t := c.t
	for i := range t.hardline {
		if t.hardline[i].possible(s) && t.hardline[i].loose.MatchString(s) {
			c.hit[t.hardKey[i]] = true
		}
	}
	for i := range t.dangerous {
		if t.dangerous[i].possible(s) && t.dangerous[i].matchLoose(s) {
			c.hit[t.dangKey[i]] = true
		}
	}
	c.found(KeyUnparsable)
}

// walker reads one parsed script.
type walker struct {
	c     *check
	src   string
	depth int
	// sc is the shell state at the statement being read.
	sc *scope
	// aliases are the names the script defines as aliases: a command word
	// naming one runs text the walk does not resolve.
	aliases map[string]bool
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
	t := w.c.t
	for i := range t.hardline {
		if t.hardline[i].possible(s) && t.hardline[i].loose.MatchString(s) {
			w.c.hit[t.hardKey[i]] = true
		}
	}
	w.matchWhole(s)
}

func (w *walker) matchWhole(s string) {
	t := w.c.t
	for i := range t.dangerous {
		if t.dangerous[i].kind == kindWhole && t.dangerous[i].possible(s) && t.dangerous[i].re.MatchString(s) {
			w.c.hit[t.dangKey[i]] = true
		}
	}
}

// stmts reads a statement list. certain says its statements run, in this
// shell, in order (so an assignment there replaces what a variable held).
func (w *walker) stmts(list []*syntax.Stmt, certain bool) {
	for _, s := range list {
		w.stmt(s, certain)
	}
}

func (w *walker) stmt(s *syntax.Stmt, certain bool) {
	if s.Background || s.Coprocess {
		// It runs in a subshell, alongside what follows.
		outer := w.sc
		w.sc = outer.clone()
		defer func() { w.sc = outer }()
		certain = false
	}
	for _, r := range s.Redirs {
		w.substs(r.Word)
		w.substs(r.Hdoc)
	}
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range cmd.Assigns {
			w.assignSubsts(a)
		}
		for _, a := range cmd.Args {
			w.substs(a)
		}
		if len(cmd.Args) == 0 {
			w.c.notReadOnly() // an assignment may change what later commands run with (PATH=…)
			for _, a := range cmd.Assigns {
				w.assign(a, certain)
			}
			w.redirects(s.Redirs, nil, "")
			return
		}
		w.call(cmd, s.Redirs)
		w.effects(cmd, certain)
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.AndStmt, syntax.OrStmt:
			w.stmt(cmd.X, certain)
			w.stmt(cmd.Y, false)
		default: // a pipeline: every part in its own subshell
			w.pipeline(cmd)
			outer := w.sc
			for _, part := range pipeParts(cmd) {
				w.sc = outer.clone()
				w.stmt(part, false)
			}
			w.sc = outer
		}
		w.redirects(s.Redirs, nil, "")
	case *syntax.Subshell:
		outer := w.sc
		w.sc = outer.clone()
		w.stmts(cmd.Stmts, certain)
		w.sc = outer
		w.redirects(s.Redirs, nil, "")
	case *syntax.Block:
		w.stmts(cmd.Stmts, certain)
		w.redirects(s.Redirs, nil, "")
	case *syntax.IfClause:
		w.ifClause(cmd, certain)
		w.redirects(s.Redirs, nil, "")
	case *syntax.WhileClause:
		w.prescan(cmd.Cond)
		w.prescan(cmd.Do)
		w.stmts(cmd.Cond, false)
		w.stmts(cmd.Do, false)
		w.redirects(s.Redirs, nil, "")
	case *syntax.ForClause:
		switch loop := cmd.Loop.(type) {
		case *syntax.WordIter:
			var v value
			if loop.InPos.IsValid() || len(loop.Items) > 0 {
				for _, it := range loop.Items {
					w.substs(it)
					for _, fs := range w.wordFields(it) {
						for _, f := range fs {
							v = union(v, known(f))
						}
					}
				}
			} else {
				v = value{unknown: true} // for x; do … (the positional parameters)
			}
			if len(v.alts) == 0 && !v.unknown {
				v = known("")
			}
			// The body runs with the variable set to one of the items.
			w.sc.set(loop.Name.Value, v, true)
		case *syntax.CStyleLoop:
			syntax.Walk(loop, w.substVisit)
			w.arith(loop.Init)
			w.arith(loop.Cond)
			w.arith(loop.Post)
		}
		w.prescan(cmd.Do)
		w.stmts(cmd.Do, false)
		w.redirects(s.Redirs, nil, "")
	case *syntax.CaseClause:
		w.substs(cmd.Word)
		for _, it := range cmd.Items {
			for _, p := range it.Patterns {
				w.substs(p)
			}
			w.stmts(it.Stmts, false)
		}
		w.redirects(s.Redirs, nil, "")
	case *syntax.FuncDecl:
		// The body runs whenever the function is called: nothing is known
		// of the variables there.
		outer := w.sc
		w.sc = outer.clone()
		w.sc.inFunc = true
		w.stmt(cmd.Body, false)
		w.sc = outer
	case *syntax.DeclClause:
		w.c.notReadOnly() // export, declare -x … change the environment of what runs
		for _, a := range cmd.Args {
			w.assignSubsts(a)
		}
		variant := ""
		if cmd.Variant != nil {
			variant = cmd.Variant.Value
		}
		nameref := variant == "nameref"
		for _, a := range cmd.Args {
			if a.Naked && a.Name == nil && a.Value != nil {
				if lit, ok := literal(a.Value); ok && strings.HasPrefix(lit, "-") && strings.ContainsRune(lit, 'n') {
					nameref = true // declare -n: the name stands for another variable
				}
			}
		}
		for _, a := range cmd.Args {
			if nameref && a.Name != nil {
				w.sc.set(a.Name.Value, value{unknown: true}, true)
				continue
			}
			if a.Naked && a.Name == nil && a.Value != nil {
				// an option, or a name given by an expansion: unknown
				if lit, ok := literal(a.Value); !ok || !strings.HasPrefix(lit, "-") {
					w.c.found(KeyHidden)
				}
				continue
			}
			if variant == "export" && a.Naked {
				continue
			}
			w.assign(a, certain && variant != "local")
			if variant == "export" && a.Name != nil && a.Value != nil {
				w.envVar(a.Name.Value, w.word(a.Value), "")
			}
		}
		w.redirects(s.Redirs, nil, "")
	case *syntax.TimeClause:
		if cmd.Stmt != nil {
			w.stmt(cmd.Stmt, certain)
		}
	case *syntax.CoprocClause:
		// What the script writes to a coprocess is its input: a shell
		// there runs it.
		w.c.found(KeyHidden)
		outer := w.sc
		w.sc = outer.clone()
		w.stmt(cmd.Stmt, false)
		w.sc = outer
	case *syntax.LetClause:
		syntax.Walk(cmd, w.substVisit)
		for _, e := range cmd.Exprs {
			w.arith(e)
		}
		syntax.Walk(cmd, func(n syntax.Node) bool {
			if wd, ok := n.(*syntax.Word); ok {
				if lit, ok := literal(wd); ok && isName(lit) {
					w.sc.set(lit, value{unknown: true}, false)
				}
			}
			return true
		})
		w.redirects(s.Redirs, nil, "")
	case *syntax.ArithmCmd:
		syntax.Walk(cmd, w.substVisit)
		w.arith(cmd.X)
		w.redirects(s.Redirs, nil, "")
	case *syntax.TestClause:
		syntax.Walk(cmd, w.substVisit)
		syntax.Walk(cmd.X, func(n syntax.Node) bool {
			if b, ok := n.(*syntax.BinaryTest); ok {
				switch b.Op {
				case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
					if x, ok := b.X.(*syntax.Word); ok {
						w.arithWord(x)
					}
					if y, ok := b.Y.(*syntax.Word); ok {
						w.arithWord(y)
					}
				}
			}
			return true
		})
		w.redirects(s.Redirs, nil, "")
	case nil:
		w.redirects(s.Redirs, nil, "")
	}
}

func (w *walker) ifClause(c *syntax.IfClause, certain bool) {
	w.stmts(c.Cond, certain)
	w.stmts(c.Then, false)
	if c.Else != nil {
		w.ifClause(c.Else, false)
	}
}

// pipeParts returns the statements of a pipeline, in order.
func pipeParts(b *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	var collect func(s *syntax.Stmt)
	collect = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			collect(bc.X)
			collect(bc.Y)
			return
		}
		out = append(out, s)
	}
	collect(b.X)
	collect(b.Y)
	return out
}

// substs reads the commands inside a word: command and process
// substitutions, which run in subshells before the command does.
func (w *walker) substs(word *syntax.Word) {
	if word == nil {
		return
	}
	syntax.Walk(word, w.substVisit)
}

func (w *walker) substVisit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.CmdSubst:
		outer := w.sc
		w.sc = outer.clone()
		w.stmts(n.Stmts, false)
		w.sc = outer
		return false
	case *syntax.ProcSubst:
		outer := w.sc
		w.sc = outer.clone()
		if n.Op == syntax.CmdOut {
			// >(cmd) reads what the outer command writes: a shell or an
			// interpreter there runs it.
			for _, st := range n.Stmts {
				if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
					words := w.callWords(call.Args)[0]
					if len(words) > 0 {
						var discard []payload
						views := wrapped(words, &discard, 0)
						if readsProgram(views[len(views)-1], st) {
							w.c.found(KeyHidden)
						}
					}
				}
			}
		}
		w.stmts(n.Stmts, false)
		w.sc = outer
		return false
	case *syntax.ArithmExp:
		w.arith(n.X)
	case *syntax.ParamExp:
		if n.Slice != nil {
			w.arith(n.Slice.Offset)
			w.arith(n.Slice.Length)
		}
		if n.Index != nil {
			w.arith(n.Index)
		}
	}
	return true
}

// arithValues checks the values of a variable arithmetic evaluates: one
// the command computed (read, a command's output) may hold a[$(cmd)]; a
// literal holding a substitution runs it. A variable the command never set
// comes from the agent's environment, which the model does not write.
func (w *walker) arithValues(name string, vals []string) {
	if isName(name) && !w.sc.inFunc {
		v, set := w.sc.vars[name]
		if !set {
			return
		}
		if !v.unknown {
			vals = v.alts // the environment's value aside
		}
	}
	for _, v := range vals {
		switch {
		case isUnknown(v):
			w.c.found(KeyHidden)
		case isStatic(v) && (strings.Contains(v, "$(") || strings.Contains(v, "`")):
			w.script(payload{text: v})
		}
	}
}

// arithWord checks a word [[ ]] evaluates as arithmetic (-eq, -lt …).
func (w *walker) arithWord(word *syntax.Word) {
	if lit, ok := literal(word); ok {
		if isName(lit) {
			w.arith(word)
		}
		return
	}
	for _, p := range word.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			p = dq.Parts[0]
		}
		if pe, ok := p.(*syntax.ParamExp); ok {
			name := ""
			if pe.Param != nil {
				name = pe.Param.Value
			}
			w.arithValues(name, w.param(pe))
		}
	}
}

// arith checks an arithmetic expression: bash evaluates the value of every
// variable it names as arithmetic again, and a[$(cmd)] there runs cmd. A
// variable whose value is not known may hold that; one whose known value
// holds a substitution runs it.
func (w *walker) arith(e syntax.ArithmExpr) {
	if e == nil {
		return
	}
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			if lit, ok := literal(n); ok && isName(lit) {
				w.arithValues(lit, w.lookup(lit, "$"+lit))
				return false
			}
		case *syntax.ParamExp:
			name := ""
			if n.Param != nil {
				name = n.Param.Value
			}
			w.arithValues(name, w.param(n))
			return false
		case *syntax.CmdSubst:
			if _, ok := w.literalOutput(n); !ok && !dataOutput(n) {
				w.c.found(KeyHidden) // its output is evaluated as arithmetic
			}
		}
		return true
	})
}

func (w *walker) assignSubsts(a *syntax.Assign) {
	if a.Value != nil {
		w.substs(a.Value)
	}
	if a.Array != nil {
		syntax.Walk(a.Array, w.substVisit)
	}
	if a.Index != nil {
		syntax.Walk(a.Index, w.substVisit)
	}
}

// assign records an assignment in the shell (X=v, declare X=v).
func (w *walker) assign(a *syntax.Assign, certain bool) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	switch {
	case a.Array != nil || a.Index != nil:
		w.sc.set(name, value{unknown: true}, certain)
	case a.Naked:
		if _, ok := w.sc.vars[name]; !ok {
			return // declare X: X keeps the environment's value
		}
	case a.Value == nil:
		w.sc.set(name, known(""), certain)
	case a.Append:
		old, ok := w.sc.vars[name]
		if !ok || old.unknown {
			w.sc.set(name, value{unknown: true}, certain)
			return
		}
		add := w.word(a.Value)
		var v value
		for _, o := range old.alts {
			v = union(v, known(o+add))
		}
		w.sc.set(name, v, certain)
	default:
		w.sc.set(name, w.wordValue(a.Value), certain)
	}
}

// prescan adds, before a loop is read, every assignment inside it: a later
// iteration sees what an earlier one set.
func (w *walker) prescan(list []*syntax.Stmt) {
	for _, s := range list {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.FuncDecl:
				return false
			case *syntax.Assign:
				if n.Name != nil && !n.Naked {
					if n.Value != nil && n.Array == nil && n.Index == nil && !n.Append {
						w.sc.set(n.Name.Value, w.wordValue(n.Value), false)
					} else {
						w.sc.set(n.Name.Value, value{unknown: true}, false)
					}
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					if lit, ok := literal(n.Args[0]); ok && setsVariables[lit] {
						for _, a := range n.Args[1:] {
							if l, ok := literal(a); ok && isName(l) {
								w.sc.set(l, value{unknown: true}, false)
							}
						}
					}
				}
			}
			return true
		})
	}
}

// setsVariables are builtins whose operands name variables they set to
// what they read or compute.
var setsVariables = map[string]bool{"read": true, "mapfile": true, "readarray": true, "getopts": true, "printf": true}

// effects records what a simple command does to the shell: read and the
// like set variables to unknown values, alias defines names, unset clears.
func (w *walker) effects(call *syntax.CallExpr, certain bool) {
	name, ok := literal(call.Args[0])
	if !ok {
		return
	}
	args := call.Args[1:]
	switch name {
	case "read", "mapfile", "readarray", "getopts":
		for _, a := range args {
			if l, ok := literal(a); ok && isName(l) {
				w.sc.set(l, value{unknown: true}, certain)
			}
		}
		if name == "read" {
			w.sc.set("REPLY", value{unknown: true}, certain)
		}
	case "printf":
		for i, a := range args {
			if l, ok := literal(a); ok && l == "-v" && i+1 < len(args) {
				if v, ok := literal(args[i+1]); ok {
					w.sc.set(v, value{unknown: true}, certain)
				}
			}
		}
	case "unset":
		for _, a := range args {
			if l, ok := literal(a); ok && isName(l) {
				if l == "IFS" && certain {
					delete(w.sc.vars, "IFS") // the default splitting again
					continue
				}
				w.sc.set(l, known(""), certain)
			}
		}
	case "hash":
		// hash -p /path name: name now runs /path
		for i, a := range args {
			if l, ok := literal(a); ok && l == "-p" && i+2 < len(args) {
				if n, ok := literal(args[i+2]); ok {
					w.aliases[n] = true
				}
			}
		}
	case "enable":
		w.c.found(KeyHidden) // enable -f loads a builtin from a shared object
	case "trap":
		// trap CMD SIGNALS: CMD runs later, in this shell
		if len(args) >= 2 {
			if l, ok := literal(args[0]); !ok || !strings.HasPrefix(l, "-") {
				w.script(payload{text: w.word(args[0]), sameShell: true})
			}
		}
	case "alias":
		for _, a := range args {
			def := w.word(a)
			n, v, ok := strings.Cut(def, "=")
			if !ok {
				continue
			}
			w.aliases[clean(n)] = true
			w.script(payload{text: v, sameShell: true})
		}
	case "shopt", "set":
		// set -- a b sets the positional parameters; set -f, shopt -s …
		// change expansion: nothing the walk resolves depends on them,
		// except IFS, which is a variable.
	}
}

// call checks one simple command: every view of every way its words may
// expand.
func (w *walker) call(ce *syntax.CallExpr, redirs []*syntax.Redirect) {
	var env []string
	for _, a := range ce.Assigns {
		if a.Name == nil {
			continue
		}
		val := ""
		if a.Value != nil {
			val = w.word(a.Value)
		}
		env = append(env, a.Name.Value+"="+val)
	}
	in, bodies, stdin := w.inputs(redirs)
	for _, words := range w.callWords(ce.Args) {
		if len(words) == 0 {
			continue
		}
		var payloads []payload
		views := wrapped(words, &payloads, 0)
		if len(env) > 0 || len(payloads) > 0 || !readOnlyViews(views) {
			w.c.notReadOnly()
		}
		for i, raw := range views {
			vEnv := env
			if i > 0 {
				vEnv = append(append([]string(nil), env...), envAssigns(views[i-1][1:])...)
			}
			v := newView(raw, in, vEnv)
			w.checkView(v)
			w.inspect(v, bodies, stdin, &payloads)
		}
		w.redirects(redirs, words, stdin)
		for _, p := range payloads {
			w.script(p)
		}
	}
}

// callWords returns the words of a simple command for each way its words
// may expand (at most maxViews; past that, the words with more than one
// value are unknown).
func (w *walker) callWords(args []*syntax.Word) [][]string {
	per := make([][][]string, len(args))
	n := 1
	for i, a := range args {
		per[i] = w.wordFields(a)
		n *= len(per[i])
		if n > maxViews {
			n = maxViews + 1
		}
	}
	if n > maxViews {
		for i := range per {
			if len(per[i]) > 1 {
				per[i] = [][]string{{unknownText(w.text(args[i]))}}
			}
		}
	}
	out := [][]string{nil}
	for _, alts := range per {
		if len(alts) == 1 {
			for i := range out {
				out[i] = append(out[i], alts[0]...)
			}
			continue
		}
		var next [][]string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, append(append([]string(nil), o...), a...))
			}
		}
		out = next
	}
	return out
}

// inputs renders a command's input redirections ("<< EOF", "< <(curl …)")
// for its views, returns the bodies of its here-documents and here-strings,
// and what its standard input is: "heredoc", "file", or "" (inherited).
func (w *walker) inputs(redirs []*syntax.Redirect) (in string, bodies []string, stdin string) {
	var parts []string
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			target := ""
			if r.Word != nil {
				target = w.word(r.Word)
			}
			parts = append(parts, r.Op.String()+" "+clean(target))
			switch {
			case r.Hdoc != nil:
				bodies = append(bodies, w.word(r.Hdoc))
				stdin = "heredoc"
			case r.Op == syntax.WordHdoc:
				bodies = append(bodies, target)
				stdin = "heredoc"
			default:
				stdin = "file:" + target
			}
		case syntax.DplIn:
			stdin = "file:/dev/stdin" // <&3: another descriptor's content
		}
	}
	return strings.Join(parts, " "), bodies, stdin
}

func (w *walker) checkView(v *view) {
	t := w.c.t
	w.c.needs = w.c.needs.Or(needsOf(v))
	for i := range t.hardline {
		if t.hardline[i].kind == kindCmd && strings.HasPrefix(v.s, t.hardline[i].prefix) && t.hardline[i].re.MatchString(v.s) {
			w.c.hit[t.hardKey[i]] = true
		}
	}
	for i := range t.dangerous {
		r := &t.dangerous[i]
		if r.kind != kindCmd || !strings.HasPrefix(v.s, r.prefix) {
			continue
		}
		if r.fn != nil {
			if r.fn(v) {
				w.c.hit[t.dangKey[i]] = true
			}
		} else if r.re.MatchString(v.s) {
			w.c.hit[t.dangKey[i]] = true
		}
	}
	if !proseCommands[v.name()] {
		w.matchArgs(v.s)
	}
}

func (w *walker) matchArgs(s string) {
	t := w.c.t
	for i := range t.dangerous {
		if t.dangerous[i].kind == kindArgs && t.dangerous[i].possible(s) && t.dangerous[i].matchString(s) {
			w.c.hit[t.dangKey[i]] = true
		}
	}
}

// redirects checks a statement's output redirections, rendered "<op>
// <target>", and records the files they write. words are the command's
// (nil for a compound command): what echo, printf or cat of a
// here-document prints is the content written.
func (w *walker) redirects(redirs []*syntax.Redirect, words []string, stdin string) {
	t := w.c.t
	for _, r := range redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn, syntax.DplOut:
			if r.Op != syntax.DplOut {
				continue
			}
			if r.Word != nil {
				if lit, ok := literal(r.Word); !ok || lit == "-" || isDigits(lit) {
					continue // 2>&1, >&-, >&"$fd": a descriptor, not a file
				}
			}
		}
		if r.Word != nil && len(r.Word.Parts) == 1 {
			if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
				continue // > >(cmd): cmd's input, checked with cmd
			}
		}
		target := ""
		if r.Word != nil {
			target = w.word(r.Word)
		}
		s := strings.ToLower(r.Op.String() + " " + clean(target))
		for i := range t.hardline {
			if t.hardline[i].kind == kindRedir && t.hardline[i].re.MatchString(s) {
				w.c.hit[t.hardKey[i]] = true
			}
		}
		for i := range t.dangerous {
			if t.dangerous[i].kind == kindRedir && t.dangerous[i].re.MatchString(s) {
				w.c.hit[t.dangKey[i]] = true
			}
		}
		content := unknownContent
		if r.Op == syntax.RdrOut || r.Op == syntax.ClbOut || r.Op == syntax.RdrAll {
			content = printedBy(words, w.hdocBody(redirs), stdin)
		}
		w.write(target, content)
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// hdocBody returns the rendered body of the here-document among redirs, or "".
func (w *walker) hdocBody(redirs []*syntax.Redirect) string {
	for _, r := range redirs {
		if r.Hdoc != nil {
			return w.word(r.Hdoc)
		}
		if r.Op == syntax.WordHdoc && r.Word != nil {
			return w.word(r.Word) + "\n"
		}
	}
	return ""
}

// printedBy is what a command with these words prints, when the walk knows:
// echo and printf of literals, cat of its here-document.
func printedBy(words []string, body, stdin string) string {
	if len(words) == 0 {
		return unknownContent
	}
	for _, w := range words {
		if !isStatic(w) {
			return unknownContent
		}
	}
	switch commandName(words[0]) {
	case "echo", "printf":
		if s, ok := printed(append([]string{commandName(words[0])}, words[1:]...)); ok {
			return s
		}
	case "cat":
		if len(words) == 1 && stdin == "heredoc" && isStatic(body) {
			return body
		}
	}
	return unknownContent
}

// pipeline checks a pipeline as a whole: rebuilt from its stages, each
// reduced to the command it finally runs (curl … | sudo bash → "curl … |
// bash") with arguments that hold spaces or shell syntax masked, it is
// matched against the pipeline rules; and a shell or interpreter that reads
// its program from the pipe runs the output of the stage before it —
// hidden, unless that is echo or printf of a literal script.
func (w *walker) pipeline(b *syntax.BinaryCmd) {
	var stages []string
	var prev []string
	prevBody := ""
	for i, s := range pipeParts(b) {
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			stages = append(stages, "_")
			prev, prevBody = nil, ""
			continue
		}
		alts := w.callWords(call.Args)
		words := alts[0]
		if len(words) == 0 {
			stages = append(stages, "_")
			prev = nil
			continue
		}
		var discard []payload
		views := wrapped(words, &discard, 0)
		last := views[len(views)-1]
		parts := []string{commandName(last[0])}
		for _, a := range last[1:] {
			parts = append(parts, maskArg(clean(a)))
		}
		stages = append(stages, strings.Join(parts, " "))
		if i > 0 && readsProgram(last, s) {
			switch {
			case isShell(commandName(last[0])) && echoes(prev):
				w.script(payload{text: echoed(prev)})
			case isShell(commandName(last[0])) && prevBody != "" && isStatic(prevBody):
				w.script(payload{text: prevBody})
			default:
				w.c.found(KeyHidden)
			}
		}
		prev, prevBody = last, ""
		if len(last) == 1 && commandName(last[0]) == "cat" {
			prevBody = w.hdocBody(s.Redirs)
		}
	}
	w.matchWhole(strings.ToLower(strings.Join(stages, " | ")))
}

// readsProgram reports a shell or interpreter that reads its program from
// its standard input (the pipe), not from a file, -c or a here-document.
func readsProgram(words []string, s *syntax.Stmt) bool {
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			return false
		}
	}
	name := commandName(words[0])
	args := words[1:]
	switch {
	case isShell(name):
		op := shellOperand(cleanAll(args))
		return op == "-" || op == "/dev/stdin"
	case name == "source" || name == ".":
		return len(args) == 0 || clean(args[0]) == "/dev/stdin" || clean(args[0]) == "-"
	case interpreterFamily(name) != "":
		if interpreterExec(newView(words, "", nil)) {
			return false
		}
		op := interpreterScript(interpreterFamily(name), cleanAll(args))
		return op == "" || op == "-" || op == "/dev/stdin"
	}
	return false
}

// echoes reports echo or printf of literals.
func echoes(words []string) bool {
	if len(words) < 2 {
		return false
	}
	if n := commandName(words[0]); n != "echo" && n != "printf" {
		return false
	}
	for _, w := range words {
		if !isStatic(w) {
			return false
		}
	}
	return true
}

// echoed is what echo or printf of literals prints.
func echoed(words []string) string {
	if s, ok := printed(append([]string{commandName(words[0])}, words[1:]...)); ok {
		return s
	}
	return unknownText(strings.Join(words[1:], " "))
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
