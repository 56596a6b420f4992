package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// editUpdate rewrites the want sections of the edit fixtures from the
// actual results: go test ./tools -run 'Fixtures' -edit.update. Review the
// changes before committing them.
var editUpdate = flag.Bool("edit.update", false, "rewrite want.json and want/diff in testdata/write_file and testdata/patch")

// editFixture is one txtar case of testdata/write_file or testdata/patch.
//
// The archive comment describes the case and holds "key: value" lines:
//
//	tool: write_file | patch     the tool to call (required)
//	refuse: true                 lint.on_new_errors is refuse
//	deny: true                   the user rejects the edit (the model reads editDenial)
//	approvals: N                 how many ApproveEdit calls to expect (required)
//	unchanged: true              the workspace must end exactly as it began
//
// The files are:
//
//	args.json        the tool's arguments; "${ROOT}" stands for the root
//	arg/<name>       one more string argument, verbatim
//	before/<path>    the workspace before the call
//	after/<path>     the whole workspace after the call (unless unchanged)
//	want.json        the result without its "diff" key, "${ROOT}" as above
//	want/diff        the result's "diff", verbatim (absent: no diff key)
type editFixture struct {
	path   string
	name   string
	meta   map[string]string
	args   map[string]any
	before map[string]string
	after  map[string]string
	want   string
	diff   *string
}

// loadEditFixtures parses every archive in testdata/<dir>.
func loadEditFixtures(t *testing.T, dir string) []editFixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	var out []editFixture
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		fx := editFixture{path: p, name: filepath.Base(p), meta: map[string]string{}, args: map[string]any{},
			before: map[string]string{}, after: map[string]string{}}
		for line := range strings.SplitSeq(string(ar.Comment), "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
				fx.meta[k] = v
			}
		}
		for _, f := range ar.Files {
			data := string(f.Data)
			switch {
			case f.Name == "args.json":
				if err := json.Unmarshal(f.Data, &fx.args); err != nil {
					t.Fatalf("%s: args.json: %v", p, err)
				}
			case f.Name == "want.json":
				fx.want = data
			case f.Name == "want/diff":
				fx.diff = &data
			case strings.HasPrefix(f.Name, "arg/"):
				fx.args[strings.TrimPrefix(f.Name, "arg/")] = data
			case strings.HasPrefix(f.Name, "before/"):
				fx.before[strings.TrimPrefix(f.Name, "before/")] = data
			case strings.HasPrefix(f.Name, "after/"):
				fx.after[strings.TrimPrefix(f.Name, "after/")] = data
			default:
				t.Fatalf("%s: unknown section %q", p, f.Name)
			}
		}
		if fx.meta["tool"] == "" || fx.meta["approvals"] == "" || fx.want == "" && !*editUpdate {
			t.Fatalf("%s: needs tool, approvals and want.json", p)
		}
		out = append(out, fx)
	}
	return out
}

// editExpand replaces "${ROOT}" in every string inside v.
func editExpand(v any, root string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "${ROOT}", root)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = editExpand(e, root)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = editExpand(e, root)
		}
		return out
	}
	return v
}

// runEditFixtures runs the cases of testdata/<dir>: each starts from its
// before files, calls the tool once, and checks the result, the files on
// disk and the number of approvals asked.
func runEditFixtures(t *testing.T, dir string) {
	for _, fx := range loadEditFixtures(t, dir) {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			o := editEnvOptions{refuse: fx.meta["refuse"] == "true", deny: fx.meta["deny"] == "true"}
			env := newEditEnv(t, o)
			editWriteTree(t, env.root, fx.before)
			args := editExpand(fx.args, env.root).(map[string]any)

			got := env.run(t, fx.meta["tool"], args)

			gotDiff, hasDiff := got["diff"]
			delete(got, "diff")
			if *editUpdate {
				editRewriteWant(t, fx.path, env.root, got, gotDiff, hasDiff)
				fx.want, fx.diff = editJSON(editUnexpand(got, env.root))+"\n", nil
				if hasDiff {
					d := gotDiff.(string)
					fx.diff = &d
				}
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(fx.want), &want); err != nil {
				t.Fatalf("want.json: %v", err)
			}
			if d := cmp.Diff(editExpand(want, env.root), any(got)); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
			switch {
			case fx.diff == nil && hasDiff:
				t.Errorf("result has diff %q, want none", gotDiff)
			case fx.diff != nil && !hasDiff:
				t.Errorf("result has no diff, want:\n%s", *fx.diff)
			case fx.diff != nil:
				if d := cmp.Diff(*fx.diff, gotDiff); d != "" {
					t.Errorf("diff mismatch (-want +got):\n%s", d)
				}
			}
			wantTree := fx.after
			if fx.meta["unchanged"] == "true" {
				wantTree = fx.before
			}
			if d := cmp.Diff(wantTree, editTree(t, env.root)); d != "" {
				t.Errorf("workspace files mismatch (-want +got):\n%s", d)
			}
			approvals, _ := env.recorded()
			if n, _ := strconv.Atoi(fx.meta["approvals"]); len(approvals) != n {
				t.Errorf("ApproveEdit called %d times, want %d", len(approvals), n)
			}
		})
	}
}

// editUnexpand is the inverse of editExpand.
func editUnexpand(v any, root string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, root, "${ROOT}")
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = editUnexpand(e, root)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = editUnexpand(e, root)
		}
		return out
	}
	return v
}

// editRewriteWant replaces the want sections of the archive at path.
func editRewriteWant(t *testing.T, path, root string, got map[string]any, diff any, hasDiff bool) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var files []txtar.File
	for _, f := range ar.Files {
		if f.Name != "want.json" && f.Name != "want/diff" {
			files = append(files, f)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(editUnexpand(got, root)); err != nil {
		t.Fatal(err)
	}
	files = append(files, txtar.File{Name: "want.json", Data: b.Bytes()})
	if hasDiff {
		files = append(files, txtar.File{Name: "want/diff", Data: []byte(diff.(string))})
	}
	ar.Files = files
	if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEditTarget(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := newEditEnv(t, editEnvOptions{root: home, home: home})
	outside := t.TempDir()
	for _, tc := range []struct {
		name, path, verb string
		want             string // substring of the message; "" means accepted
	}{
		{"inside", "src/a.go", "Write", ""},
		{"absolute inside", filepath.Join(home, "b.txt"), "Write", ""},
		{"outside", filepath.Join(outside, "x.txt"), "Write", "outside the workspace"},
		{"dotdot", "../x.txt", "Write", "outside the workspace"},
		{"empty", "", "Write", "path is empty"},
		{"ssh", "~/.ssh/config", "Write", "Write denied: '" + filepath.Join(home, ".ssh", "config") + "' is a protected system/credential file."},
		{"ssh delete", ".ssh/id_rsa", "Delete", "Delete denied: '"},
		{"ssh move", ".ssh/known_hosts", "Move", "Move denied: '"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, msg := editTarget(env.services(), tc.path, tc.verb)
			if tc.want == "" {
				if msg != "" || p.IsZero() {
					t.Fatalf("editTarget(%q) = %v, %q; want accepted", tc.path, p, msg)
				}
				return
			}
			if !strings.Contains(msg, tc.want) || !p.IsZero() {
				t.Errorf("editTarget(%q) = %v, %q; want a refusal containing %q", tc.path, p, msg, tc.want)
			}
		})
	}
}

func TestEditRead(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"empty.txt": "", "a.txt": "x"})
	if err := os.Mkdir(env.abs("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path       string
		want       string
		wantExists bool
		wantErr    bool
	}{
		{"a.txt", "x", true, false},
		{"empty.txt", "", true, false},
		{"missing.txt", "", false, false},
		{"dir", "", false, true},
	} {
		p := env.target(t, tc.path)
		got, exists, err := editRead(t.Context(), env.services(), p)
		if string(got) != tc.want || exists != tc.wantExists || (err != nil) != tc.wantErr {
			t.Errorf("editRead(%q) = %q, %v, %v; want %q, %v, error %v", tc.path, got, exists, err, tc.want, tc.wantExists, tc.wantErr)
		}
		if exists && got == nil {
			t.Errorf("editRead(%q) returned nil content for an existing file", tc.path)
		}
	}
}

func TestEditChange(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	p := env.target(t, "a.txt")
	old := "old\n"
	for _, tc := range []struct {
		name   string
		old    string
		exists bool
		want   workspace.Change
	}{
		{"new file", "", false, workspace.Change{Kind: workspace.ChangeCreate, Path: p, New: "new\n"}},
		{"existing", old, true, workspace.Change{Kind: workspace.ChangeEdit, Path: p, Old: &old, New: "new\n"}},
	} {
		got := editChange(p, tc.old, tc.exists, "new\n")
		if d := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b workspace.Path) bool { return a == b })); d != "" {
			t.Errorf("%s: editChange mismatch (-want +got):\n%s", tc.name, d)
		}
	}
}
