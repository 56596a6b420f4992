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
// Every other non-test file is a tool file: <tool>.go registering <tool>.
var registrationHelperFiles = []string{
	"doc.go",      // package documentation
	"env.go",      // the session environment interface
	"table.go",    // the built-in table and register
	"result.go",   // result encoding
	"fuzzy.go",    // the call site of the fuzzy engine (tools/internal/fuzzy)
	"v4a.go",      // the V4A patch engine and unified diff
	"edit.go",     // what write_file and patch share
	"encoding.go", // binary files and text encodings for the editing tools
}

// registration is one top-level `var _ = register(registry.Entry{...})`.
type registration struct {
	name string // the Entry's Name literal ("" when it is not a literal)
	pos  token.Position
}

// registrationScan is what the AST of one file says about registration.
type registrationScan struct {
	registrations []registration
	problems      []string
}

// registrationScanFile parses one file and finds its registrations and every
// misuse: register called (or referenced) anywhere but as the whole value
// of a top-level `var _ =`, an Entry whose Name is not a string literal,
// and a registry.Entry built outside such a call.
func registrationScanFile(fset *token.FileSet, path string) (registrationScan, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return registrationScan{}, err
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
			if !ok || !registrationIsIdent(call.Fun, "register") {
				continue
			}
			allowed[call] = true
			reg := registration{pos: fset.Position(call.Pos())}
			lit, ok := registrationEntryLit(call)
			if !ok {
				s.problems = append(s.problems, fmt.Sprintf("%s: register's argument must be a registry.Entry{...} literal", reg.pos))
			} else {
				allowedLits[lit] = true
				reg.name = registrationEntryName(lit)
				if reg.name == "" {
					s.problems = append(s.problems, fmt.Sprintf("%s: the registered Entry's Name must be a non-empty string literal", reg.pos))
				}
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
			if n.Name.Name == "register" {
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
			if n.Name == "register" && !selectors[n] {
				s.problems = append(s.problems, fmt.Sprintf("%s: register used outside a top-level `var _ = register(registry.Entry{...})` declaration", fset.Position(n.Pos())))
			}
		}
		return true
	})
	return s, nil
}

func registrationIsIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func registrationIsEntry(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && registrationIsIdent(sel.X, "registry") && sel.Sel.Name == "Entry"
}

// entryLiteral returns the registry.Entry literal passed to register.
func registrationEntryLit(call *ast.CallExpr) (*ast.CompositeLit, bool) {
	if len(call.Args) != 1 {
		return nil, false
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok || !registrationIsEntry(lit.Type) {
		return nil, false
	}
	return lit, true
}

// entryName returns the string literal of an Entry's Name field, or "".
func registrationEntryName(lit *ast.CompositeLit) string {
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok || !registrationIsIdent(kv.Key, "Name") {
			continue
		}
		bl, ok := kv.Value.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return ""
		}
		s, err := strconv.Unquote(bl.Value)
		if err != nil {
			return ""
		}
		return s
	}
	return ""
}

// TestToolFilesRegisterAtTopLevel is the Go form of hermes's AST pre-scan:
// every tool file registers exactly the tool it is named after, at top
// level, and nothing else calls register.
func TestToolFilesRegisterAtTopLevel(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	byName := map[string][]string{} // tool name -> files registering it
	fileOf := map[string]string{}
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
		}
		switch n := len(s.registrations); {
		case n == 0:
			t.Errorf("%s registers no tool: a tool file must declare `var _ = register(registry.Entry{Name: %q, ...})` at top level, "+
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

	// The AST and the runtime table must agree: no tool registered some
	// other way, none declared but missing.
	var built []string
	for _, e := range Builtins() {
		built = append(built, e.Name)
		if _, ok := fileOf[e.Name]; !ok {
			t.Errorf("built-in tool %q has no top-level register declaration in any tools/*.go file", e.Name)
		}
	}
	if dup := registrationDuplicates(built); len(dup) > 0 {
		t.Errorf("Builtins() lists %v more than once", dup)
	}
	for name, file := range fileOf {
		if !slices.Contains(built, name) {
			t.Errorf("%s declares tool %q but Builtins() does not list it", file, name)
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
	builtins := Builtins()
	for _, e := range builtins {
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
	for _, tool := range toolsets.Core() {
		if !known[tool] {
			t.Errorf("core tool %q is offered by no toolset", tool)
		}
	}
	for _, e := range builtins {
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
	const header = "package tools\n\nimport \"github.com/hermes-acp/hermes-acp/registry\"\n\n"
	for _, tc := range []struct {
		name     string
		src      string
		names    []string
		problems []string // substrings, one per expected problem
	}{
		{"top level", `var _ = register(registry.Entry{Name: "good", Toolset: "file"})`, []string{"good"}, nil},
		{"grouped var", "var (\n\t_ = register(registry.Entry{Name: \"a\"})\n)", []string{"a"}, nil},
		{"inside init", "func init() { register(registry.Entry{Name: \"x\"}) }", nil,
			[]string{"register used outside", "registry.Entry built outside"}},
		{"named var", `var tool = register(registry.Entry{Name: "x"})`, nil,
			[]string{"register used outside", "registry.Entry built outside"}},
		{"function value", "var _ = []any{register}", nil, []string{"register used outside"}},
		{"name not literal", "const n = \"x\"\n\nvar _ = register(registry.Entry{Name: n})", []string{""},
			[]string{"Name must be a non-empty string literal"}},
		{"argument not a literal", "var e = registry.Entry{Name: \"x\"}\n\nvar _ = register(e)", []string{""},
			[]string{"registry.Entry built outside", "argument must be a registry.Entry"}},
		{"method named register is fine", "type r struct{}\n\nfunc (r) register() {}\n\nvar _ = r{}.register", nil, nil},
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
