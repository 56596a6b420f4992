// Package archtest keeps the package graph of DESIGN.md true: which module
// packages each package may import, and which third-party modules may appear
// where.
package archtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/hermes-acp/hermes-acp"

// allowed lists, for each package, the module packages it may depend on
// (directly or not). Packages not listed may import anything (cmd, tests).
var allowed = map[string][]string{
	"acp":           {},
	"acp/acptest":   {"acp"},
	"model":         {},
	"registry":      {},
	"toolsets":      {"registry"},
	"internal/diff": {},
	"workspace":     {"internal/diff"},
	"lint":          {"internal/diff"},
	// the Go type check next to lint: it needs the toolchain, lint stays pure.
	"lint/gotypes": {"lint", "internal/diff"},
	// the engine of `hermes-acp lint`: files on disk through both.
	"lint/report":          {"lint", "lint/gotypes", "internal/diff"},
	"tools/internal/fuzzy": {"internal/diff"},
	"tools":                {"registry", "workspace", "lint", "internal/diff", "tools/internal/fuzzy", "tools/internal/v4a", "tools/internal/search", "tools/internal/pycmd", "terminal", "web", "skills", "browser", "internal/threat"},
	"terminal":             {"workspace"},
	"mcp":                  {"registry"},
	"memory":               {"internal/threat"},
	"agent":                {"acp", "model", "registry", "toolsets", "workspace", "lint", "internal/diff", "mcp", "memory", "terminal", "terminal/danger", "agent/internal/store", "agent/internal/diagnostics", "agent/internal/queue", "agent/internal/projctx", "agent/internal/compress", "internal/threat", "lint/gotypes", "checkpoint"},
	"model/modeltest":      {"model"},

	// web: URL safety, fetch and extraction, search backends (stdlib and
	// its own libraries only).
	"web": {},
	// skills (issue #14): skill folders; paths for approval come from workspace.
	"skills": {"workspace", "internal/diff", "internal/threat"},
	// browser: one headless Chromium per session (chromedp); its requests
	// go through web's URL policy and proxy (issue 26).
	"browser": {"web"},

	// The tools' engines know nothing of tools: the diff package and the
	// fuzzy matcher are the only module packages they may use.
	"tools/internal/v4a":    {"internal/diff", "tools/internal/fuzzy"},
	"tools/internal/search": {"internal/diff", "tools/internal/fuzzy"},
	// issue 24: the commands a Python script runs, by a static look (pure).
	"tools/internal/pycmd": {},

	// agent's internal packages (one concern each), below agent.
	"agent/internal/store":       {"model", "internal/atomicfile"},
	"agent/internal/diagnostics": {"acp", "lint", "workspace", "internal/diff", "lint/gotypes"},
	"agent/internal/queue":       {},
	"agent/internal/compress":    {"model"},
	"agent/internal/projctx":     {"internal/threat"},

	// terminal safety: dangerous-command detection is pure (issue 11).
	"terminal/danger": {},
	// docker (issue 18): the Docker terminal environment and its test daemon.
	"terminal/docker":            {"terminal", "workspace", "terminal/wsync", "terminal/ssh", "internal/diff"},
	"terminal/docker/dockertest": {},
	// ssh (issue 18): the SSH terminal environment and its workspace sync.
	"terminal/ssh": {"terminal", "workspace", "internal/diff", "terminal/wsync"},
	// wsync (issue 18): the workspace copy shared by the ssh and docker
	// environments.
	"terminal/wsync":        {"workspace", "internal/diff"},
	"terminal/ssh/sshdtest": {},

	// The layout after the core redesign (issue #32): main is wiring.
	// config reads and validates the configuration into values of the
	// packages it configures (never agent or tools: the composition root
	// turns a Config into their options); client is the headless ACP
	// client behind `hermes-acp client`; terminal/backend chooses a
	// session's terminal environment next to the environments; atomicfile
	// is the one atomic-write helper, below everything.
	"config":              {"model", "registry", "web", "mcp", "skills", "internal/threat", "terminal", "terminal/backend", "terminal/docker", "terminal/ssh", "terminal/wsync", "workspace", "internal/diff"},
	"client":              {"acp", "internal/diff"},
	"terminal/backend":    {"terminal", "terminal/docker", "terminal/ssh", "terminal/wsync", "workspace", "internal/diff"},
	"internal/atomicfile": {},
	// pyfmt (#32): the one formatter of hermes's numbers (f"{n:,}"); a leaf.
	"internal/pyfmt": {},
	// checkpoint (issue 29): the shadow git repositories of the workspace
	// folders (go-git); the .gitignore matcher comes from workspace.
	"checkpoint": {"workspace", "internal/diff"},
	// threat (issue 25): the one threat scan for text that reaches a later
	// system prompt (context files, memory, skills); pure.
	"internal/threat": {},
}

// anywhere are the module packages every package may use: leaves with no
// module imports of their own.
var anywhere = []string{"internal/atomicfile", "internal/pyfmt"}

// thirdParty lists the only packages allowed to import each third-party
// module directly (DESIGN.md: each module lives in one package).
var thirdParty = map[string][]string{
	"github.com/sourcegraph/jsonrpc2": {"acp"},
	"github.com/fsnotify/fsnotify":    {"workspace"},
	"go.lsp.dev/protocol":             {"lint", "tools", "lint/gotypes", "lint/report", "agent/internal/diagnostics"},
	"gopkg.in/yaml.v3":                {"lint", "model", "config", "skills"},
	"github.com/BurntSushi/toml":      {"lint"},
	"golang.org/x/mod":                {"lint"},
	// the Go type check reads export data with gcexportdata; bench/lint
	// measures go/packages next to it.
	"golang.org/x/tools":                     {"lint/gotypes", "bench/lint"},
	"github.com/sergi/go-diff":               {"internal/diff"},
	"github.com/openai/openai-go/v3":         {"model"},
	"modernc.org/sqlite":                     {"agent/internal/store"},
	"github.com/modelcontextprotocol/go-sdk": {"mcp", "internal/mcptest"},
	"mvdan.cc/sh/v3":                         {"terminal/danger"},
	// terminal: PTYs and the Landlock sandbox live in the terminal package.
	"github.com/creack/pty":               {"terminal"},
	"github.com/landlock-lsm/go-landlock": {"terminal"},
	// docker (issue 18): the Docker client lives in terminal/docker.
	"github.com/moby/moby": {"terminal/docker", "terminal/docker/dockertest"},
	// ...but only its stream demultiplexer (stdcopy, stdlib only):
	// terminal/docker speaks the Engine API itself (#32 start-up diet),
	// and the official client is the test daemon's alone.
	"github.com/moby/moby/client": {"terminal/docker/dockertest"},
	// ssh (issue 18): the SSH client lives in terminal/ssh.
	"golang.org/x/crypto": {"terminal/ssh"},
	// web: readability, HTML to Markdown and PDF text live in package web.
	"codeberg.org/readeck/go-readability/v2":          {"web"},
	"github.com/JohannesKaufmann/html-to-markdown/v2": {"web"},
	"github.com/ledongthuc/pdf":                       {"web"},
	// bench/browser measures raw Chromium (no driver work) next to it.
	"github.com/chromedp/chromedp": {"browser", "bench/browser"},
	"github.com/chromedp/cdproto":  {"browser", "bench/browser"},
	// checkpoint (issue 29): go-git and its file system live in checkpoint.
	"github.com/go-git/go-git/v5":   {"checkpoint"},
	"github.com/go-git/go-billy/v5": {"checkpoint"},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportGraph(t *testing.T) {
	pkgs := list(t)
	seen := 0
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if slices.Contains(anywhere, rel) && len(p.Deps) > 0 {
			for _, d := range p.Deps {
				if strings.HasPrefix(d, mod+"/") {
					t.Errorf("%s is used anywhere, so it must not depend on %s", rel, d)
				}
			}
		}
		ok, listed := allowed[rel]
		if !listed {
			continue
		}
		seen++
		for _, d := range p.Deps {
			if !strings.HasPrefix(d, mod+"/") {
				continue
			}
			drel := strings.TrimPrefix(d, mod+"/")
			if !slices.Contains(ok, drel) && !slices.Contains(anywhere, drel) {
				t.Errorf("%s depends on %s; allowed module packages: %v", rel, drel, ok)
			}
		}
	}
	if seen < 8 {
		t.Errorf("checked only %d packages; the package list is out of date", seen)
	}
}

func TestThirdPartyConfinement(t *testing.T) {
	for _, p := range list(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if strings.HasPrefix(rel, "cmd/") {
			continue // the composition root may import anything
		}
		for _, imp := range p.Imports {
			for module, owners := range thirdParty {
				if imp == module || strings.HasPrefix(imp, module+"/") {
					if !slices.Contains(owners, rel) {
						t.Errorf("%s imports %s; only %v may", rel, imp, owners)
					}
				}
			}
		}
	}
}

// TestMainIsWiring: cmd/hermes-acp uses the configuration, client and
// lint report packages (it does not grow its own again), only the
// composition root reads the configuration or drives an agent as a
// client, and no package imports a command.
func TestMainIsWiring(t *testing.T) {
	pkgs := list(t)
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if rel == "cmd/hermes-acp" {
			for _, want := range []string{"config", "client", "terminal/backend", "lint/report"} {
				if !slices.Contains(p.Imports, mod+"/"+want) {
					t.Errorf("cmd/hermes-acp does not import %s; configuration, the client and backend selection live there", want)
				}
			}
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, mod+"/cmd/") {
				t.Errorf("%s imports %s; nothing imports a command", rel, imp)
			}
			if (imp == mod+"/config" || imp == mod+"/client") && !strings.HasPrefix(rel, "cmd/") {
				t.Errorf("%s imports %s; only the composition root (cmd/) does: the packages it wires take options", rel, imp)
			}
		}
	}
}

// maxMainLines bounds cmd/hermes-acp's non-test code (#32): flags and
// wiring fit; anything bigger is a library that belongs in a package of
// its own, with its own tests.
const maxMainLines = 800

// TestMainIsSmall: cmd/hermes-acp's non-test Go files stay under
// maxMainLines lines.
func TestMainIsSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}\n{{range .GoFiles}}{{.}}\n{{end}}", mod+"/cmd/hermes-acp").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 3 {
		t.Fatalf("go list found the files %q; the check would prove nothing", fields)
	}
	dir, total := fields[0], 0
	for _, name := range fields[1:] {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(data, []byte("\n"))
	}
	if total > maxMainLines {
		t.Errorf("cmd/hermes-acp has %d lines of non-test Go in %d files, more than %d: move what is library into a package", total, len(fields)-1, maxMainLines)
	}
}

// TestNoMethodByNameInTheBinary keeps text/template and html/template out
// of hermes-acp: they call methods by name through reflect, which makes the
// linker keep every exported method of every reachable type (about 10 MB
// more binary and 8 MiB more memory after session/new; docs/benchmarks.md).
func TestNoMethodByNameInTheBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", mod+"/cmd/hermes-acp").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"/tools") {
		t.Fatalf("the dependency list of cmd/hermes-acp lacks tools; the check would prove nothing")
	}
	for _, banned := range []string{"text/template", "html/template"} {
		if slices.Contains(deps, banned) {
			t.Errorf("hermes-acp depends on %s; use a small parser instead", banned)
		}
	}
	// #32 start-up diet: packages whose initialisers and code every agent
	// process paid for at start-up while only a session on a Docker
	// backend uses them (the Docker SDK and the image references it parses).
	for _, banned := range []string{"github.com/moby/moby/client", "github.com/distribution/reference", "github.com/opencontainers/go-digest"} {
		if slices.Contains(deps, banned) {
			t.Errorf("hermes-acp depends on %s; terminal/docker speaks the Engine API with the standard library", banned)
		}
	}
}

// TestNoUnsafe: no package of the module imports unsafe outside its tests
// (#32: pointer identity, not unsafe casts; reflect and sync give what the
// code needs).
func TestNoUnsafe(t *testing.T) {
	pkgs := list(t)
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; the check would prove nothing", len(pkgs))
	}
	for _, p := range pkgs {
		if slices.Contains(p.Imports, "unsafe") {
			t.Errorf("%s imports unsafe", strings.TrimPrefix(p.ImportPath, mod+"/"))
		}
	}
}
