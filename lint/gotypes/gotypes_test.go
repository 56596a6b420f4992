package gotypes_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/lint/gotypes"
)

// A fixture in testdata/*.txtar is a package directory tree before an
// edit, and the edit. Its comment holds one directive a line:
//
//	edit FILE           the edited file (default: the first after/ section)
//	want FILE:LINE MSG  a type error the edit introduced, after the edit
//	kept FILE:LINE MSG  a type error after the edit that was there before
//	skip TEXT           the check is skipped, with a reason containing TEXT
//	env KEY=VALUE       the go command's environment also has KEY=VALUE
//	moddep              example.net/dep v1.0.0, whose files are the dep/
//	                    sections, is in a module cache of the test's own
//	                    (built offline through a file:// GOPROXY) and
//	                    go.sum lists it
//	nodir               the edited directory does not exist before the edit
//
// Other lines starting with "#" are comments. Sections named after/PATH
// hold the new content of PATH, delete/PATH deletes it, dep/PATH is a file
// of example.net/dep, and the other sections are the files before the
// edit. Each fixture runs twice: as a proposal (the disk holds the old
// files, the Edit the new contents) and as a written edit (the disk holds
// the new files, the Edit the old contents). The findings must be exactly
// the want and kept lines.
type fixture struct {
	name    string
	edit    string
	wants   []string // "FILE:LINE MSG", introduced
	kept    []string
	skip    string
	env     []string
	moddep  bool
	files   map[string][]byte // before
	after   map[string][]byte // nil value: deleted
	depFile map[string][]byte
}

func readFixture(t *testing.T, path string) fixture {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{name: strings.TrimSuffix(filepath.Base(path), ".txtar"),
		files: map[string][]byte{}, after: map[string][]byte{}, depFile: map[string][]byte{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "", "#":
		case "edit":
			fx.edit = arg
		case "want":
			fx.wants = append(fx.wants, arg)
		case "kept":
			fx.kept = append(fx.kept, arg)
		case "skip":
			fx.skip = arg
		case "env":
			fx.env = append(fx.env, arg)
		case "moddep":
			fx.moddep = true
		default:
			if !strings.HasPrefix(verb, "#") {
				t.Fatalf("%s: unknown directive %q", path, line)
			}
		}
	}
	for _, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "after/"):
			name := strings.TrimPrefix(f.Name, "after/")
			fx.after[name] = f.Data
			if fx.edit == "" {
				fx.edit = name
			}
		case strings.HasPrefix(f.Name, "delete/"):
			fx.after[strings.TrimPrefix(f.Name, "delete/")] = nil
		case strings.HasPrefix(f.Name, "dep/"):
			fx.depFile[strings.TrimPrefix(f.Name, "dep/")] = f.Data
		default:
			fx.files[f.Name] = f.Data
		}
	}
	if fx.edit == "" {
		t.Fatalf("%s: no edit", path)
	}
	return fx
}

// TestFixtures runs every testdata/*.txtar fixture, as a proposal and as
// a written edit.
func TestFixtures(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		fx := readFixture(t, path)
		for _, written := range []bool{false, true} {
			mode := "proposal"
			if written {
				mode = "written"
			}
			t.Run(fx.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				runFixture(t, fx, written)
			})
		}
	}
}

func runFixture(t *testing.T, fx fixture, written bool) {
	fx.files = maps.Clone(fx.files) // the two modes run in parallel
	root := t.TempDir()
	env := append(baseEnv(), fx.env...)
	if fx.moddep {
		cache, sums := moduleCache(t, fx.depFile)
		env = append(env, "GOMODCACHE="+cache)
		fx.files["go.sum"] = slices.Concat(fx.files["go.sum"], sums)
	}
	for name, data := range fx.files {
		writeFile(t, filepath.Join(root, name), data)
	}
	e := gotypes.Edit{File: filepath.Join(root, fx.edit), Before: map[string][]byte{}, After: map[string][]byte{}}
	for name, data := range fx.after {
		p := filepath.Join(root, name)
		old, existed := fx.files[name]
		if !written {
			e.After[p] = data
			continue
		}
		if existed {
			e.Before[p] = old
			if old == nil {
				e.Before[p] = []byte{}
			}
		} else {
			e.Before[p] = nil
		}
		if data == nil {
			os.Remove(p)
		} else {
			writeFile(t, p, data)
		}
	}
	c := gotypes.New(gotypes.Options{Env: env})
	r, err := c.Check(context.Background(), e)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if fx.skip != "" {
		if !r.Skipped || !strings.Contains(r.Reason, fx.skip) {
			t.Fatalf("Check = skipped %v (%q), want skipped with a reason containing %q", r.Skipped, r.Reason, fx.skip)
		}
		return
	}
	if r.Skipped {
		t.Fatalf("Check skipped: %s", r.Reason)
	}
	var gotWants, gotKept []string
	for _, f := range r.Files {
		rel, _ := filepath.Rel(root, f.Path)
		for _, d := range f.Findings {
			if d.Diagnostic.Source != lint.Source || d.Diagnostic.Code != lint.CodeGoTypes {
				t.Errorf("finding %v: source %q code %v, want %q %q", d.Diagnostic.Message, d.Diagnostic.Source, d.Diagnostic.Code, lint.Source, lint.CodeGoTypes)
			}
			s := fmt.Sprintf("%s:%d %s", filepath.ToSlash(rel), d.Diagnostic.Range.Start.Line+1, d.Diagnostic.Message)
			if d.Introduced {
				gotWants = append(gotWants, s)
			} else {
				gotKept = append(gotKept, s)
			}
		}
	}
	slices.Sort(fx.wants)
	slices.Sort(fx.kept)
	slices.Sort(gotWants)
	slices.Sort(gotKept)
	if diff := cmp.Diff(fx.wants, gotWants); diff != "" {
		t.Errorf("introduced errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fx.kept, gotKept); diff != "" {
		t.Errorf("pre-existing errors (-want +got):\n%s", diff)
	}
}

// baseEnv is the environment of the fixtures' go command: the test's,
// without a workspace file or a toolchain switch.
func baseEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"GOWORK=", "GOTOOLCHAIN=", "GOFLAGS=", "GOOS=", "GOARCH=", "GOMODCACHE="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	})
	return append(env, "GOWORK=off", "GOTOOLCHAIN=local")
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// moduleCache builds a module cache holding example.net/dep v1.0.0 with
// files, offline: it serves the module from a file:// GOPROXY folder to
// go mod download. It returns the cache and the go.sum lines of the
// module.
func moduleCache(t *testing.T, files map[string][]byte) (string, []byte) {
	t.Helper()
	files = maps.Clone(files)
	dir := t.TempDir()
	proxy := filepath.Join(dir, "proxy", "example.net", "dep", "@v")
	writeFile(t, filepath.Join(proxy, "list"), []byte("v1.0.0\n"))
	writeFile(t, filepath.Join(proxy, "v1.0.0.info"), []byte(`{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`))
	mod := files["go.mod"]
	if mod == nil {
		mod = []byte("module example.net/dep\n\ngo 1.21\n")
		files["go.mod"] = mod
	}
	writeFile(t, filepath.Join(proxy, "v1.0.0.mod"), mod)
	zf, err := os.Create(filepath.Join(proxy, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create("example.net/dep@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	cache := filepath.Join(dir, "modcache")
	cmd := exec.Command("go", "mod", "download", "-json", "example.net/dep@v1.0.0")
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), "GOPROXY=file://"+filepath.ToSlash(filepath.Join(dir, "proxy")), "GOMODCACHE="+cache,
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GONOSUMDB=*")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	var info struct{ Sum, GoModSum string }
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	return cache, fmt.Appendf(nil, "example.net/dep v1.0.0 %s\nexample.net/dep v1.0.0/go.mod %s\n", info.Sum, info.GoModSum)
}
