package main_test

// The official ACP TypeScript SDK plays an editor while the model edits
// files (conformance/edits.mjs, scenario testdata/e2e/edits.txtar): inline
// edit approval through the editor's fs methods, rejection, paths outside
// the workspace, unsaved buffers, "allow all edits this session", and the
// atomic disk write of a client without fs. This file also holds what the
// txtar-driven SDK tests share: the scenario archive, the fake model that
// plays its steps, running a conformance script, and reading back what the
// model was told and what crossed the wire.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/internal/schematest"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
	"golang.org/x/tools/txtar"
)

// toolStep is what the fake model needs of a scenario step: when the user's
// prompt holds "[ID]" it calls Tool with Args (plus "content", the archive
// file ContentFile, when set) under the call id "call_ID"; when that call's
// result comes back it replies "ID done; the tool said: RESULT", so the
// editor can check what the model was told.
type toolStep struct {
	ID          string         `json:"id"`
	Prompt      string         `json:"prompt"`
	Tool        string         `json:"tool"`
	Args        map[string]any `json:"args"`
	ContentFile string         `json:"contentFile"`
}

func (s toolStep) callID() string { return "call_" + s.ID }

// path returns the step's "path" argument.
func (s toolStep) path() string {
	p, _ := s.Args["path"].(string)
	return p
}

// content returns the content the step writes.
func (s toolStep) content(files map[string]string) string {
	if s.ContentFile != "" {
		return files[s.ContentFile]
	}
	c, _ := s.Args["content"].(string)
	return c
}

// resultPrefix starts the model's reply to the step's tool result.
func (s toolStep) resultPrefix() string { return s.ID + " done; the tool said: " }

// loadArchive reads a txtar scenario: its scenario.json decoded strictly
// into v, and every file by name.
func loadArchive(t testing.TB, path string, v any) map[string]string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	data, ok := files["scenario.json"]
	if !ok {
		t.Fatalf("%s: no scenario.json in the archive", path)
	}
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: scenario.json: %v", path, err)
	}
	return files
}

// stepResponder plays the model of steps. A request it does not expect
// fails the test and gets an HTTP 500.
func stepResponder(t testing.TB, steps []toolStep, files map[string]string) func(modeltest.Request) modeltest.Turn {
	return func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		for _, s := range steps {
			switch {
			case last.Role == "user" && strings.Contains(last.Content, "["+s.ID+"]"):
				args := map[string]any{}
				for k, v := range s.Args {
					args[k] = v
				}
				if s.ContentFile != "" {
					c, ok := files[s.ContentFile]
					if !ok {
						t.Errorf("fake model: step %s: no file %s in the archive", s.ID, s.ContentFile)
					}
					args["content"] = c
				}
				b, err := json.Marshal(args)
				if err != nil {
					t.Errorf("fake model: step %s: %v", s.ID, err)
					return modeltest.Turn{Status: 500}
				}
				return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: s.callID(), Name: s.Tool, Arguments: string(b)}}}
			case last.Role == "tool" && last.ToolCallID == s.callID():
				return modeltest.Turn{Text: []string{s.resultPrefix(), last.Content}}
			}
		}
		t.Errorf("fake model: unexpected request; last message %s %q", last.Role, truncate(last.Content, 200))
		return modeltest.Turn{Status: 500}
	}
}

// toolResults returns, by tool call id, the tool results the model was sent
// (the content of the role "tool" messages of every request it received).
func toolResults(t testing.TB, srv *modeltest.Server) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, raw := range srv.Requests() {
		r, err := modeltest.ParseRequest(raw)
		if err != nil {
			t.Fatalf("model request %d: %v", i, err)
		}
		for _, m := range r.Messages {
			if m.Role != "tool" {
				continue
			}
			if prev, ok := out[m.ToolCallID]; ok && prev != m.Content {
				t.Errorf("the model was sent two different results for %s:\n%s\n%s", m.ToolCallID, prev, m.Content)
			}
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// requireNode returns the node binary, failing the test when node or the
// conformance node_modules are missing.
func requireNode(t testing.TB) string {
	t.Helper()
	for _, dep := range []string{"@agentclientprotocol/sdk", "zod"} {
		if _, err := os.Stat(filepath.Join(repoRoot, "conformance", "node_modules", dep, "package.json")); err != nil {
			t.Fatalf("conformance/node_modules/%s is missing: run `npm ci --prefix conformance` (make check does)", dep)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (Node 20 or later is needed for the TypeScript SDK tests): %v", err)
	}
	return node
}

// sdkRun is one run of a conformance script over a txtar scenario.
type sdkRun struct {
	script     string // relative to the repository root
	scenario   string // absolute
	workdir    string // the script's CONFORMANCE_WORKDIR
	transcript string // the script's CONFORMANCE_TRANSCRIPT
	// agent is the binary to drive (agentBin when empty) and attr the
	// node process's attributes (nil: this user; asNobody switches).
	agent string
	attr  *syscall.SysProcAttr
}

// newSDKRun prepares a run of script (under conformance/) over the archive
// at scenarioPath (relative to the package folder).
func newSDKRun(t testing.TB, script, scenarioPath string) sdkRun {
	t.Helper()
	abs, err := filepath.Abs(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	return sdkRun{
		script:     filepath.Join("conformance", script),
		scenario:   abs,
		workdir:    t.TempDir(),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl"),
	}
}

// run runs the script against the binary with the fake model and fails the
// test (with the script's report) when the script fails; the caller's own
// checks still run, so that both sides report.
func (r sdkRun) run(t testing.TB, srv *modeltest.Server) {
	t.Helper()
	r.exec(t, 60*time.Second, append(modelEnv(srv), "CONFORMANCE_SCENARIO="+r.scenario)...)
}

// exec runs the script against the binary within timeout, with the run's
// workdir and transcript and the extra environment entries (KEY=VALUE,
// overriding the base ones), and fails the test with the script's report
// when the script fails. Scripts that start the agent with the script model
// need no extra entries.
func (r sdkRun) exec(t testing.TB, timeout time.Duration, env ...string) {
	t.Helper()
	node := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	bin := r.agent
	if bin == "" {
		bin = agentBin
	}
	cmd := exec.CommandContext(ctx, node, r.script, bin)
	cmd.Dir = repoRoot
	cmd.SysProcAttr = r.attr
	cmd.Env = baseEnv(t, append([]string{
		"CONFORMANCE_WORKDIR=" + r.workdir,
		"CONFORMANCE_TRANSCRIPT=" + r.transcript,
	}, env...)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("node %s %s: %v\n%s", r.script, bin, err, out)
		return
	}
	t.Logf("%s", out)
}

// wireLine is one JSON-RPC line of the transcript.
type wireLine struct {
	Conn string `json:"conn"`
	From string `json:"from"`
	Line string `json:"line"`
	msg  message
}

// transcriptOf reads the run's transcript, checks every agent line of each
// connection against the ACP schema (and the hermes diagnostics schema) and
// returns the lines by connection.
func (r sdkRun) transcriptOf(t testing.TB) map[string][]wireLine {
	t.Helper()
	f, err := os.Open(r.transcript)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	conns := map[string][]wireLine{}
	checkers := map[string]*schematest.Checker{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l wireLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("transcript line %q: %v", truncate(sc.Text(), 200), err)
		}
		if err := json.Unmarshal([]byte(l.Line), &l.msg); err != nil {
			t.Errorf("%s: the %s sent a line that is not JSON-RPC: %v\n%s", l.Conn, l.From, err, truncate(l.Line, 300))
		}
		c, ok := checkers[l.Conn]
		if !ok {
			if c = schematest.Attach(t); c == nil {
				t.FailNow() // Attach reported why
			}
			checkers[l.Conn] = c
		}
		c.Line(l.From == "agent", []byte(l.Line))
		conns[l.Conn] = append(conns[l.Conn], l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("transcript: %v", err)
	}
	for conn, c := range checkers {
		if c.Seen() == 0 {
			t.Errorf("transcript: connection %s has no agent message to check", conn)
		}
	}
	return conns
}

// agentRequests returns the params of the requests the agent sent with
// method.
func agentRequests(lines []wireLine, method string) []json.RawMessage {
	var out []json.RawMessage
	for _, l := range lines {
		if l.From == "agent" && l.msg.Method == method && len(l.msg.ID) > 0 {
			out = append(out, l.msg.Params)
		}
	}
	return out
}

// agentNotifications returns the params of the notifications the agent sent
// with method.
func agentNotifications(lines []wireLine, method string) []json.RawMessage {
	var out []json.RawMessage
	for _, l := range lines {
		if l.From == "agent" && l.msg.Method == method && len(l.msg.ID) == 0 {
			out = append(out, l.msg.Params)
		}
	}
	return out
}

// modelView is what a scenario step says its tool result must and must not
// hold.
type modelView struct {
	ModelSees    []string `json:"modelSees"`
	ModelNotSees []string `json:"modelNotSees"`
}

// seenBy returns the tool result the model was sent for the call id and
// fails t unless it holds every ModelSees string and no ModelNotSees one.
func (v modelView) seenBy(t *testing.T, results map[string]string, id string) string {
	t.Helper()
	res, ok := results[id]
	if !ok {
		t.Fatalf("the model was never sent the result of %s", id)
	}
	for _, want := range v.ModelSees {
		if !strings.Contains(res, want) {
			t.Errorf("tool result %s = %s, want it to contain %q", id, res, want)
		}
	}
	for _, bad := range v.ModelNotSees {
		if strings.Contains(res, bad) {
			t.Errorf("tool result %s = %s, want no %q", id, res, bad)
		}
	}
	return res
}

// editStep is a step of edits.txtar.
type editStep struct {
	toolStep
	Client  string `json:"client"`
	Outcome string `json:"outcome"` // written, denied, refused or read
	Answer  string `json:"answer"`
	modelView
}

// outsideAbs is the absolute path outside the workspace that edits.txtar's
// model tries to write.
const outsideAbs = "/etc/passwd-hermes-test"

func TestTypeScriptSDKEdits(t *testing.T) {
	t.Parallel()
	requireNode(t)
	var sc struct {
		Steps []editStep `json:"steps"`
	}
	const archive = "testdata/e2e/edits.txtar"
	files := loadArchive(t, archive, &sc)
	steps := make([]toolStep, len(sc.Steps))
	for i, s := range sc.Steps {
		steps[i] = s.toolStep
	}
	if _, err := os.Lstat(outsideAbs); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s exists before the test (%v): remove it, the test checks that nothing creates it", outsideAbs, err)
	}
	t.Cleanup(func() {
		if _, err := os.Lstat(outsideAbs); err == nil {
			t.Errorf("%s was created by the agent; removing it", outsideAbs)
			_ = os.Remove(outsideAbs)
		}
	})

	srv := startModel(t, stepResponder(t, steps, files))
	r := newSDKRun(t, "edits.mjs", archive)
	r.run(t, srv)

	// The model saw each tool result, and they say what the step expects.
	results := toolResults(t, srv)
	if got, want := len(srv.Requests()), 2*len(sc.Steps); got != want {
		t.Errorf("the fake model received %d requests, want %d (a prompt and a tool result per step)", got, want)
	}
	wsOf := map[string]string{"fs": filepath.Join(r.workdir, "fs-ws"), "disk": filepath.Join(r.workdir, "disk-ws")}
	for _, s := range sc.Steps {
		t.Run(s.ID, func(t *testing.T) {
			res := s.seenBy(t, results, s.callID())
			var got struct {
				Error        string `json:"error"`
				BytesWritten *int   `json:"bytes_written"`
				ResolvedPath string `json:"resolved_path"`
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
			case "denied", "refused":
				if got.Error == "" || got.BytesWritten != nil {
					t.Errorf("tool result %s = %s, want an error and no bytes_written", s.callID(), res)
				}
			case "written":
				content := s.content(files)
				if got.BytesWritten == nil || *got.BytesWritten != len(content) {
					t.Errorf("tool result %s bytes_written = %v, want %d", s.callID(), got.BytesWritten, len(content))
				}
				if want := filepath.Join(wsOf[s.Client], s.path()); got.ResolvedPath != want {
					t.Errorf("tool result %s resolved_path = %q, want %q", s.callID(), got.ResolvedPath, want)
				}
			default:
				t.Fatalf("step %s: unknown outcome %q", s.ID, s.Outcome)
			}
		})
	}

	// What is on disk afterwards: the fs editor's edits went to its buffers
	// only, the rejected and refused writes went nowhere, and the client
	// without fs got the file replaced.
	disk := []struct {
		path string
		want string // "" means the file must not exist
	}{
		{filepath.Join(wsOf["fs"], "hello.txt"), ""},
		{filepath.Join(wsOf["fs"], "session-a.txt"), ""},
		{filepath.Join(wsOf["fs"], "session-b.txt"), ""},
		{filepath.Join(wsOf["fs"], "keep.txt"), files["disk/keep.txt"]},
		{filepath.Join(wsOf["fs"], "buffer.txt"), files["disk/buffer.txt"]},
		{filepath.Join(r.workdir, "outside.txt"), ""},
		{outsideAbs, ""},
		{filepath.Join(wsOf["disk"], "disk.txt"), files["write/disk.txt"]},
	}
	for _, d := range disk {
		b, err := os.ReadFile(d.path)
		switch {
		case d.want == "" && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("os.ReadFile(%q) = %q, %v; want no such file", d.path, b, err)
		case d.want != "" && (err != nil || string(b) != d.want):
			t.Errorf("os.ReadFile(%q) = %q, %v; want %q", d.path, b, err, d.want)
		}
	}

	// On the wire: every agent message is valid ACP, the fs editor received
	// exactly the three allowed writes, and the disk client no fs request.
	conns := r.transcriptOf(t)
	type write struct{ Path, Content string }
	var wantWrites []write
	var wantPermissions int
	for _, s := range sc.Steps {
		if s.Client == "fs" && s.Answer != "" {
			wantPermissions++
		}
		if s.Client == "fs" && s.Outcome == "written" {
			wantWrites = append(wantWrites, write{filepath.Join(wsOf["fs"], s.path()), s.content(files)})
		}
	}
	var gotWrites []write
	for _, p := range agentRequests(conns["fs"], "fs/write_text_file") {
		var w write
		if err := json.Unmarshal(p, &w); err != nil {
			t.Fatal(err)
		}
		gotWrites = append(gotWrites, w)
	}
	if fmt.Sprint(gotWrites) != fmt.Sprint(wantWrites) {
		t.Errorf("fs/write_text_file requests = %q, want %q", gotWrites, wantWrites)
	}
	if got := len(agentRequests(conns["fs"], "session/request_permission")); got != wantPermissions {
		t.Errorf("fs client: %d session/request_permission, want %d", got, wantPermissions)
	}
	for _, m := range []string{"fs/read_text_file", "fs/write_text_file"} {
		if got := agentRequests(conns["disk"], m); len(got) != 0 {
			t.Errorf("disk client: the agent sent %d %s to a client without fs", len(got), m)
		}
	}
	if len(conns["fs"]) == 0 || len(conns["disk"]) == 0 {
		t.Errorf("transcript: %d fs lines, %d disk lines; want both connections recorded", len(conns["fs"]), len(conns["disk"]))
	}
}
