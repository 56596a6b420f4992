package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// fakeEnvOptions configures newFakeEnv. The zero value gives a disk-only
// session (no editor) on an empty workspace that approves every edit and
// enables every tool.
type fakeEnvOptions struct {
	// Files are written to the workspace before the test starts, by slash
	// path relative to the workspace root.
	Files map[string]string
	// Editor makes the session's file access go through a fake editor
	// (fs/read_text_file and fs/write_text_file), built with
	// workspace.NewFiles(ws, editor, true, true).
	Editor bool
	// Buffers are the editor's unsaved buffers, by slash path relative to
	// the workspace root. Setting it implies Editor.
	Buffers map[string]string
	// Approve decides edit approvals; nil approves everything.
	Approve func(callID string, changes []workspace.Change) workspace.Decision
	// RefuseLint is Deps.RefuseNewLintErrors.
	RefuseLint bool
	// Enabled is Deps.Enabled; nil enables every tool.
	Enabled func(tool string) bool
	// Types is Deps.Types; nil: Go files get the syntax lint only.
	Types TypeChecker
	// Workspace is passed to workspace.Open; Home and HermesHome default to
	// folders inside a temporary home so tests never see the real ones.
	Workspace workspace.Options
}

// fakeApproval is one ApproveEdit call seen by a fakeEnv.
type fakeApproval struct {
	CallID  string
	Changes []workspace.Change
	Lints   []lint.Result
}

// fakeLintReport is one ReportLint call seen by a fakeEnv.
type fakeLintReport struct {
	CallID  string
	Path    workspace.Path
	Content string
	Result  lint.Result
}

// fakeEnv is a test session of the built-in tools over a real workspace in
// a temporary folder: it embeds the session the handlers run in (its Deps
// and per-session state) and is itself the session's EditApprover and
// LintSink. It is safe for concurrent use. Tests inspect the recorded
// approvals and lint reports, and the editor's calls through Editor.
type fakeEnv struct {
	*session
	Root   string // the workspace root (the session cwd), symlinks resolved
	Home   string // the fake home directory
	Editor *fakeEditor

	approve func(string, []workspace.Change) workspace.Decision
	linter  lint.Linter

	mu        sync.Mutex // guards approvals, lints, learned
	approvals []fakeApproval
	lints     []fakeLintReport
	learned   []string
}

var (
	_ EditApprover = (*fakeEnv)(nil)
	_ LintSink     = (*fakeEnv)(nil)
)

// newFakeEnv opens a workspace on a new temporary folder, writes
// opts.Files into it and returns the session. The workspace is closed when
// the test ends.
func newFakeEnv(t testing.TB, opts fakeEnvOptions) *fakeEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range opts.Files {
		fakeWriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
	}
	wo := opts.Workspace
	if wo.Home == "" {
		wo.Home = home
	}
	if wo.HermesHome == "" {
		wo.HermesHome = filepath.Join(wo.Home, ".hermes")
	}
	ws, err := workspace.Open(root, nil, wo)
	if err != nil {
		t.Fatalf("workspace.Open(%q) = %v", root, err)
	}
	t.Cleanup(func() { ws.Close() })
	e := &fakeEnv{Root: root, Home: wo.Home, approve: opts.Approve}
	var files *workspace.Files
	if opts.Editor || opts.Buffers != nil {
		e.Editor = &fakeEditor{buffers: make(map[string]string)}
		for rel, text := range opts.Buffers {
			e.Editor.buffers[filepath.Join(root, filepath.FromSlash(rel))] = text
		}
		files = workspace.NewFiles(ws, e.Editor, true, true)
	} else {
		files = workspace.NewFiles(ws, nil, false, false)
	}
	e.session = newSession(Deps{
		Workspace:           ws,
		Files:               files,
		State:               workspace.NewState(ws),
		Approver:            e,
		Lint:                e,
		Linter:              &e.linter,
		RefuseNewLintErrors: opts.RefuseLint,
		Enabled:             opts.Enabled,
		Types:               opts.Types,
		// A model that sees, so vision_analyze counts as enabled; tests of
		// vision_analyze replace it.
		Vision: func(context.Context, []byte, string, string) (string, error) {
			return "", errors.New("no vision model in this test")
		},
	})
	return e
}

// fakeWriteFile writes content to the absolute path abs, creating parents.
func fakeWriteFile(t testing.TB, abs, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *fakeEnv) ApproveEdit(ctx context.Context, callID string, changes []workspace.Change, lints []lint.Result) workspace.Decision {
	e.mu.Lock()
	e.approvals = append(e.approvals, fakeApproval{CallID: callID, Changes: changes, Lints: lints})
	approve := e.approve
	e.mu.Unlock()
	if approve == nil {
		return workspace.Decision{Approved: true}
	}
	return approve(callID, changes)
}

func (e *fakeEnv) ReportLint(callID string, p workspace.Path, content []byte, res lint.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lints = append(e.lints, fakeLintReport{CallID: callID, Path: p, Content: string(content), Result: res})
}

// LearnLint records the call and has the linter learn content at once.
func (e *fakeEnv) LearnLint(p workspace.Path, content []byte) {
	e.mu.Lock()
	e.learned = append(e.learned, p.Abs())
	e.mu.Unlock()
	e.linter.Learn(p.Abs(), content)
}

// Learned returns the paths given to LearnLint so far, in order.
func (e *fakeEnv) Learned() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.learned)
}

// Approvals returns the ApproveEdit calls seen so far.
func (e *fakeEnv) Approvals() []fakeApproval {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]fakeApproval(nil), e.approvals...)
}

// LintReports returns the ReportLint calls seen so far.
func (e *fakeEnv) LintReports() []fakeLintReport {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]fakeLintReport(nil), e.lints...)
}

// Abs returns the absolute path of the slash path rel inside the workspace.
func (e *fakeEnv) Abs(rel string) string { return filepath.Join(e.Root, filepath.FromSlash(rel)) }

// WriteFile writes a file into the workspace on disk (not through the
// editor), creating parent directories.
func (e *fakeEnv) WriteFile(t testing.TB, rel, content string) {
	t.Helper()
	fakeWriteFile(t, e.Abs(rel), content)
}

// ReadFile returns the content of a workspace file on disk.
func (e *fakeEnv) ReadFile(t testing.TB, rel string) string {
	t.Helper()
	data, err := os.ReadFile(e.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Resolve resolves s in the workspace, failing the test on error.
func (e *fakeEnv) Resolve(t testing.TB, s string) workspace.Path {
	t.Helper()
	p, err := e.Workspace.Resolve(s)
	if err != nil {
		t.Fatalf("Resolve(%q) = %v", s, err)
	}
	return p
}

// noteToolCall tells the session's read tracker that the tool name ran, as
// the pre-call hook [Bind] returns does for every call of the session.
func (e *fakeEnv) noteToolCall(name string) { e.reads.noteToolCall(name) }

// Run calls the built-in tool name with args (already decoded JSON values)
// as the registry would after coercion, and returns its result. A handler
// error, or a result whose IsError disagrees with its "error" key, fails
// the test.
func (e *fakeEnv) Run(t testing.TB, name string, args map[string]any) registry.Result {
	t.Helper()
	r, err := e.RunCtx(t.Context(), name, args)
	if err != nil {
		t.Fatalf("%s(%v) returned error %v", name, args, err)
	}
	checkIsError(t, name, r)
	return r
}

// RunCtx is Run with an explicit context, returning the handler's error.
func (e *fakeEnv) RunCtx(ctx context.Context, name string, args map[string]any) (registry.Result, error) {
	return runBuiltin(ctx, e.session, "call-"+name, name, args)
}

// runBuiltin calls the built-in tool name bound to session s, as call id
// with args. It is an error when no built-in tool has that name.
func runBuiltin(ctx context.Context, s *session, id, name string, args map[string]any) (registry.Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	for _, b := range builtins {
		if b.entry.Name == name {
			return b.handler(s)(ctx, &registry.Call{ID: id, Name: name, Args: args})
		}
	}
	return registry.Result{}, fmt.Errorf("no built-in tool %q", name)
}

// resultObject returns the value of r as the model reads it (without the
// hint), decoded as a JSON object.
func resultObject(t testing.TB, r registry.Result) map[string]any {
	t.Helper()
	out := registry.Result{Value: r.Value}.Encode()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("result is not a JSON object: %v\n%s", err, out)
	}
	return m
}

// checkIsError fails the test unless r's IsError says what its value says:
// every built-in tool's failure carries an "error" message and every
// success has none, so a failure the model reads is a failure the editor,
// the guardrails and the budget see.
func checkIsError(t testing.TB, name string, r registry.Result) {
	t.Helper()
	m := resultObject(t, r)
	msg, _ := m["error"].(string)
	if r.IsError != (msg != "") {
		t.Errorf("%s result %.300s has IsError %v, want %v", name, registry.Result{Value: r.Value}.Encode(), r.IsError, msg != "")
	}
}

// fakeEditor serves fs/read_text_file and fs/write_text_file from memory,
// as an editor with unsaved buffers would: a path with a buffer reads the
// buffer; any other path reads the disk (as an editor opening the file
// would). Writes go to the disk and replace the buffer. It records the
// paths it was asked for and is safe for concurrent use.
type fakeEditor struct {
	mu      sync.Mutex        // guards every field below
	buffers map[string]string // abs path → buffer text
	readErr error             // when set, every read fails with it
	reads   []string
	writes  []string
}

var _ workspace.Editor = (*fakeEditor)(nil)

func (f *fakeEditor) ReadTextFile(ctx context.Context, abs string) (string, error) {
	f.mu.Lock()
	f.reads = append(f.reads, abs)
	text, ok := f.buffers[abs]
	readErr := f.readErr
	f.mu.Unlock()
	if readErr != nil {
		return "", readErr
	}
	if ok {
		return text, nil
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("fs/read_text_file: resource not found (-32002): %w", fs.ErrNotExist)
	}
	if err != nil {
		return "", fmt.Errorf("fs/read_text_file: %w", err)
	}
	return string(data), nil
}

func (f *fakeEditor) WriteTextFile(ctx context.Context, abs, content string) error {
	f.mu.Lock()
	f.writes = append(f.writes, abs)
	if _, ok := f.buffers[abs]; ok {
		f.buffers[abs] = content
	}
	f.mu.Unlock()
	return os.WriteFile(abs, []byte(content), 0o644)
}

// SetBuffer replaces (or opens) the unsaved buffer of abs.
func (f *fakeEditor) SetBuffer(abs, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buffers[abs] = text
}

// Buffer returns the buffer of abs and whether one is open.
func (f *fakeEditor) Buffer(abs string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text, ok := f.buffers[abs]
	return text, ok
}

// SetReadError makes every later read fail with err (nil restores reads).
func (f *fakeEditor) SetReadError(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readErr = err
}

// Reads returns the paths read so far.
func (f *fakeEditor) Reads() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reads...)
}

// Writes returns the paths written so far.
func (f *fakeEditor) Writes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.writes...)
}
