package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolsExportsOnlyWhatOthersUse keeps the tools package's surface to
// what the rest of the module needs (binding tools to a session, listing
// them): every exported top-level name of package tools is referenced as
// tools.<Name> by some non-test file outside it. A tool's own types stay
// unexported; other packages see tools only through registry entries.
func TestToolsExportsOnlyWhatOthersUse(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]token.Position{}
	// apiOf lists, for each exported name, the exported names its own
	// declaration mentions (a struct's field types, a function's
	// signature): they are used wherever it is.
	apiOf := map[string][]string{}
	mentions := func(n ast.Node) []string {
		var out []string
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.IsExported() {
				out = append(out, id.Name)
			}
			if _, ok := n.(*ast.SelectorExpr); ok {
				return false // another package's name
			}
			return true
		})
		return out
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(root, "tools", "*.go"))
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
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					exported[d.Name.Name] = fset.Position(d.Pos())
					apiOf[d.Name.Name] = mentions(d.Type)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() {
							exported[sp.Name.Name] = fset.Position(sp.Pos())
							apiOf[sp.Name.Name] = mentions(sp.Type)
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.IsExported() {
								exported[n.Name] = fset.Position(n.Pos())
							}
						}
					}
				}
			}
		}
	}
	if len(exported) < 3 {
		t.Fatalf("found %d exported names in tools; the scan is broken", len(exported))
	}
	used := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if rel == "tools" || strings.HasPrefix(rel, "tools/") || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		local := ""
		for _, imp := range af.Imports {
			if imp.Path.Value == `"`+mod+`/tools"` {
				local = "tools"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					used[sel.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for changed := true; changed; {
		changed = false
		for name := range used {
			for _, m := range apiOf[name] {
				if !used[m] {
					used[m], changed = true, true
				}
			}
		}
	}
	for name, pos := range exported {
		if !used[name] {
			t.Errorf("%s: tools exports %s, which no other package uses; unexport it", pos, name)
		}
	}
}
