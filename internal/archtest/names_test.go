package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/toolsets"
)

// nameHomes are the only places a tool's name may be written: the toolset
// table (configuration compatibility with hermes-agent), the tool packages
// (each tool's own file), the file of each of the agent's own tools, and the
// memory package, whose target "memory" is a name of hermes's schema, and
// config/web.go, which reads hermes's auxiliary.web_extract key.
var nameHomes = []string{"toolsets/", "tools/", "agent/todo.go", "agent/clarify.go", "agent/memorytool.go", "agent/session_search.go", "agent/delegate.go", "memory/memory.go", "config/web.go"}

// TestToolNamesLiveWithTheirTools keeps DESIGN's promise that adding a tool
// never touches a central list: no product package outside nameHomes spells
// a tool name of the hermes toolsets as a string literal, so nothing there can
// switch on a tool's name (kinds, titles, rendering, planning, guardrails
// all come from the tool's registry.Entry).
func TestToolNamesLiveWithTheirTools(t *testing.T) {
	names := map[string]bool{}
	for _, ts := range toolsets.Names() {
		tools, _ := toolsets.Resolve(ts, nil)
		for _, n := range tools {
			names[n] = true
		}
	}
	if !names["read_file"] || !names["terminal"] || len(names) < 29 {
		t.Fatalf("toolsets resolve to %d names; the check would prove nothing", len(names))
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range list(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "bench/") || strings.HasPrefix(rel, "internal/") ||
			rel == "acp" || strings.HasPrefix(rel, "acp/") {
			continue // the composition root, benchmarks, test helpers, and the wire ("terminal" is an ACP capability)
		}
		files, err := filepath.Glob(filepath.Join(root, rel, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			frel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
			if strings.HasSuffix(f, "_test.go") || slices.ContainsFunc(nameHomes, func(h string) bool { return strings.HasPrefix(frel, h) }) {
				continue
			}
			checked++
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			af, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
					t.Errorf("%s: tool name %q written outside its tool's file; put the fact on the tool's registry.Entry", fset.Position(lit.Pos()), s)
				}
				return true
			})
		}
	}
	if checked < 40 {
		t.Errorf("checked only %d files; the package list is out of date", checked)
	}
}
