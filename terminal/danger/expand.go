package danger

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Markers in a rendered word. A word is rendered as the shell would expand
// it, as far as that is knowable without running anything; a part whose
// value is not knowable keeps its source text, preceded by a marker that
// says how much is known about it. prepare removes both bytes from the
// input, so they occur nowhere else.
const (
	// markUnknown: what follows may expand to anything — the output of a
	// command, a variable the command did not set, a positional parameter.
	markUnknown = '\x01'
	// markData: what follows is computed, but only ever data — a glob's
	// file names, a number, a fresh temporary path. In an argument it is
	// harmless; as a program's name or as code it is as hidden as the rest.
	markData = '\x02'
	// markEnd closes what a marker opened.
	markEnd = '\x03'
	marks   = "\x01\x02\x03"
)

// unknownText and dataText mark source text.
func unknownText(s string) string { return string(markUnknown) + s + string(markEnd) }
func dataText(s string) string    { return string(markData) + s + string(markEnd) }

// isStatic reports a word with nothing computed in it.
func isStatic(s string) bool { return !strings.ContainsAny(s, marks) }

// isUnknown reports a word with a part that may expand to anything.
func isUnknown(s string) bool { return strings.IndexByte(s, markUnknown) >= 0 }

// clean removes the markers: the text the rules match.
func clean(s string) string {
	if isStatic(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == markUnknown || r == markData || r == markEnd {
			return -1
		}
		return r
	}, s)
}

// value is what a variable may hold: one of alts (rendered words); when
// unknown is set, something the command computes that the walk does not
// know (what read read, a command's output); when env is set, the value it
// had before the command (the agent's environment's, not the model's).
type value struct {
	alts    []string
	unknown bool
	env     bool
}

// known is a variable certainly set to s.
func known(s string) value { return value{alts: []string{s}} }

// union is every value a or b may be.
func union(a, b value) value {
	out := value{unknown: a.unknown || b.unknown, env: a.env || b.env, alts: append([]string(nil), a.alts...)}
	for _, s := range b.alts {
		if !containsString(out.alts, s) {
			out.alts = append(out.alts, s)
		}
	}
	if len(out.alts) > maxAlts {
		out.alts, out.unknown = out.alts[:maxAlts], true
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxAlts bounds the alternatives followed for one word or variable, and
// maxViews those of one simple command; past them a value counts as
// unknown (which asks).
const (
	maxAlts  = 8
	maxViews = 32
)

// scope is the shell state the walk knows at one point: the variables set
// so far and how they may have been set.
type scope struct {
	vars map[string]value
	// inFunc: inside a function body, which runs whenever it is called,
	// so no variable's value is known there.
	inFunc bool
}

func newScope() *scope { return &scope{vars: map[string]value{}} }

// clone is the scope a subshell starts with: its assignments do not come
// back.
func (s *scope) clone() *scope {
	c := &scope{vars: make(map[string]value, len(s.vars)), inFunc: s.inFunc}
	for k, v := range s.vars {
		c.vars[k] = v
	}
	return c
}

// set records an assignment of v to name. A certain assignment (it runs,
// in this shell, before whatever follows it) replaces what was known; any
// other adds to it, and the variable may also still hold what it held
// before (the environment's value when the command never set it).
func (s *scope) set(name string, v value, certain bool) {
	if certain {
		s.vars[name] = v
		return
	}
	old, ok := s.vars[name]
	if !ok {
		old = value{env: true}
	}
	s.vars[name] = union(old, v)
}

// pathVars are variables the command may use without setting them whose
// value is a folder: $HOME/bin/x is the program x in a known place, and the
// rules written against ~/.ssh see $HOME/.ssh as it is spelled.
var pathVars = map[string]bool{
	"HOME": true, "PWD": true, "OLDPWD": true, "TMPDIR": true, "HERMES_HOME": true, "GOPATH": true,
	"GOBIN": true, "GOROOT": true, "GOCACHE": true, "GOMODCACHE": true, "CARGO_HOME": true,
	"RUSTUP_HOME": true, "VIRTUAL_ENV": true, "CONDA_PREFIX": true, "XDG_CONFIG_HOME": true,
	"XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_STATE_HOME": true, "XDG_RUNTIME_DIR": true,
	"NVM_DIR": true, "PNPM_HOME": true, "JAVA_HOME": true, "ANDROID_HOME": true,
}

// lookup returns what $name may be, rendered: a path variable the command
// did not set stays as written.
func (w *walker) lookup(name, text string) []string {
	if w.sc.inFunc {
		return []string{unknownText(text)}
	}
	v, ok := w.sc.vars[name]
	if !ok {
		if pathVars[name] {
			return []string{text}
		}
		return []string{unknownText(text)}
	}
	alts := append([]string(nil), v.alts...)
	if v.unknown || v.env && !pathVars[name] {
		alts = append(alts, unknownText(text))
	} else if v.env {
		alts = append(alts, text)
	}
	return alts
}

// seg is a piece of one spelling of a word: split says the shell splits
// it into fields at IFS characters (the result of an unquoted expansion).
type seg struct {
	s     string
	split bool
}

// spelling is one way a word may expand, before field splitting.
type spelling []seg

// spellings returns every way word may expand (at most maxAlts; past that,
// one spelling marked unknown).
func (w *walker) spellings(word *syntax.Word) []spelling {
	out := []spelling{nil}
	for _, p := range word.Parts {
		alts := w.partAlts(p, false)
		if len(alts) == 1 {
			for i := range out {
				out[i] = append(out[i], alts[0]...)
			}
			continue
		}
		var next []spelling
		for _, o := range out {
			for _, a := range alts {
				next = append(next, append(append(spelling(nil), o...), a...))
			}
		}
		if len(next) > maxAlts {
			return []spelling{{{s: unknownText(w.text(word))}}}
		}
		out = next
	}
	return out
}

// partAlts returns the spellings of one word part.
func (w *walker) partAlts(p syntax.WordPart, quoted bool) []spelling {
	one := func(s string, split bool) []spelling { return []spelling{{{s: s, split: split}}} }
	switch p := p.(type) {
	case *syntax.Lit:
		if quoted {
			return one(unescape(p.Value, true), false)
		}
		return one(markGlobs(p.Value), false)
	case *syntax.SglQuoted:
		if p.Dollar {
			return one(ansiC(p.Value), false)
		}
		return one(p.Value, false)
	case *syntax.DblQuoted:
		out := []spelling{{{s: "", split: false}}} // "" is a field even when empty
		for _, q := range p.Parts {
			alts := w.partAlts(q, true)
			var next []spelling
			for _, o := range out {
				for _, a := range alts {
					next = append(next, append(append(spelling(nil), o...), a...))
				}
			}
			if len(next) > maxAlts {
				return one(unknownText(w.text(p)), false)
			}
			out = next
		}
		return out
	case *syntax.ParamExp:
		alts := w.param(p)
		out := make([]spelling, 0, len(alts))
		for _, a := range alts {
			out = append(out, spelling{{s: a, split: !quoted}})
		}
		return out
	case *syntax.CmdSubst:
		if s, ok := w.literalOutput(p); ok {
			return one(s, !quoted)
		}
		if dataOutput(p) {
			return one(dataText(w.text(p)), false)
		}
		return one(unknownText(w.text(p)), false)
	case *syntax.ArithmExp:
		return one(dataText(w.text(p)), false) // a number
	case *syntax.ExtGlob:
		return one(dataText(w.text(p)), false)
	default: // process substitution, and anything new
		return one(unknownText(w.text(p)), false)
	}
}

// markGlobs resolves the backslashes of an unquoted literal and marks its
// unescaped glob characters (* ? and a [ with a ] after it): the shell
// replaces the word by file names.
func markGlobs(s string) string {
	if !strings.ContainsAny(s, `\*?[`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		if c == '*' || c == '?' || c == '[' && strings.IndexByte(s[i+1:], ']') >= 0 {
			b.WriteString(dataText(string(c)))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// fields splits one spelling into the words the command receives: at the
// characters of IFS inside split segments; an unquoted expansion that is
// empty gives no word.
func (w *walker) fields(sp spelling) []string {
	ifs, ifsKnown := w.ifs()
	var out []string
	var cur strings.Builder
	in := false
	flush := func() {
		if in {
			out = append(out, cur.String())
		}
		cur.Reset()
		in = false
	}
	for _, sg := range sp {
		if !sg.split {
			cur.WriteString(sg.s)
			in = true
			continue
		}
		if !ifsKnown && strings.TrimLeft(sg.s, marks) != "" {
			// Where the shell splits it is not known: neither are the words.
			cur.WriteString(unknownText(clean(sg.s)))
			in = true
			continue
		}
		for _, r := range sg.s {
			if strings.ContainsRune(ifs, r) {
				if in && (cur.Len() > 0 || !isIFSSpace(r)) {
					flush()
				}
				continue
			}
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return out
}

func isIFSSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// ifs returns the characters the shell splits at, and whether they are
// known.
func (w *walker) ifs() (string, bool) {
	if w.sc.inFunc {
		if _, set := w.sc.vars["IFS"]; set {
			return "", false
		}
		return " \t\n", true
	}
	v, ok := w.sc.vars["IFS"]
	if !ok {
		return " \t\n", true
	}
	if v.unknown || len(v.alts) != 1 || !isStatic(v.alts[0]) {
		return "", false
	}
	return v.alts[0], true
}

// braces matches an unquoted word bash brace-expands into several words:
// {rm,-rf,/} is the command rm -rf /.
var braces = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^{},]*)\{([^{}]*,[^{}]*)\}([^{}]*)$`) })

// wordFields returns, for each spelling of word, the words it expands to;
// a literal word with a brace expansion ({a,b}) gives several.
func (w *walker) wordFields(word *syntax.Word) [][]string {
	if lit, ok := literal(word); ok && len(word.Parts) == 1 && strings.ContainsRune(lit, ',') {
		if m := braces().FindStringSubmatch(lit); m != nil {
			var out []string
			for _, alt := range strings.Split(m[2], ",") {
				out = append(out, m[1]+alt+m[3])
			}
			return [][]string{out}
		}
	}
	sps := w.spellings(word)
	out := make([][]string, 0, len(sps))
	for _, sp := range sps {
		out = append(out, w.fields(sp))
	}
	return out
}

// word renders a word as one string (an assignment's value, a redirection's
// target, a here-document): its first spelling, not split.
func (w *walker) word(word *syntax.Word) string {
	sps := w.spellings(word)
	var b strings.Builder
	for _, sg := range sps[0] {
		b.WriteString(sg.s)
	}
	return b.String()
}

// wordValue is every value an assignment of word gives.
func (w *walker) wordValue(word *syntax.Word) value {
	var v value
	for _, sp := range w.spellings(word) {
		var b strings.Builder
		for _, sg := range sp {
			b.WriteString(sg.s)
		}
		if s := b.String(); !containsString(v.alts, s) {
			v.alts = append(v.alts, s)
		}
	}
	return v
}

// param renders a parameter expansion's possible values: a variable the
// command set to literals is those literals, the operators on a known
// value (${x:-d}, ${x#p}, ${x/a/b}, ${x^^}, ${x:1:2}) are applied, and
// anything else — special and positional parameters, ${!x}, arrays, a
// variable from the environment — is unknown.
func (w *walker) param(p *syntax.ParamExp) []string {
	text := w.text(p)
	if p.Param == nil || p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0 {
		return []string{unknownText(text)}
	}
	name := p.Param.Value
	switch {
	case p.Length:
		return []string{dataText(text)}
	case p.Excl || p.Index != nil || p.Names != 0 || p.Width || p.IsSet:
		return []string{unknownText(text)}
	}
	switch name {
	case "#", "?", "$", "!", "-":
		return []string{dataText(text)}
	case "IFS":
		if !w.sc.inFunc {
			if v, ok := w.sc.vars["IFS"]; !ok {
				return []string{" "}
			} else if !v.unknown {
				return v.alts
			}
		}
		return []string{unknownText(text)}
	}
	if !isName(name) {
		return []string{unknownText(text)} // $@ $* $0 $1 …
	}
	vals := w.lookup(name, "$"+name)
	switch {
	case p.Exp != nil:
		return w.paramExp(p.Exp, vals, text)
	case p.Repl != nil:
		return w.paramRepl(p.Repl, vals, text)
	case p.Slice != nil:
		return w.paramSlice(p.Slice, vals, text)
	}
	if !p.Short {
		for i, v := range vals {
			if isUnknown(v) {
				vals[i] = unknownText(text)
			}
		}
	}
	return vals
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// paramExp applies ${x OP word}.
func (w *walker) paramExp(e *syntax.Expansion, vals []string, text string) []string {
	arg := ""
	argStatic := true
	if e.Word != nil {
		arg = w.word(e.Word)
		argStatic = isStatic(arg)
	}
	var out []string
	add := func(s string) {
		if !containsString(out, s) {
			out = append(out, s)
		}
	}
	for _, v := range vals {
		unknown := isUnknown(v)
		switch e.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			// The variable's value, or the word when it is unset (or empty).
			if unknown {
				add(unknownText(text))
				add(arg)
			} else if v == "" && e.Op != syntax.DefaultUnset && e.Op != syntax.AssignUnset {
				add(arg)
			} else {
				add(v)
			}
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if unknown {
				add(arg)
				add("")
			} else if v != "" || e.Op == syntax.AlternateUnset {
				add(arg)
			} else {
				add("")
			}
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			add(v)
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			if unknown || !argStatic || strings.ContainsAny(arg, "*?[") {
				add(unknownText(text))
				continue
			}
			if e.Op == syntax.RemSmallPrefix || e.Op == syntax.RemLargePrefix {
				add(strings.TrimPrefix(v, arg))
			} else {
				add(strings.TrimSuffix(v, arg))
			}
		case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
			if unknown || arg != "" {
				add(unknownText(text))
				continue
			}
			switch e.Op {
			case syntax.UpperAll:
				add(strings.ToUpper(v))
			case syntax.LowerAll:
				add(strings.ToLower(v))
			case syntax.UpperFirst:
				add(strings.ToUpper(v[:min(1, len(v))]) + v[min(1, len(v)):])
			default:
				add(strings.ToLower(v[:min(1, len(v))]) + v[min(1, len(v)):])
			}
		default: // ${x@Q}, ${x@E} … and zsh's
			add(unknownText(text))
		}
	}
	return out
}

// paramRepl applies ${x/a/b} and ${x//a/b} with literal patterns.
func (w *walker) paramRepl(r *syntax.Replace, vals []string, text string) []string {
	orig, with := "", ""
	if r.Orig != nil {
		orig = w.word(r.Orig)
	}
	if r.With != nil {
		with = w.word(r.With)
	}
	var out []string
	for _, v := range vals {
		if isUnknown(v) || !isStatic(orig) || !isStatic(with) || orig == "" ||
			strings.ContainsAny(orig, "*?[") || strings.HasPrefix(orig, "#") || strings.HasPrefix(orig, "%") {
			out = append(out, unknownText(text))
			continue
		}
		n := 1
		if r.All {
			n = -1
		}
		out = append(out, strings.Replace(v, orig, with, n))
	}
	return out
}

// paramSlice applies ${x:offset:length} with literal numbers.
func (w *walker) paramSlice(s *syntax.Slice, vals []string, text string) []string {
	num := func(e syntax.ArithmExpr) (int, bool) {
		if e == nil {
			return -1, true
		}
		wd, ok := e.(*syntax.Word)
		if !ok {
			return 0, false
		}
		lit, ok := literal(wd)
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(lit))
		return n, err == nil && n >= 0
	}
	off, ok1 := num(s.Offset)
	length, ok2 := num(s.Length)
	var out []string
	for _, v := range vals {
		if isUnknown(v) || !ok1 || !ok2 || !isStatic(v) {
			out = append(out, unknownText(text))
			continue
		}
		off := max(off, 0)
		if off > len(v) {
			off = len(v)
		}
		end := len(v)
		if length >= 0 && off+length < end {
			end = off + length
		}
		out = append(out, v[off:end])
	}
	return out
}

// literalOutput resolves a command substitution whose output is known
// without running anything: $() is empty, $(echo rm), $(echo -e '\x72m'),
// $(printf %s rm), $(printf '\x72\x6d') and $(printf '%b' '\x72m') print
// their literal.
func (w *walker) literalOutput(c *syntax.CmdSubst) (string, bool) {
	if len(c.Stmts) == 0 {
		return "", true
	}
	if len(c.Stmts) != 1 || len(c.Stmts[0].Redirs) > 0 || c.Stmts[0].Background || c.Stmts[0].Negated {
		return "", false
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || len(call.Assigns) > 0 {
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
	out, ok := printed(args)
	return strings.TrimRight(out, "\n"), ok
}

// printed is what echo or printf with these literal arguments prints, when
// that is simple to know.
func printed(args []string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	switch args[0] {
	case "echo":
		args = args[1:]
		escapes, newline := false, true
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
			escapes = escapes && !strings.ContainsRune(args[0], 'E') || strings.ContainsRune(args[0], 'e')
			newline = newline && !strings.ContainsRune(args[0], 'n')
			args = args[1:]
		}
		s := strings.Join(args, " ")
		if escapes {
			if strings.Contains(s, `\c`) {
				return "", false
			}
			s = ansiC(s)
		}
		if newline {
			s += "\n"
		}
		return s, true
	case "printf":
		if len(args) < 2 {
			return "", false
		}
		format := args[1]
		rest := args[2:]
		switch {
		case format == "%s" || format == `%s\n`:
			if len(rest) != 1 {
				return "", false
			}
			out := rest[0]
			if format != "%s" {
				out += "\n"
			}
			return out, true
		case format == "%b" || format == `%b\n`:
			if len(rest) != 1 || strings.Contains(rest[0], `\c`) {
				return "", false
			}
			out := ansiC(rest[0])
			if format != "%b" {
				out += "\n"
			}
			return out, true
		case len(rest) == 0 && !strings.Contains(format, "%") && !strings.Contains(format, `\c`):
			return ansiC(format), true
		}
	}
	return "", false
}

// dataOutput reports a command substitution whose output is only data —
// a fresh temporary path, the date, a number, the working folder — never a
// word that would change what a command does.
func dataOutput(c *syntax.CmdSubst) bool {
	if len(c.Stmts) != 1 {
		return false
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	for _, r := range c.Stmts[0].Redirs {
		if r.Op != syntax.RdrIn {
			return false
		}
	}
	name, ok := literal(call.Args[0])
	if !ok {
		return false
	}
	switch name {
	case "mktemp", "date", "pwd", "nproc", "whoami", "id", "uname", "hostname", "getconf", "seq", "wc", "stat", "du":
		return true
	}
	return false
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
// $'\x72\x6d' reads as rm; echo -e and printf's %b use the same.
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
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < maxDigits && isHex(s[j]) {
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
			if e == '0' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '7' {
				j++ // echo -e's \0NNN
			}
			start := j
			for j < len(s) && j-start < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[start:j], 8, 16)
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
