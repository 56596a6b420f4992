package main_test

// The official ACP TypeScript SDK plays an editor while the model writes
// broken and then fixed JSON, Go and YAML files
// (conformance/diagnostics.mjs, scenario testdata/e2e/diagnostics.txtar):
// the lint of the proposed content on the permission request, the
// _hermes/publishDiagnostics notifications, the completing
// tool_call_update's _meta.hermes.lint, and the lint the model reads.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// diagStep is a step of diagnostics.txtar.
type diagStep struct {
	toolStep
	Lint struct {
		Status      string `json:"status"`
		Introduced  int    `json:"introduced"`
		Preexisting int    `json:"preexisting"`
	} `json:"lint"`
	PermissionSummary string         `json:"permissionSummary"`
	Diagnostics       []expectedDiag `json:"diagnostics"`
}

// expectedDiag is where a diagnostic starts (0-based line, UTF-16
// character) and its code.
type expectedDiag struct {
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Code      string `json:"code"`
}

// modelPosition is how the model's lint output names the position: 1-based
// line and column.
func (d expectedDiag) modelPosition() string {
	return fmt.Sprintf("(line %d, column %d)", d.Line+1, d.Character+1)
}

// publishedDiag is the part of a published LSP Diagnostic the test compares.
type publishedDiag struct {
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Code      string `json:"code"`
	Severity  int    `json:"severity"`
	Source    string `json:"source"`
}

// publication is the part of _hermes/publishDiagnostics params the test
// reads.
type publication struct {
	URI         string `json:"uri"`
	Diagnostics []struct {
		Range struct {
			Start struct {
				Line      int `json:"line"`
				Character int `json:"character"`
			} `json:"start"`
		} `json:"range"`
		Severity int    `json:"severity"`
		Code     string `json:"code"`
		Source   string `json:"source"`
	} `json:"diagnostics"`
}

func TestTypeScriptSDKDiagnostics(t *testing.T) {
	t.Parallel()
	requireNode(t)
	var sc struct {
		Steps []diagStep `json:"steps"`
	}
	const archive = "testdata/e2e/diagnostics.txtar"
	files := loadArchive(t, archive, &sc)
	steps := make([]toolStep, len(sc.Steps))
	for i, s := range sc.Steps {
		steps[i] = s.toolStep
	}

	srv := startModel(t, stepResponder(t, steps, files))
	r := newSDKRun(t, "diagnostics.mjs", archive)
	r.run(t, srv)
	ws := filepath.Join(r.workdir, "ws")

	// What the editor received: one publication per write, in step order,
	// each the file's full set at the expected positions.
	conns := r.transcriptOf(t)
	var published []publication
	for _, p := range agentNotifications(conns["fs"], "_hermes/publishDiagnostics") {
		var n publication
		if err := json.Unmarshal(p, &n); err != nil {
			t.Fatalf("_hermes/publishDiagnostics params %s: %v", p, err)
		}
		published = append(published, n)
	}
	if len(published) != len(sc.Steps) {
		t.Errorf("the editor received %d _hermes/publishDiagnostics, want %d (one per write)", len(published), len(sc.Steps))
	}

	results := toolResults(t, srv)
	if got, want := len(srv.Requests()), 2*len(sc.Steps); got != want {
		t.Errorf("the fake model received %d requests, want %d (a prompt and a tool result per step)", got, want)
	}
	for i, s := range sc.Steps {
		t.Run(s.ID, func(t *testing.T) {
			// The model was told the lint of what it wrote.
			res, ok := results[s.callID()]
			if !ok {
				t.Fatalf("the model was never sent the result of %s", s.callID())
			}
			var got struct {
				Error string `json:"error"`
				Lint  struct {
					Status string `json:"status"`
					Output string `json:"output"`
				} `json:"lint"`
			}
			if err := json.Unmarshal([]byte(res), &got); err != nil {
				t.Fatalf("tool result %s is not a JSON object: %v\n%s", s.callID(), err, res)
			}
			if got.Error != "" {
				t.Fatalf("tool result %s error = %q, want none", s.callID(), got.Error)
			}
			if got.Lint.Status != s.Lint.Status {
				t.Errorf("tool result %s lint.status = %q, want %q\n%s", s.callID(), got.Lint.Status, s.Lint.Status, res)
			}
			if lines := strings.Count(got.Lint.Output, "\n") + 1; len(s.Diagnostics) > 0 && lines != len(s.Diagnostics) {
				t.Errorf("tool result %s lint.output has %d lines, want %d:\n%s", s.callID(), lines, len(s.Diagnostics), got.Lint.Output)
			}
			if len(s.Diagnostics) == 0 && got.Lint.Output != "" {
				t.Errorf("tool result %s lint.output = %q, want empty", s.callID(), got.Lint.Output)
			}
			for _, d := range s.Diagnostics {
				if !strings.Contains(got.Lint.Output, d.modelPosition()) {
					t.Errorf("tool result %s lint.output = %q, want it to give %s", s.callID(), got.Lint.Output, d.modelPosition())
				}
			}

			// The editor received the file's full set.
			if i >= len(published) {
				t.Fatalf("no _hermes/publishDiagnostics for step %d", i)
			}
			p := published[i]
			wantURI := (&url.URL{Scheme: "file", Path: filepath.Join(ws, s.path())}).String()
			if p.URI != wantURI {
				t.Errorf("_hermes/publishDiagnostics uri = %q, want %q", p.URI, wantURI)
			}
			gotDiags := []publishedDiag{}
			for _, d := range p.Diagnostics {
				gotDiags = append(gotDiags, publishedDiag{d.Range.Start.Line, d.Range.Start.Character, d.Code, d.Severity, d.Source})
			}
			wantDiags := []publishedDiag{}
			for _, d := range s.Diagnostics {
				wantDiags = append(wantDiags, publishedDiag{d.Line, d.Character, d.Code, 1, "hermes-lint"})
			}
			if diff := cmp.Diff(wantDiags, gotDiags); diff != "" {
				t.Errorf("_hermes/publishDiagnostics for %s (-want +got):\n%s", s.path(), diff)
			}
		})
	}
}

// TestTypeScriptSDKDiagnosticsNotAskedFor plays the same scenario with an
// editor on the official SDK that does not ask for our extension (no
// clientCapabilities._meta.hermes.diagnostics, no handler): it is sent no
// _hermes/* notification, so the SDK has nothing to report, and the lint
// still reaches it in the completing tool_call_update and the model in its
// tool result.
func TestTypeScriptSDKDiagnosticsNotAskedFor(t *testing.T) {
	t.Parallel()
	requireNode(t)
	var sc struct {
		Steps []diagStep `json:"steps"`
	}
	const archive = "testdata/e2e/diagnostics.txtar"
	files := loadArchive(t, archive, &sc)
	steps := make([]toolStep, len(sc.Steps))
	for i, s := range sc.Steps {
		steps[i] = s.toolStep
	}
	srv := startModel(t, stepResponder(t, steps, files))
	r := newSDKRun(t, "diagnostics.mjs", archive)
	r.exec(t, 60*time.Second, append(modelEnv(srv), "CONFORMANCE_SCENARIO="+r.scenario, "CONFORMANCE_DIAGNOSTICS=off")...)
	for _, l := range r.transcriptOf(t)["fs"] {
		if l.From == "agent" && strings.HasPrefix(l.msg.Method, "_hermes/") {
			t.Errorf("the editor that did not ask was sent %s", l.msg.Method)
		}
	}
	results := toolResults(t, srv)
	for _, s := range sc.Steps {
		if res := results[s.callID()]; !strings.Contains(res, `"lint":{"status":"`+s.Lint.Status+`"`) {
			t.Errorf("tool result %s = %q, want lint.status %s", s.callID(), res, s.Lint.Status)
		}
	}
}
