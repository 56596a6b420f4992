package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles creates files in a temporary folder and returns the folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lintArgs runs Files as `hermes-acp lint ARGS` does: a leading
// --json or --types=false sets the option, the rest are the files.
func lintArgs(t *testing.T, args []string, stdout, stderr *bytes.Buffer) int {
	t.Helper()
	o := Options{Types: true}
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		switch args[0] {
		case "--json":
			o.JSON = true
		case "--types=false":
			o.Types = false
		default:
			t.Fatalf("lintArgs: unknown flag %q", args[0])
		}
		args = args[1:]
	}
	return Files(t.Context(), args, o, stdout, stderr)
}

func TestFilesText(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"config.json":   "{\n  \"name\": \"demo\",\n}\n",
		"ok.json":       "{\"a\": 1}\n",
		"emoji.json":    "{\"k\": \"😀\",}",
		"dup.yaml":      "a: 1\na: 2\n",
		"main.go":       "package main\n\nfunc main() {\n\tf(1 2)\n\tg(3 4)\n}\n",
		"notes.txt":     "anything",
		"sub/go.mod":    "module m\n",
		"data.json/x":   "a folder named like a JSON file",
		"settings.toml": "a = 1\n",
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string
		wantErr    string // substring of stderr; "" means stderr must be empty
	}{
		{"clean files", []string{at("ok.json"), at("sub/go.mod"), at("settings.toml")}, 0, "", ""},
		{"trailing comma", []string{at("config.json")}, 1,
			at("config.json") + ":3:1: invalid character '}' looking for beginning of object key string\n", ""},
		{"utf-16 column", []string{at("emoji.json")}, 1,
			at("emoji.json") + ":1:12: invalid character '}' looking for beginning of object key string\n", ""},
		{"warnings do not fail", []string{at("dup.yaml")}, 0,
			at("dup.yaml") + ":2:1: warning: mapping key \"a\" already defined at line 1\n", ""},
		{"go reports every error", []string{at("main.go")}, 1,
			at("main.go") + ":4:6: missing ',' in argument list\n" + at("main.go") + ":5:6: missing ',' in argument list\n", ""},
		{"unsupported file is skipped", []string{at("notes.txt"), at("ok.json")}, 0, "",
			"notes.txt: skipped: No linter for .txt files"},
		{"missing file", []string{at("missing.json"), at("config.json")}, 2,
			at("config.json") + ":3:1: invalid character '}' looking for beginning of object key string\n", "missing.json"},
		{"missing unsupported file", []string{at("missing.txt")}, 2, "", "missing.txt"},
		{"directory", []string{at("data.json")}, 2, "", "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			status := lintArgs(t, tc.args, &stdout, &stderr)
			if status != tc.wantStatus {
				t.Errorf("Files(%q) = %d, want %d (stderr %q)", tc.args, status, tc.wantStatus, stderr.String())
			}
			if diff := cmp.Diff(tc.wantOut, stdout.String()); diff != "" {
				t.Errorf("Files(%q) stdout (-want +got):\n%s", tc.args, diff)
			}
			if tc.wantErr == "" && stderr.Len() > 0 {
				t.Errorf("Files(%q) stderr = %q, want nothing", tc.args, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("Files(%q) stderr = %q, want it to contain %q", tc.args, stderr.String(), tc.wantErr)
			}
		})
	}
}

func TestFilesJSON(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"my config.json": "{\"a\": 1,}",
		"ok.yaml":        "a: 1\n",
		"notes.txt":      "x",
	})
	var stdout, stderr bytes.Buffer
	args := []string{"--json", filepath.Join(dir, "my config.json"), filepath.Join(dir, "ok.yaml"), filepath.Join(dir, "notes.txt")}
	if status := lintArgs(t, args, &stdout, &stderr); status != 1 {
		t.Fatalf("Files(%q) = %d, want 1 (stderr %q)", args, status, stderr.String())
	}
	if !strings.Contains(stderr.String(), "skipped: No linter for .txt files") {
		t.Errorf("stderr = %q, want the skip note for notes.txt", stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout has %d lines, want one JSON object per checked file (2):\n%s", len(lines), stdout.String())
	}
	var got []map[string]any
	for _, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		got = append(got, obj)
	}
	want := []map[string]any{
		{
			"uri": "file://" + filepath.ToSlash(strings.ReplaceAll(filepath.Join(dir, "my config.json"), " ", "%20")),
			"diagnostics": []any{map[string]any{
				"range": map[string]any{
					"start": map[string]any{"line": 0.0, "character": 8.0},
					"end":   map[string]any{"line": 0.0, "character": 9.0},
				},
				"severity": 1.0,
				"code":     "json-syntax",
				"source":   "hermes-lint",
				"message":  "invalid character '}' looking for beginning of object key string",
			}},
		},
		{"uri": "file://" + filepath.ToSlash(filepath.Join(dir, "ok.yaml")), "diagnostics": []any{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Files --json output (-want +got):\n%s", diff)
	}
}

// TestFilesGoTypes: a Go file in a module is type-checked with its
// package; one outside any module gets a note; --types=false turns it off.
func TestFilesGoTypes(t *testing.T) {
	t.Parallel()
	mod := writeFiles(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"a.go":   "package m\n\nfunc A() int {\n\treturn b()\n}\n",
		"b.go":   "package m\n\nimport \"os\"\n\nfunc c() {}\n",
		// excluded by a build constraint no environment satisfies
		"never.go": "//go:build never\n\npackage m\n\nvar _ int = \"s\"\n",
	})
	loose := writeFiles(t, map[string]string{"x.go": "package x\n\nvar _ = y\n"})
	for _, tc := range []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string
		wantErr    string
	}{
		{"type errors of each file", []string{filepath.Join(mod, "a.go"), filepath.Join(mod, "b.go")}, 1,
			filepath.Join(mod, "a.go") + ":4:9: undefined: b\n" + filepath.Join(mod, "b.go") + ":3:8: \"os\" imported and not used\n", ""},
		{"off", []string{"--types=false", filepath.Join(mod, "a.go")}, 0, "", ""},
		{"excluded by build constraints", []string{filepath.Join(mod, "never.go")}, 0, "", "never.go: type check skipped: the file is not part of its package as built in this environment"},
		{"outside a module", []string{filepath.Join(loose, "x.go")}, 0, "", "type check skipped: not in a Go module"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			status := lintArgs(t, tc.args, &stdout, &stderr)
			if status != tc.wantStatus {
				t.Errorf("status = %d, want %d (stderr %q)", status, tc.wantStatus, stderr.String())
			}
			if diff := cmp.Diff(tc.wantOut, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if tc.wantErr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.wantErr)
			}
		})
	}
}
