package main_test

// The official ACP TypeScript SDK plays the clients of
// conformance/results.mjs (scenario testdata/e2e/results.txtar): an editor
// that can read but not write gets no false post-write verification
// failure, and two sessions saving an over-budget result under the same
// tool call id keep two files.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// resultStep is a step of results.txtar.
type resultStep struct {
	toolStep
	Client string `json:"client"` // readonly or budget
}

func TestTypeScriptSDKResults(t *testing.T) {
	t.Parallel()
	requireNode(t)
	var sc struct {
		Steps []resultStep `json:"steps"`
	}
	const archive = "testdata/e2e/results.txtar"
	files := loadArchive(t, archive, &sc)
	steps := make([]toolStep, len(sc.Steps))
	for i, s := range sc.Steps {
		steps[i] = s.toolStep
	}
	srv := startModel(t, stepResponder(t, steps, files))
	home := t.TempDir()
	r := newSDKRun(t, "results.mjs", archive)
	runSDKWithEnv(t, r, srv, "HERMES_HOME="+home)
	if conns := r.transcriptOf(t); len(conns["readonly"]) == 0 || len(conns["budget"]) == 0 {
		t.Errorf("transcript: %d readonly lines, %d budget lines; want both connections recorded", len(conns["readonly"]), len(conns["budget"]))
	}

	sent := sentResults(t, srv)
	for _, s := range sc.Steps {
		t.Run(s.ID, func(t *testing.T) {
			got := sent[s.callID()]
			switch s.Client {
			case "readonly":
				if len(got) != 1 {
					t.Fatalf("the model was sent %d results for %s, want 1: %q", len(got), s.callID(), got)
				}
				var res struct {
					Error        string `json:"error"`
					Success      *bool  `json:"success"`
					BytesWritten *int   `json:"bytes_written"`
				}
				if err := json.Unmarshal([]byte(got[0]), &res); err != nil {
					t.Fatalf("tool result %s is not a JSON object: %v\n%s", s.callID(), err, got[0])
				}
				if res.Error != "" || strings.Contains(strings.ToLower(got[0]), "verification failed") {
					t.Errorf("tool result %s = %s, want no error", s.callID(), got[0])
				}
				if s.Tool == "patch" && (res.Success == nil || !*res.Success) {
					t.Errorf("tool result %s = %s, want success", s.callID(), got[0])
				}
				if s.Tool == "write_file" && (res.BytesWritten == nil || *res.BytesWritten != len(s.content(files))) {
					t.Errorf("tool result %s bytes_written = %v, want %d", s.callID(), res.BytesWritten, len(s.content(files)))
				}
			case "budget":
				checkSavedResults(t, s, got, filepath.Join(home, "results"))
			default:
				t.Fatalf("step %s: unknown client %q", s.ID, s.Client)
			}
		})
	}
	for rel, want := range map[string]string{"new.txt": "written to the disk\n", "f.txt": "one\n2\nthree\n", "g.txt": "alpha\ngamma\n"} {
		p := filepath.Join(r.workdir, "readonly", rel)
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("os.ReadFile(%q) = %q, %v; want %q", p, b, err, want)
		}
	}
}

// checkSavedResults checks the budget step: each of the two sessions was
// sent a note naming its own file in dir, and dir holds exactly those two
// files, each with one session's result.
func checkSavedResults(t *testing.T, s resultStep, got []string, dir string) {
	t.Helper()
	if len(got) != 2 {
		t.Fatalf("the model was sent %d distinct results for %s, want 2 (one a session): %.200q", len(got), s.callID(), got)
	}
	var named []string
	for _, note := range got {
		if !strings.HasPrefix(note, "<persisted-output>") {
			t.Errorf("result %s = %.200q, want a <persisted-output> note", s.callID(), note)
			continue
		}
		_, rest, _ := strings.Cut(note, "Full output saved to: ")
		path, _, _ := strings.Cut(rest, "\n")
		if filepath.Dir(path) != dir {
			t.Errorf("the note names %q, want a file in %s", path, dir)
		}
		named = append(named, path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	markers := map[string]string{}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		onDisk = append(onDisk, p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, bb := strings.Contains(string(b), "SESSION-A line 0599"), strings.Contains(string(b), "SESSION-B line 0599")
		switch {
		case a && !strings.Contains(string(b), "SESSION-B"):
			markers[p] = "A"
		case bb && !strings.Contains(string(b), "SESSION-A"):
			markers[p] = "B"
		default:
			t.Errorf("%s holds neither one session's whole result (A %v, B %v): %.200q", p, a, bb, b)
		}
	}
	slices.Sort(named)
	if !slices.Equal(named, onDisk) {
		t.Errorf("the notes name %q, the results dir holds %q; want the same two files", named, onDisk)
	}
	if len(markers) != 2 || markers[onDisk[0]] == markers[onDisk[1]] {
		t.Errorf("saved files by session = %v, want one file for each session", markers)
	}
}

// sentResults returns, by tool call id, the distinct tool results the model
// was sent, in the order first sent.
func sentResults(t *testing.T, srv *modeltest.Server) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for i, raw := range srv.Requests() {
		r, err := modeltest.ParseRequest(raw)
		if err != nil {
			t.Fatalf("model request %d: %v", i, err)
		}
		for _, m := range r.Messages {
			if m.Role == "tool" && !slices.Contains(out[m.ToolCallID], m.Content) {
				out[m.ToolCallID] = append(out[m.ToolCallID], m.Content)
			}
		}
	}
	return out
}

// runSDKWithEnv runs r's script like sdkRun.run, with extra environment
// entries (KEY=VALUE) that override the base ones.
func runSDKWithEnv(t *testing.T, r sdkRun, srv *modeltest.Server, extra ...string) {
	t.Helper()
	env := append(modelEnv(srv), "CONFORMANCE_SCENARIO="+r.scenario)
	r.exec(t, 60*time.Second, append(env, extra...)...)
}
