package tools

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/toolsets"
)

// registrationHelperFiles are the files of package tools that define no
// tool: the package's plumbing and the engines and helpers tools share.
// Every other non-test file is a tool file: <tool>.go registering <tool>,
// with its description in <tool>.md.
var registrationHelperFiles = []string{
	"doc.go",      // package documentation
	"deps.go",     // a session's dependencies and per-session state
	"table.go",    // the built-in table, register, Entries and Bind
	"render.go",   // the editor's titles, previews and renderings
	"fuzzy.go",    // the call site of the fuzzy engine (tools/internal/fuzzy)
	"v4a.go",      // the V4A patch engine and unified diff
	"edit.go",     // what write_file and patch share
	"encoding.go", // binary files and text encodings for the editing tools
	"commands.go", // the command tools' seams to the session
	"browser.go",  // what the browser_* tools share
	"cdpfiles.go", // the file checks of browser_cdp
	// execute_code's tool calls: their socket and answers, the relay of a
	// terminal backend, the check of who connected, per system
	"execute_code_rpc.go",
	"execute_code_remote.go",
	"execute_code_peer_linux.go",
	"execute_code_peer_other.go",
}

// registration is one top-level `var _ = register(registry.Entry{...}, handle(run))`
// or `var _ = declare(registry.Tool[D]{Spec: registry.Spec{Entry: registry.Entry{...}, Params: P{}}, New: f})`.
type registration struct {
	name string // the Entry's Name: a string literal or a constant of the file ("" otherwise)
	desc string // the file embedded (//go:embed) into the Entry's Description ("" otherwise)
	run  string // the run function given to handle, or "New" for a declared tool ("" otherwise)
	pos  token.Position
	// declared: by declare, with its spec and constructor.
	declared bool
}

// declaredToolForbidden are the identifiers a file declaring a tool with
// declare may not use: the tool sees only its constructor's inputs (the
// dependencies it declares), never the session binding it.
var declaredToolForbidden = []string{"session", "newSession", "Deps", "services"}

// registrationScan is what the AST of one file says about registration.
type registrationScan struct {
	registrations []registration
	problems      []string
}

// registrationScanFile parses one file and finds its registrations and every
// misuse: register called (or referenced) anywhere but as the whole value
// of a top-level `var _ =`, an Entry whose Name is neither a string literal
// nor a string constant of the file, a Description that is not a variable
// the file fills with //go:embed, a handler that is not handle(f) of a
// function of the file, and a registry.Entry built outside such a call.
func registrationScanFile(fset *token.FileSet, path string) (registrationScan, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return registrationScan{}, err
	}
	consts := map[string]string{} // string constants of the file
	embeds := map[string]string{} // variables filled by //go:embed → file
	funcs := map[string]bool{}    // top-level functions of the file
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				funcs[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				switch d.Tok {
				case token.CONST:
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							if s, ok := registrationString(vs.Values[i]); ok {
								consts[n.Name] = s
							}
						}
					}
				case token.VAR:
					doc := vs.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					if file := registrationEmbed(doc); file != "" && len(vs.Names) == 1 {
						embeds[vs.Names[0].Name] = file
					}
				}
			}
		}
	}
	var s registrationScan
	allowed := map[*ast.CallExpr]bool{}
	allowedLits := map[*ast.CompositeLit]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != "_" || len(vs.Values) != 1 {
				continue
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if ok && registrationIsIdent(call.Fun, "declare") {
				allowed[call] = true
				reg := registration{pos: fset.Position(call.Pos()), declared: true}
				lit, problems := declaredEntryLit(call, reg.pos, funcs)
				s.problems = append(s.problems, problems...)
				if lit != nil {
					allowedLits[lit] = true
					reg.name = registrationEntryName(lit, consts)
					if reg.name == "" {
						s.problems = append(s.problems, fmt.Sprintf("%s: the declared Entry's Name must be a non-empty string literal or string constant of the file", reg.pos))
					}
					if id, ok := registrationField(lit, "Description").(*ast.Ident); ok {
						reg.desc = embeds[id.Name]
					}
					if reg.desc == "" {
						s.problems = append(s.problems, fmt.Sprintf("%s: the declared Entry's Description must be a variable of the file filled by //go:embed <tool>.md", reg.pos))
					}
					for _, f := range []string{"Handler", "Schema", "Check", "RequiresEnv"} {
						if registrationField(lit, f) != nil {
							s.problems = append(s.problems, fmt.Sprintf("%s: a declared tool's Entry sets no %s (New makes the handler, Params gives the schema, Available is its one availability rule)", reg.pos, f))
						}
					}
				}
				if len(problems) == 0 {
					reg.run = "New"
				}
				s.registrations = append(s.registrations, reg)
				continue
			}
			if !ok || !registrationIsIdent(call.Fun, "register") {
				continue
			}
			allowed[call] = true
			reg := registration{pos: fset.Position(call.Pos())}
			lit, ok := registrationEntryLit(call)
			if !ok {
				s.problems = append(s.problems, fmt.Sprintf("%s: register's first argument must be a registry.Entry{...} literal", reg.pos))
			} else {
				allowedLits[lit] = true
				reg.name = registrationEntryName(lit, consts)
				if reg.name == "" {
					s.problems = append(s.problems, fmt.Sprintf("%s: the registered Entry's Name must be a non-empty string literal or string constant of the file", reg.pos))
				}
				if id, ok := registrationField(lit, "Description").(*ast.Ident); ok {
					reg.desc = embeds[id.Name]
				}
				if reg.desc == "" {
					s.problems = append(s.problems, fmt.Sprintf("%s: the registered Entry's Description must be a variable of the file filled by //go:embed <tool>.md", reg.pos))
				}
				if registrationField(lit, "Handler") != nil {
					s.problems = append(s.problems, fmt.Sprintf("%s: a built-in Entry declares no Handler; the session binds it (register's second argument)", reg.pos))
				}
			}
			if len(call.Args) == 2 {
				if h, ok := call.Args[1].(*ast.CallExpr); ok && registrationIsIdent(h.Fun, "handle") && len(h.Args) == 1 {
					if id, ok := h.Args[0].(*ast.Ident); ok && funcs[id.Name] {
						reg.run = id.Name
					}
				}
			}
			if reg.run == "" {
				s.problems = append(s.problems, fmt.Sprintf("%s: register's second argument must be handle(run) with run a function of the same file", reg.pos))
			}
			s.registrations = append(s.registrations, reg)
		}
	}
	selectors := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			selectors[n.Sel] = true
		case *ast.FuncDecl:
			if n.Name.Name == "register" || n.Name.Name == "declare" {
				selectors[n.Name] = true // table.go's definition, or a method
			}
		case *ast.CallExpr:
			if allowed[n] {
				selectors[n.Fun.(*ast.Ident)] = true
			}
		case *ast.CompositeLit:
			if registrationIsEntry(n.Type) && !allowedLits[n] {
				s.problems = append(s.problems, fmt.Sprintf("%s: registry.Entry built outside a top-level `var _ = register(...)`; a tool file declares its tool only there", fset.Position(n.Pos())))
			}
		case *ast.Ident:
			if (n.Name == "register" || n.Name == "declare") && !selectors[n] {
				s.problems = append(s.problems, fmt.Sprintf("%s: %s used outside a top-level `var _ = %s(...)` declaration", fset.Position(n.Pos()), n.Name, n.Name))
			}
		}
		return true
	})
	if slices.ContainsFunc(s.registrations, func(r registration) bool { return r.declared }) {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !selectors[id] && slices.Contains(declaredToolForbidden, id.Name) {
				s.problems = append(s.problems, fmt.Sprintf("%s: a declared tool sees only its constructor's inputs: its file may not use %s", fset.Position(id.Pos()), id.Name))
			}
			return true
		})
	}
	return s, nil
}

// declaredEntryLit returns the registry.Entry literal of a declare call,
// registry.Tool[D]{Spec: registry.Spec{Entry: registry.Entry{...}, Params: P{}}, New: f},
// and what is wrong with the call: New must be a function of the file or a
// function literal, and the spec must give Params.
func declaredEntryLit(call *ast.CallExpr, pos token.Position, funcs map[string]bool) (*ast.CompositeLit, []string) {
	bad := func(msg string) []string { return []string{fmt.Sprintf("%s: %s", pos, msg)} }
	if len(call.Args) != 1 {
		return nil, bad("declare takes one registry.Tool[D]{...} literal")
	}
	tl, ok := call.Args[0].(*ast.CompositeLit)
	if !ok {
		return nil, bad("declare's argument must be a registry.Tool[D]{...} literal")
	}
	ix, ok := tl.Type.(*ast.IndexExpr)
	if !ok || !registrationIsSelector(ix.X, "registry", "Tool") {
		return nil, bad("declare's argument must be a registry.Tool[D]{...} literal")
	}
	var problems []string
	switch nf := registrationField(tl, "New").(type) {
	case *ast.FuncLit:
	case *ast.Ident:
		if !funcs[nf.Name] {
			problems = append(problems, fmt.Sprintf("%s: the declared tool's New must be a function of the same file", pos))
		}
	default:
		problems = append(problems, fmt.Sprintf("%s: the declared tool has no New (its constructor)", pos))
	}
	spec, ok := registrationField(tl, "Spec").(*ast.CompositeLit)
	if !ok || !registrationIsSelector(spec.Type, "registry", "Spec") {
		return nil, append(problems, fmt.Sprintf("%s: the declared tool's Spec must be a registry.Spec{...} literal", pos))
	}
	if registrationField(spec, "Params") == nil {
		problems = append(problems, fmt.Sprintf("%s: the declared tool's Spec gives no Params (its schema is derived from them)", pos))
	}
	lit, ok := registrationField(spec, "Entry").(*ast.CompositeLit)
	if !ok || !registrationIsEntry(lit.Type) {
		return nil, append(problems, fmt.Sprintf("%s: the declared tool's Spec.Entry must be a registry.Entry{...} literal", pos))
	}
	return lit, problems
}

func registrationIsSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && registrationIsIdent(sel.X, pkg) && sel.Sel.Name == name
}

// registrationString returns the value of a string literal.
func registrationString(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}

// registrationEmbed returns the file a //go:embed directive in doc names,
// or "".
func registrationEmbed(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	for _, c := range doc.List {
		if file, ok := strings.CutPrefix(c.Text, "//go:embed "); ok {
			return strings.TrimSpace(file)
		}
	}
	return ""
}

// registrationField returns the value of field key in an Entry literal, or nil.
func registrationField(lit *ast.CompositeLit, key string) ast.Expr {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok && registrationIsIdent(kv.Key, key) {
			return kv.Value
		}
	}
	return nil
}

func registrationIsIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func registrationIsEntry(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && registrationIsIdent(sel.X, "registry") && sel.Sel.Name == "Entry"
}

// registrationEntryLit returns the registry.Entry literal passed to register.
func registrationEntryLit(call *ast.CallExpr) (*ast.CompositeLit, bool) {
	if len(call.Args) == 0 {
		return nil, false
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok || !registrationIsEntry(lit.Type) {
		return nil, false
	}
	return lit, true
}

// registrationEntryName returns an Entry's Name: its string literal, or the
// value of the file's string constant it names; "" otherwise.
func registrationEntryName(lit *ast.CompositeLit, consts map[string]string) string {
	switch v := registrationField(lit, "Name").(type) {
	case *ast.BasicLit:
		s, _ := registrationString(v)
		return s
	case *ast.Ident:
		return consts[v.Name]
	}
	return ""
}

// TestToolFilesRegisterAtTopLevel is the Go form of hermes's AST pre-scan:
// every tool file registers exactly the tool it is named after, at top
// level with its description embedded from the .md file named after it,
// and nothing else calls register.
func TestToolFilesRegisterAtTopLevel(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	byName := map[string][]string{} // tool name -> files registering it
	fileOf := map[string]string{}
	descOf := map[string]string{} // tool name -> its embedded description file
	seenHelpers := map[string]bool{}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		s, err := registrationScanFile(fset, path)
		if err != nil {
			t.Errorf("parse %s: %v", path, err)
			continue
		}
		for _, p := range s.problems {
			t.Error(p)
		}
		stem := strings.TrimSuffix(path, ".go")
		if slices.Contains(registrationHelperFiles, path) {
			seenHelpers[path] = true
			for _, r := range s.registrations {
				t.Errorf("%s: helper file %s registers tool %q; move the tool to %s.go", r.pos, path, r.name, r.name)
			}
			continue
		}
		for _, r := range s.registrations {
			byName[r.name] = append(byName[r.name], path)
			fileOf[r.name] = path
			descOf[r.name] = r.desc
			if r.desc != "" && r.desc != stem+".md" {
				t.Errorf("%s: %s's description is embedded from %s, want %s.md", r.pos, r.name, r.desc, stem)
			}
		}
		switch n := len(s.registrations); {
		case n == 0:
			t.Errorf("%s registers no tool: a tool file must declare `var _ = register(registry.Entry{Name: %q, ...}, handle(run))` at top level, "+
				"and a file with no tool must be listed in registrationHelperFiles (registration_test.go)", path, stem)
		case n > 1:
			t.Errorf("%s registers %d tools; each tool lives in its own file named after it", path, n)
		case s.registrations[0].name != stem && s.registrations[0].name != "":
			t.Errorf("%s registers %q; the file registering %q must be named %s.go (or register %q)",
				s.registrations[0].pos, s.registrations[0].name, s.registrations[0].name, s.registrations[0].name, stem)
		}
	}
	for _, h := range registrationHelperFiles {
		if !seenHelpers[h] {
			t.Errorf("registrationHelperFiles lists %s, which does not exist; remove it from registration_test.go", h)
		}
	}
	for name, files := range byName {
		if len(files) > 1 {
			t.Errorf("tool %q is registered by %d files: %v", name, len(files), files)
		}
	}
	// Every description file belongs to the tool it is named after.
	mds, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range mds {
		name := strings.TrimSuffix(md, ".md")
		if descOf[name] != md {
			t.Errorf("%s is not the embedded description of a tool %q (a tool's description lives in <tool>.md, embedded by <tool>.go)", md, name)
		}
	}

	// The AST and the runtime table must agree: no tool registered some
	// other way, none declared but missing.
	var built []string
	for _, e := range Entries() {
		built = append(built, e.Name)
		if _, ok := fileOf[e.Name]; !ok {
			t.Errorf("built-in tool %q has no top-level register declaration in any tools/*.go file", e.Name)
		}
	}
	if dup := registrationDuplicates(built); len(dup) > 0 {
		t.Errorf("Entries() lists %v more than once", dup)
	}
	for name, file := range fileOf {
		if !slices.Contains(built, name) {
			t.Errorf("%s declares tool %q but Entries() does not list it", file, name)
		}
	}

	// Every hermes-acp tool built here lives in the file named after it.
	acp, ok := toolsets.Lookup("hermes-acp")
	if !ok {
		t.Fatal(`toolsets.Lookup("hermes-acp") found nothing`)
	}
	for _, name := range acp.Tools {
		if !slices.Contains(built, name) {
			continue // not built here (yet), or an agent-loop tool without a file
		}
		if got := fileOf[name]; got != name+".go" {
			t.Errorf("hermes-acp tool %q is registered in %s, want %s.go", name, got, name)
		}
	}
}

// registrationNameRe is the shape of a tool name (OpenAI function names allow more;
// every hermes name is lower-case snake case).
var registrationNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// TestToolsetsNameKnownTools checks the toolset table against the tools:
// every toolset names only hermes tools (a tool some static toolset lists)
// or tools built here, its includes exist, the legacy names map to known
// tools, and every built-in tool is offered by the toolset it declares.
func TestToolsetsNameKnownTools(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, ts := range toolsets.Names() {
		s, _ := toolsets.Lookup(ts)
		for _, name := range s.Tools {
			known[name] = true
		}
	}
	declared := Entries()
	for _, e := range declared {
		known[e.Name] = true
	}
	for name := range known {
		if !registrationNameRe.MatchString(name) {
			t.Errorf("tool name %q is not lower-case snake case", name)
		}
	}
	for _, name := range toolsets.Names() {
		s, ok := toolsets.Lookup(name)
		if !ok {
			t.Errorf("toolsets.Names() lists %q but Lookup does not find it", name)
			continue
		}
		for _, inc := range s.Includes {
			if _, ok := toolsets.Lookup(inc); !ok {
				t.Errorf("toolset %q includes %q, which is not a toolset", name, inc)
			}
		}
		resolved, ok := toolsets.Resolve(name, nil)
		if !ok {
			t.Errorf("toolsets.Resolve(%q) failed", name)
		}
		for _, tool := range resolved {
			if !known[tool] {
				t.Errorf("toolset %q names %q, which is neither a hermes tool nor built here", name, tool)
			}
		}
	}
	for _, name := range toolsets.LegacyNames() {
		tools, _ := toolsets.Legacy(name)
		for _, tool := range tools {
			if !known[tool] {
				t.Errorf("legacy toolset %q names %q, which no toolset offers", name, tool)
			}
		}
	}
	for _, e := range declared {
		if _, ok := toolsets.Lookup(e.Toolset); !ok {
			t.Errorf("built-in tool %q declares toolset %q, which does not exist", e.Name, e.Toolset)
			continue
		}
		if tools, _ := toolsets.Resolve(e.Toolset, nil); !slices.Contains(tools, e.Name) {
			t.Errorf("built-in tool %q declares toolset %q, which does not offer it (it offers %v)", e.Name, e.Toolset, tools)
		}
	}
}

// TestScanRegistrations checks the scanner itself on small sources, so that
// the checks above cannot pass by accident.
func TestScanRegistrations(t *testing.T) {
	t.Parallel()
	const header = "package tools\n\nimport (\n\t_ \"embed\"\n\n\t\"github.com/hermes-acp/hermes-acp/registry\"\n)\n\n" +
		"//go:embed good.md\nvar desc string\n\nfunc run() {}\n\n"
	for _, tc := range []struct {
		name     string
		src      string
		names    []string
		problems []string // substrings, one per expected problem
	}{
		{"top level", `var _ = register(registry.Entry{Name: "good", Toolset: "file", Description: desc}, handle(run))`, []string{"good"}, nil},
		{"grouped var", "var (\n\t_ = register(registry.Entry{Name: \"a\", Description: desc}, handle(run))\n)", []string{"a"}, nil},
		{"name constant", "const n = \"x\"\n\nvar _ = register(registry.Entry{Name: n, Description: desc}, handle(run))", []string{"x"}, nil},
		{"inside init", "func init() { register(registry.Entry{Name: \"x\", Description: desc}, handle(run)) }", nil,
			[]string{"register used outside", "registry.Entry built outside"}},
		{"named var", `var tool = register(registry.Entry{Name: "x", Description: desc}, handle(run))`, nil,
			[]string{"register used outside", "registry.Entry built outside"}},
		{"function value", "var _ = []any{register}", nil, []string{"register used outside"}},
		{"name a variable", "var n = \"x\"\n\nvar _ = register(registry.Entry{Name: n, Description: desc}, handle(run))", []string{""},
			[]string{"Name must be a non-empty string literal or string constant"}},
		{"argument not a literal", "var e = registry.Entry{Name: \"x\"}\n\nvar _ = register(e, handle(run))", []string{""},
			[]string{"registry.Entry built outside", "first argument must be a registry.Entry"}},
		{"description inline", `var _ = register(registry.Entry{Name: "x", Description: "Reads."}, handle(run))`, []string{"x"},
			[]string{"Description must be a variable of the file filled by //go:embed"}},
		{"description not embedded", "var plain = \"Reads.\"\n\nvar _ = register(registry.Entry{Name: \"x\", Description: plain}, handle(run))", []string{"x"},
			[]string{"Description must be a variable of the file filled by //go:embed"}},
		{"no handler", `var _ = register(registry.Entry{Name: "x", Description: desc})`, []string{"x"},
			[]string{"second argument must be handle(run)"}},
		{"handler of another file", `var _ = register(registry.Entry{Name: "x", Description: desc}, handle(other))`, []string{"x"},
			[]string{"second argument must be handle(run)"}},
		{"handler not through handle", `var _ = register(registry.Entry{Name: "x", Description: desc}, run)`, []string{"x"},
			[]string{"second argument must be handle(run)"}},
		{"entry with a handler", `var _ = register(registry.Entry{Name: "x", Description: desc, Handler: nil}, handle(run))`, []string{"x"},
			[]string{"declares no Handler"}},
		{"method named register is fine", "type r struct{}\n\nfunc (r) register() {}\n\nvar _ = r{}.register", nil, nil},
		{"declared", "type p struct{}\n\nfunc newGood(d any) registry.Handler { return nil }\n\n" +
			`var _ = declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "good", Description: desc}, Params: p{}}, New: newGood})`, []string{"good"}, nil},
		{"declared with a literal New", "type p struct{}\n\n" +
			`var _ = declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "good", Description: desc}, Params: p{}}, New: func(any) registry.Handler { return nil }})`, []string{"good"}, nil},
		{"declared without New", "type p struct{}\n\n" +
			`var _ = declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "x", Description: desc}, Params: p{}}})`, []string{"x"},
			[]string{"has no New"}},
		{"declared without Params", "func newX(any) registry.Handler { return nil }\n\n" +
			`var _ = declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "x", Description: desc}}, New: newX})`, []string{"x"},
			[]string{"gives no Params"}},
		{"declared with a schema", "type p struct{}\n\nfunc newX(any) registry.Handler { return nil }\n\n" +
			`var _ = declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "x", Description: desc, Schema: nil}, Params: p{}}, New: newX})`, []string{"x"},
			[]string{"sets no Schema"}},
		{"declared tool reaching the session", "type p struct{}\n\nfunc newX(any) registry.Handler { var s *session; _ = s; return nil }\n\n" +
			`var _ = declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "x", Description: desc}, Params: p{}}, New: newX})`, []string{"x"},
			[]string{"may not use session"}},
		{"declared inside init", "type p struct{}\n\nfunc newX(any) registry.Handler { return nil }\n\n" +
			`func init() { declare(registry.Tool[any]{Spec: registry.Spec{Entry: registry.Entry{Name: "x", Description: desc}, Params: p{}}, New: newX}) }`, nil,
			[]string{"declare used outside", "registry.Entry built outside"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.go")
			if err := os.WriteFile(path, []byte(header+tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := registrationScanFile(token.NewFileSet(), path)
			if err != nil {
				t.Fatalf("registrationScanFile: %v", err)
			}
			var names []string
			for _, r := range s.registrations {
				names = append(names, r.name)
			}
			if !slices.Equal(names, tc.names) {
				t.Errorf("registrations = %q, want %q", names, tc.names)
			}
			if len(s.problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %d matching %q", s.problems, len(tc.problems), tc.problems)
			}
			for _, want := range tc.problems {
				if !slices.ContainsFunc(s.problems, func(p string) bool { return strings.Contains(p, want) }) {
					t.Errorf("problems = %q, want one containing %q", s.problems, want)
				}
			}
		})
	}
}

// duplicates returns the names that occur more than once.
func registrationDuplicates(names []string) []string {
	seen := map[string]int{}
	var out []string
	for _, n := range names {
		if seen[n]++; seen[n] == 2 {
			out = append(out, n)
		}
	}
	return out
}

// registrationEnabledBlock is one {{if enabled "tool"}}…{{end}} block of a
// description template.
var registrationEnabledBlock = regexp.MustCompile(`(?s)\{\{if enabled "([^"]*)"\}\}(.*?)\{\{end\}\}`)

// TestDescriptionTemplatesGuardToolNames checks every tool description
// (<tool>.md): each {{if enabled "X"}} block names a known tool X and
// mentions X, and no text outside such a block names another tool, so
// that a session never reads a description naming a tool it does not
// enable.
func TestDescriptionTemplatesGuardToolNames(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, ts := range toolsets.Names() {
		s, _ := toolsets.Lookup(ts)
		for _, name := range s.Tools {
			known[name] = true
		}
	}
	for _, e := range Entries() {
		known[e.Name] = true
	}
	word := func(name string) *regexp.Regexp { return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`) }
	mds, err := filepath.Glob("*.md")
	if err != nil || len(mds) == 0 {
		t.Fatalf("no tool descriptions (*.md): %v", err)
	}
	for _, md := range mds {
		self := strings.TrimSuffix(md, ".md")
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, e := range Entries() {
			if e.Name == self {
				text = withoutOwnActions(e, text) // a tool's own action values are not tool names
			}
		}
		for _, m := range registrationEnabledBlock.FindAllStringSubmatch(text, -1) {
			tool, body := m[1], m[2]
			if !known[tool] {
				t.Errorf("%s: {{if enabled %q}} names no known tool", md, tool)
			}
			if !word(tool).MatchString(body) {
				t.Errorf("%s: the block kept only when %s is enabled does not mention it: %q", md, tool, body)
			}
			for name := range known {
				if name != tool && name != self && word(name).MatchString(body) {
					t.Errorf("%s: the block kept when %s is enabled also names %s: %q", md, tool, name, body)
				}
			}
		}
		outside := registrationEnabledBlock.ReplaceAllString(text, "")
		if strings.Contains(outside, "{{") {
			t.Errorf("%s: template action outside an {{if enabled \"tool\"}}…{{end}} block: %q", md, outside)
		}
		for name := range known {
			if name != self && word(name).MatchString(outside) {
				t.Errorf("%s names tool %s outside an {{if enabled %q}} block", md, name, name)
			}
		}
	}
}
