package main_test

// The official ACP TypeScript SDK plays an editor while a hostile model
// (scenario testdata/e2e/paths.txtar, script conformance/paths.mjs) tries to
// leave the workspace through a missing folder and a symbolic link, to
// write .git through a committed link without being asked, to overwrite the
// agent's sessions database with the workspace at $HOME, and to read
// credential files. This file checks what the model was told, what is on
// disk afterwards and what crossed the wire.

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// pathStep is a step of paths.txtar.
type pathStep struct {
	toolStep
	Client  string `json:"client"`
	Mode    string `json:"mode"`
	Answer  string `json:"answer"`
	AskPath string `json:"askPath"`
	Outcome string `json:"outcome"` // read, written, denied or refused
	modelView
}

func TestTypeScriptSDKPaths(t *testing.T) {
	t.Parallel()
	requireNode(t)
	var sc struct {
		Steps []pathStep `json:"steps"`
	}
	const archive = "testdata/e2e/paths.txtar"
	files := loadArchive(t, archive, &sc)
	steps := make([]toolStep, len(sc.Steps))
	for i, s := range sc.Steps {
		steps[i] = s.toolStep
	}
	srv := startModel(t, stepResponder(t, steps, files))
	r := newSDKRun(t, "paths.mjs", archive)
	r.run(t, srv)

	ws := filepath.Join(r.workdir, "ws")
	home := filepath.Join(r.workdir, "home")
	results := toolResults(t, srv)
	for _, s := range sc.Steps {
		t.Run(s.ID, func(t *testing.T) {
			res := s.seenBy(t, results, s.callID())
			var got struct {
				Error        string `json:"error"`
				BytesWritten *int   `json:"bytes_written"`
				Content      string `json:"content"`
			}
			if err := json.Unmarshal([]byte(res), &got); err != nil {
				t.Fatalf("tool result %s is not a JSON object: %v\n%s", s.callID(), err, res)
			}
			switch s.Outcome {
			case "read":
				if got.Error != "" || got.Content == "" {
					t.Errorf("tool result %s = %s, want content and no error", s.callID(), res)
				}
			case "written":
				if got.Error != "" || got.BytesWritten == nil {
					t.Errorf("tool result %s = %s, want bytes_written and no error", s.callID(), res)
				}
			case "denied", "refused":
				if got.Error == "" || got.BytesWritten != nil {
					t.Errorf("tool result %s = %s, want an error and no bytes_written", s.callID(), res)
				}
			default:
				t.Fatalf("step %s: unknown outcome %q", s.ID, s.Outcome)
			}
		})
	}

	// On disk: nothing outside the workspace, in .git or in HERMES_HOME
	// was written; sessions.db is still the agent's healthy database.
	for _, d := range []struct{ path, want string }{
		{filepath.Join(r.workdir, "out", "secret"), "outside secret\n"},
		{filepath.Join(r.workdir, "out", "new.txt"), ""},
		{filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n"},
		{filepath.Join(ws, ".git", "hooks", "pre-commit"), ""},
		{filepath.Join(home, ".hermes", "config.yaml"), "# the user's settings\n"},
		{filepath.Join(home, ".hermes", "memories", "MEMORY.md"), "the user likes tea\n"},
		{filepath.Join(ws, "notes", "todo.txt"), "an ordinary edit\n"},
	} {
		b, err := os.ReadFile(d.path)
		switch {
		case d.want == "" && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("os.ReadFile(%q) = %q, %v; want no such file", d.path, b, err)
		case d.want != "" && (err != nil || string(b) != d.want):
			t.Errorf("os.ReadFile(%q) = %q, %v; want %q", d.path, b, err, d.want)
		}
	}
	dbPath := filepath.Join(home, ".hermes", "sessions.db")
	if b, err := os.ReadFile(dbPath); err != nil || !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		t.Errorf("%s is not an SQLite database after the run (%v): %.40q", dbPath, err, b)
	} else {
		db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		var ok string
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
			t.Errorf("PRAGMA integrity_check on %s = %q, %v; want ok", dbPath, ok, err)
		}
		db.Close()
	}

	// On the wire: every agent message is valid ACP; the fs editor was
	// never sent a path that it would follow out of the workspace; the
	// approvals of the .git writes show the real .git files; the clients
	// without fs got no fs request.
	conns := r.transcriptOf(t)
	for _, m := range []string{"fs/read_text_file", "fs/write_text_file"} {
		for _, raw := range agentRequests(conns["fs"], m) {
			var p struct{ Path string }
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			if real := landing(filepath.Clean(p.Path)); !isWithinDir(real, ws) {
				t.Errorf("%s %s: an editor following links lands at %s, outside %s", m, p.Path, real, ws)
			}
		}
		for _, c := range []string{"home-a", "home"} {
			if got := agentRequests(conns[c], m); len(got) != 0 {
				t.Errorf("%s: the agent sent %d %s to a client without fs", c, len(got), m)
			}
		}
	}
	var wantAsk []string
	for _, s := range sc.Steps {
		if s.Answer != "" {
			wantAsk = append(wantAsk, filepath.Join(ws, s.AskPath))
		}
	}
	var gotAsk []string
	for _, raw := range agentRequests(conns["fs"], "session/request_permission") {
		var p struct {
			ToolCall struct {
				Content []struct {
					Type string `json:"type"`
					Path string `json:"path"`
				} `json:"content"`
			} `json:"toolCall"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		for _, c := range p.ToolCall.Content {
			if c.Type == "diff" {
				gotAsk = append(gotAsk, c.Path)
			}
		}
	}
	if strings.Join(gotAsk, "\n") != strings.Join(wantAsk, "\n") {
		t.Errorf("permission requests show %q, want %q", gotAsk, wantAsk)
	}
}

// landing returns where the kernel puts a file at the clean absolute path
// p: the real path of its deepest existing ancestor, with the rest joined.
func landing(p string) string {
	var rest []string
	for probe := p; ; probe = filepath.Dir(probe) {
		if real, err := filepath.EvalSymlinks(probe); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if probe == filepath.Dir(probe) {
			return p
		}
		rest = append([]string{filepath.Base(probe)}, rest...)
	}
}

func isWithinDir(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
