package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sessionNames are, per package, the identifiers of the session a tool is
// bound to: a file that declares a tool with registry.Tool may not use
// them (issue #32: a tool sees only its constructor's inputs, the
// dependencies it declares).
var sessionNames = map[string][]string{
	"tools": {"session", "newSession", "Deps", "services"},
}

// bindingFiles are, per package, the files that bind its tools to a
// session (and alone may name it): every other non-test file of the
// package — the tool files and the helpers they share — sees only the
// dependencies its tools declare.
var bindingFiles = map[string][]string{
	"tools": {"deps.go", "table.go"},
}

// TestToolsSeeOnlyTheirConstructorsInputs: every non-test file of the
// module that declares a tool (a registry.Tool[D]{…} literal) imports
// neither the agent nor anything of the session binding it, and never
// names its package's session or bag of dependencies: its constructor's
// D is all it gets. In a package whose every tool is declared, the same
// holds for the helpers its tools share: only its binding files name the
// session.
func TestToolsSeeOnlyTheirConstructorsInputs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declaring := 0
	for _, p := range list(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if rel == "registry" {
			continue // where Tool is defined
		}
		files, err := filepath.Glob(filepath.Join(root, rel, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			binding := bindingFiles[rel]
			declares := declaresTool(af)
			if !declares && (binding == nil || slices.Contains(binding, filepath.Base(f))) {
				continue
			}
			if declares {
				declaring++
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == mod+"/agent" || strings.HasPrefix(path, mod+"/agent/internal/") {
					t.Errorf("%s imports %s: a tool sees only the dependencies its constructor declares", fset.Position(imp.Pos()), path)
				}
			}
			forbidden := sessionNames[rel]
			selected := map[*ast.Ident]bool{}
			ast.Inspect(af, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					selected[n.Sel] = true
				case *ast.Ident:
					if !selected[n] && slices.Contains(forbidden, n.Name) {
						t.Errorf("%s uses %s: a tool and the helpers it shares see only the dependencies its constructor declares", fset.Position(n.Pos()), n.Name)
					}
				}
				return true
			})
		}
	}
	if declaring < 5 {
		t.Fatalf("found %d files declaring a tool with registry.Tool; the check would prove nothing", declaring)
	}
}

// declaresTool reports whether f holds a registry.Tool[D]{…} literal.
func declaresTool(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok {
			if ix, ok := lit.Type.(*ast.IndexExpr); ok {
				if sel, ok := ix.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Tool" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "registry" {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}
